// The variants of the secure-random scenario, as the report names them. The code that runs them
// lives in session-draws.ts, which only the worker threads load.

export const DRAW_VARIANT_IDS = [
  'hadoop-style',
  'device-shared',
  'random-bytes',
  'random-fill-sync',
  'pooled-shared',
  'pooled-per-worker',
  'pooled-allocating',
] as const;

export type DrawVariantId = (typeof DRAW_VARIANT_IDS)[number];

/** Every ratio is taken against this one: Hadoop's behaviour before HADOOP-16011. */
export const BASELINE_VARIANT: DrawVariantId = 'hadoop-style';
/** The per-call system generator, the second reference of the goals. */
export const PER_CALL_VARIANT: DrawVariantId = 'random-fill-sync';
/** The configuration the package recommends, which the goals are read from. */
export const TARGET_VARIANT: DrawVariantId = 'pooled-per-worker';
/** The same generator behind the allocating API: the goals are also shown read from it. */
export const ALLOCATING_VARIANT: DrawVariantId = 'pooled-allocating';
/** The allocating per-call reference (Node offers no allocation-free form of it). */
export const ALLOCATING_PER_CALL_VARIANT: DrawVariantId = 'random-bytes';

export interface DrawVariant {
  /** Row name in the JMH-style table. */
  readonly benchmark: string;
  /** Short label for charts. */
  readonly label: string;
  /** What one op does. */
  readonly description: string;
  /** Whether an op allocates its result (four new Buffers) instead of filling caller-owned ones. */
  readonly allocates: boolean;
}

export const DRAW_VARIANTS: Readonly<Record<DrawVariantId, DrawVariant>> = Object.freeze({
  'hadoop-style': {
    benchmark: 'SecureRandomBench.hadoopStyle',
    label: 'Hadoop-style (new device reader per op)',
    description:
      "`fillSessionKeys(keys, new DeviceSecureRandom())` then `close()`, as a new codec per connection did: open `/dev/urandom`, read an 8 KiB reservoir, fill the caller's four buffers, close",
    allocates: false,
  },
  'device-shared': {
    benchmark: 'SecureRandomBench.deviceShared',
    label: 'device reader, kept open',
    description:
      '`fillSessionKeys(keys, reader)` with one `DeviceSecureRandom` per thread, reused by every op (8 KiB reservoir refilled as it runs out)',
    allocates: false,
  },
  'random-bytes': {
    benchmark: 'SecureRandomBench.randomBytes',
    label: 'crypto.randomBytes (allocates)',
    description:
      '`crypto.randomBytes(n)` per part, each in a `Redacted` box: it can only allocate, so this row allocates four Buffers per op',
    allocates: true,
  },
  'random-fill-sync': {
    benchmark: 'SecureRandomBench.randomFillSync',
    label: 'crypto.randomFillSync',
    description: "`crypto.randomFillSync(part)` into each of the caller's four buffers",
    allocates: false,
  },
  'pooled-shared': {
    benchmark: 'SecureRandomBench.pooledShared',
    label: 'pooled, module default',
    description: "`fillSessionKeys(keys)`: the thread's shared `defaultSecureRandom`, one pass over its pool",
    allocates: false,
  },
  'pooled-per-worker': {
    benchmark: 'SecureRandomBench.pooledPerWorker',
    label: 'pooled, own instance per worker',
    description:
      '`fillSessionKeys(keys, source)` with a `PooledSecureRandom` each worker created for itself, one pass over its pool',
    allocates: false,
  },
  'pooled-allocating': {
    benchmark: 'SecureRandomBench.pooledAllocating',
    label: 'pooled, own instance, allocating',
    description:
      '`generateSessionKeys({ keyBytes, source })` with the same kind of own `PooledSecureRandom`: four new Buffers, each in a `Redacted` box, per op',
    allocates: true,
  },
});

export const BULK_VARIANT_IDS = ['random-fill-sync', 'pooled'] as const;
export type BulkVariantId = (typeof BULK_VARIANT_IDS)[number];

export const BULK_VARIANTS: Readonly<Record<BulkVariantId, { label: string; description: string }>> =
  Object.freeze({
    'random-fill-sync': {
      label: 'crypto.randomFillSync',
      description: '`crypto.randomFillSync(Buffer.allocUnsafeSlow(n))`',
    },
    pooled: { label: 'generateSecureRandom', description: '`generateSecureRandom(n)` (the pooled default)' },
  });
