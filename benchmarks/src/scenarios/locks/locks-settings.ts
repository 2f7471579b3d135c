import { integerFlag, listFlag, parseScenarioFlags } from '../../harness/index.js';
import { BASELINE_VARIANT, LOCK_VARIANT_IDS, type LockVariantId } from './lock-variants.js';
import { LOCK_MODES, type LockMode } from './measure-lock-round.js';

/** The settings of one run of the lock scenario, resolved from flags and `--quick`. */
export interface LocksSettings {
  /** Measured rounds per case. */
  rounds: number;
  /** Length of one measured round, in ms. */
  roundMs: number;
  /** Unmeasured run of each case before its rounds, in ms. */
  warmupMs: number;
  /** Concurrent async loops in the contended mode. */
  concurrency: number;
  /** Locks to run; always holds the baseline. */
  variants: LockVariantId[];
  modes: LockMode[];
}

export const DEFAULT_LOCKS_SETTINGS: Readonly<LocksSettings> = Object.freeze({
  rounds: 5,
  roundMs: 250,
  warmupMs: 250,
  concurrency: 32,
  variants: [...LOCK_VARIANT_IDS],
  modes: [...LOCK_MODES],
});

export const QUICK_LOCKS_SETTINGS: Readonly<Pick<LocksSettings, 'rounds' | 'roundMs' | 'warmupMs'>> =
  Object.freeze({
    rounds: 3,
    roundMs: 60,
    warmupMs: 60,
  });

export const LOCKS_FLAGS = {
  rounds: {
    type: 'string',
    value: '<n>',
    description: `measured rounds per case (default ${DEFAULT_LOCKS_SETTINGS.rounds}; --quick ${QUICK_LOCKS_SETTINGS.rounds})`,
  },
  'round-ms': {
    type: 'string',
    value: '<ms>',
    description: `length of one round in ms (default ${DEFAULT_LOCKS_SETTINGS.roundMs}; --quick ${QUICK_LOCKS_SETTINGS.roundMs})`,
  },
  'warmup-ms': {
    type: 'string',
    value: '<ms>',
    description: `warm-up of each case in ms (default ${DEFAULT_LOCKS_SETTINGS.warmupMs}; --quick ${QUICK_LOCKS_SETTINGS.warmupMs})`,
  },
  concurrency: {
    type: 'string',
    value: '<n>',
    description: `async loops in the contended mode (default ${DEFAULT_LOCKS_SETTINGS.concurrency})`,
  },
  variants: {
    type: 'string',
    value: '<list>',
    description: `locks to run, comma-separated (default all: ${LOCK_VARIANT_IDS.join(',')}); ${BASELINE_VARIANT} always runs`,
  },
  modes: {
    type: 'string',
    value: '<list>',
    description: `modes to run (default ${LOCK_MODES.join(',')})`,
  },
} as const;

/** Parses the lock scenario's flags; bad or unknown flags throw `BenchmarkUsageError`. */
export function parseLocksFlags(args: readonly string[], quick: boolean): LocksSettings {
  const flags = parseScenarioFlags('locks', args, LOCKS_FLAGS);
  const base = quick ? { ...DEFAULT_LOCKS_SETTINGS, ...QUICK_LOCKS_SETTINGS } : DEFAULT_LOCKS_SETTINGS;
  const variants = listFlag('locks', 'variants', flags.variants, base.variants, LOCK_VARIANT_IDS);
  if (!variants.includes(BASELINE_VARIANT)) variants.unshift(BASELINE_VARIANT);
  return {
    rounds: integerFlag('locks', 'rounds', flags.rounds, base.rounds, { min: 1, max: 1000 }),
    roundMs: integerFlag('locks', 'round-ms', flags['round-ms'], base.roundMs, { min: 1, max: 600_000 }),
    warmupMs: integerFlag('locks', 'warmup-ms', flags['warmup-ms'], base.warmupMs, { min: 0, max: 600_000 }),
    concurrency: integerFlag('locks', 'concurrency', flags.concurrency, base.concurrency, {
      min: 2,
      max: 100_000,
    }),
    variants,
    modes: listFlag('locks', 'modes', flags.modes, base.modes, LOCK_MODES),
  };
}
