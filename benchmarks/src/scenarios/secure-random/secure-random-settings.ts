import { BenchmarkUsageError, integerFlag, listFlag, parseScenarioFlags } from '../../harness/index.js';
import { BASELINE_VARIANT, DRAW_VARIANT_IDS, type DrawVariantId } from './draw-variants.js';

/** The settings of one run of the secure-random scenario, resolved from flags and `--quick`. */
export interface SecureRandomSettings {
  /** Measured rounds per variant and thread count. */
  rounds: number;
  /** Length of one measured round, in ms. */
  roundMs: number;
  /** Unmeasured run of each variant before its rounds, in ms. */
  warmupMs: number;
  /** Length of the round that times every op on its own (for percentiles), in ms; 0 skips it. */
  latencyMs: number;
  /** Thread counts to run, e.g. [1, 10]: that many worker threads draw at once. */
  threadCounts: number[];
  /** Variants to run; always holds the baseline. */
  variants: DrawVariantId[];
  /** Key length of the session draw, in bytes (IVs are always 16). */
  keyBytes: 16 | 24 | 32;
  /** Sizes of the bulk comparison, in bytes; empty skips it. */
  bulkBytes: number[];
  /** Measured rounds per bulk size: more than the main rounds, as the two variants differ little. */
  bulkRounds: number;
  /** Length of one bulk round, in ms: both bulk variants run in it, alternating in short slices. */
  bulkRoundMs: number;
}

export const DEFAULT_SECURE_RANDOM_SETTINGS: Readonly<SecureRandomSettings> = Object.freeze({
  rounds: 5,
  roundMs: 1000,
  warmupMs: 1000,
  latencyMs: 1000,
  threadCounts: [1, 10],
  variants: [...DRAW_VARIANT_IDS],
  keyBytes: 16,
  bulkBytes: [65536, 1048576],
  bulkRounds: 9,
  bulkRoundMs: 600,
});

export const QUICK_SECURE_RANDOM_SETTINGS: Readonly<
  Pick<SecureRandomSettings, 'rounds' | 'roundMs' | 'warmupMs' | 'latencyMs' | 'bulkRounds' | 'bulkRoundMs'>
> = Object.freeze({
  rounds: 2,
  roundMs: 150,
  warmupMs: 150,
  latencyMs: 150,
  bulkRounds: 2,
  bulkRoundMs: 200,
});

const MAX_THREADS = 64;
const MAX_BULK_BYTES = 64 * 1024 * 1024;
const d = DEFAULT_SECURE_RANDOM_SETTINGS;
const q = QUICK_SECURE_RANDOM_SETTINGS;

export const SECURE_RANDOM_FLAGS = {
  rounds: {
    type: 'string',
    value: '<n>',
    description: `measured rounds per variant and thread count (default ${d.rounds}; --quick ${q.rounds})`,
  },
  'round-ms': {
    type: 'string',
    value: '<ms>',
    description: `length of one round in ms (default ${d.roundMs}; --quick ${q.roundMs})`,
  },
  'warmup-ms': {
    type: 'string',
    value: '<ms>',
    description: `warm-up of each variant in ms (default ${d.warmupMs}; --quick ${q.warmupMs})`,
  },
  'latency-ms': {
    type: 'string',
    value: '<ms>',
    description: `per-op latency round of each variant in ms, 0 to skip (default ${d.latencyMs}; --quick ${q.latencyMs})`,
  },
  threads: {
    type: 'string',
    value: '<list>',
    description: `thread counts, comma-separated (default ${d.threadCounts.join(',')}); 1 to ${MAX_THREADS}`,
  },
  variants: {
    type: 'string',
    value: '<list>',
    description: `variants, comma-separated (default all: ${DRAW_VARIANT_IDS.join(',')}); ${BASELINE_VARIANT} always runs`,
  },
  'key-bytes': {
    type: 'string',
    value: '<n>',
    description: `key length in bytes: 16, 24 or 32 (default ${d.keyBytes}); IVs are 16 bytes`,
  },
  'bulk-bytes': {
    type: 'string',
    value: '<list>',
    description: `bulk draw sizes in bytes, comma-separated, or "none" (default ${d.bulkBytes.join(',')})`,
  },
  'bulk-rounds': {
    type: 'string',
    value: '<n>',
    description: `measured rounds per bulk size (default ${d.bulkRounds}; --quick ${q.bulkRounds})`,
  },
  'bulk-round-ms': {
    type: 'string',
    value: '<ms>',
    description: `length of one bulk round in ms, both variants alternating (default ${d.bulkRoundMs}; --quick ${q.bulkRoundMs})`,
  },
} as const;

function integerList(name: string, raw: string, min: number, max: number): number[] {
  const out: number[] = [];
  for (const item of raw.split(',').map((s) => s.trim())) {
    const value = integerFlag('secure-random', name, item, NaN, { min, max });
    if (!out.includes(value)) out.push(value);
  }
  return out;
}

/** Parses the scenario's flags; bad or unknown flags throw `BenchmarkUsageError`. */
export function parseSecureRandomFlags(args: readonly string[], quick: boolean): SecureRandomSettings {
  const flags = parseScenarioFlags('secure-random', args, SECURE_RANDOM_FLAGS);
  const base = quick ? { ...d, ...q } : d;
  const variants = listFlag('secure-random', 'variants', flags.variants, base.variants, DRAW_VARIANT_IDS);
  if (!variants.includes(BASELINE_VARIANT)) variants.unshift(BASELINE_VARIANT);
  const keyBytes = integerFlag('secure-random', 'key-bytes', flags['key-bytes'], base.keyBytes, {
    min: 16,
    max: 32,
  });
  if (keyBytes !== 16 && keyBytes !== 24 && keyBytes !== 32) {
    throw new BenchmarkUsageError(
      `secure-random: --key-bytes must be 16, 24 or 32, got "${flags['key-bytes']}"`,
    );
  }
  const bulkRaw = flags['bulk-bytes'];
  return {
    rounds: integerFlag('secure-random', 'rounds', flags.rounds, base.rounds, { min: 1, max: 1000 }),
    roundMs: integerFlag('secure-random', 'round-ms', flags['round-ms'], base.roundMs, {
      min: 1,
      max: 600_000,
    }),
    warmupMs: integerFlag('secure-random', 'warmup-ms', flags['warmup-ms'], base.warmupMs, {
      min: 0,
      max: 600_000,
    }),
    latencyMs: integerFlag('secure-random', 'latency-ms', flags['latency-ms'], base.latencyMs, {
      min: 0,
      max: 600_000,
    }),
    threadCounts:
      flags.threads === undefined
        ? [...base.threadCounts]
        : integerList('threads', flags.threads, 1, MAX_THREADS),
    variants,
    keyBytes,
    bulkBytes:
      bulkRaw === undefined
        ? [...base.bulkBytes]
        : bulkRaw.trim() === 'none'
          ? []
          : integerList('bulk-bytes', bulkRaw, 1, MAX_BULK_BYTES),
    bulkRounds: integerFlag('secure-random', 'bulk-rounds', flags['bulk-rounds'], base.bulkRounds, {
      min: 1,
      max: 1000,
    }),
    bulkRoundMs: integerFlag('secure-random', 'bulk-round-ms', flags['bulk-round-ms'], base.bulkRoundMs, {
      min: 1,
      max: 600_000,
    }),
  };
}
