// The variants of the secure-random scenario, as the report names them. The code that runs them
// lives in session-draws.ts, which only the worker threads load.

export const DRAW_VARIANT_IDS = [
  'hadoop-style',
  'device-shared',
  'random-bytes',
  'random-fill-sync',
  'pooled-shared',
  'pooled-per-worker',
] as const;

export type DrawVariantId = (typeof DRAW_VARIANT_IDS)[number];

/** Every ratio is taken against this one: Hadoop's behaviour before HADOOP-16011. */
export const BASELINE_VARIANT: DrawVariantId = 'hadoop-style';
/** The per-call system generator, the second reference of the goals. */
export const PER_CALL_VARIANT: DrawVariantId = 'random-fill-sync';
/** The configuration the package recommends, which the goals are about. */
export const TARGET_VARIANT: DrawVariantId = 'pooled-per-worker';

export interface DrawVariant {
  /** Row name in the JMH-style table. */
  readonly benchmark: string;
  /** Short label for charts. */
  readonly label: string;
  /** What one op does. */
  readonly description: string;
}

export const DRAW_VARIANTS: Readonly<Record<DrawVariantId, DrawVariant>> = Object.freeze({
  'hadoop-style': {
    benchmark: 'SecureRandomBench.hadoopStyle',
    label: 'Hadoop-style (new device reader per op)',
    description:
      'a new `DeviceSecureRandom` per op, as a new codec per connection did: open `/dev/urandom`, read an 8 KiB reservoir, serve the four draws, close',
  },
  'device-shared': {
    benchmark: 'SecureRandomBench.deviceShared',
    label: 'device reader, kept open',
    description:
      'one `DeviceSecureRandom` per thread, reused by every op (8 KiB reservoir refilled as it runs out)',
  },
  'random-bytes': {
    benchmark: 'SecureRandomBench.randomBytes',
    label: 'crypto.randomBytes',
    description: '`crypto.randomBytes(n)` per draw',
  },
  'random-fill-sync': {
    benchmark: 'SecureRandomBench.randomFillSync',
    label: 'crypto.randomFillSync',
    description: '`crypto.randomFillSync(Buffer.allocUnsafeSlow(n))` per draw',
  },
  'pooled-shared': {
    benchmark: 'SecureRandomBench.pooledShared',
    label: 'pooled, module default',
    description: "`generateSessionKeys()`: the thread's shared `defaultSecureRandom`",
  },
  'pooled-per-worker': {
    benchmark: 'SecureRandomBench.pooledPerWorker',
    label: 'pooled, own instance per worker',
    description:
      '`generateSessionKeys({ source })` with a `PooledSecureRandom` each worker created for itself',
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
