import { integerFlag, listFlag, parseScenarioFlags } from '../../harness/index.js';
import { mixesFlag, secondsFlagMs } from '../../harness/mixed-load/mixed-load-flags.js';
import { DEFAULT_MIXES, type OperationMix } from '../../harness/mixed-load/operation-mix.js';

/** The creation paths compared: the pre-fix global lock, staged creation, staged + coalesced persists. */
export type CreationMode = 'global' | 'staged' | 'coalesced';
export const CREATION_MODES: readonly CreationMode[] = Object.freeze(['global', 'staged', 'coalesced']);

export interface TokenManagerSettings {
  warmupMs: number;
  measureMs: number;
  reps: number;
  mixes: OperationMix[];
  concurrency: number;
  modes: CreationMode[];
  /** Tokens created before measuring, verified round-robin during it. */
  verifyTokens: number;
  seqNumBatchSize: number;
}

export const DEFAULT_TOKEN_MANAGER_SETTINGS: Readonly<Omit<TokenManagerSettings, 'mixes'>> = Object.freeze({
  warmupMs: 2000,
  measureMs: 5000,
  reps: 3,
  concurrency: 32,
  modes: [...CREATION_MODES],
  verifyTokens: 64,
  seqNumBatchSize: 100,
});

const QUICK = Object.freeze({ warmupMs: 300, measureMs: 1000, reps: 1 });

export const TOKEN_MANAGER_FLAGS = {
  warmup: {
    type: 'string',
    value: '<s>',
    description: 'warm-up per case in seconds (default 2; --quick 0.3)',
  },
  measure: {
    type: 'string',
    value: '<s>',
    description: 'measured window per case in seconds (default 5; --quick 1)',
  },
  reps: { type: 'string', value: '<n>', description: 'repetitions of every case (default 3; --quick 1)' },
  mixes: {
    type: 'string',
    value: '<list>',
    description: `verify:create mixes, comma-separated (default ${DEFAULT_MIXES.join(',')})`,
  },
  concurrency: { type: 'string', value: '<n>', description: 'concurrent callers (default 32)' },
  modes: {
    type: 'string',
    value: '<list>',
    description: `creation modes (default ${CREATION_MODES.join(',')})`,
  },
  'batch-size': { type: 'string', value: '<n>', description: 'sequence-number batch size (default 100)' },
} as const;

export function parseTokenManagerFlags(args: readonly string[], quick: boolean): TokenManagerSettings {
  const name = 'token-manager';
  const flags = parseScenarioFlags(name, args, TOKEN_MANAGER_FLAGS);
  const base = quick ? { ...DEFAULT_TOKEN_MANAGER_SETTINGS, ...QUICK } : DEFAULT_TOKEN_MANAGER_SETTINGS;
  return {
    warmupMs: secondsFlagMs(name, 'warmup', flags.warmup, base.warmupMs, { min: 0, max: 600 }),
    measureMs: secondsFlagMs(name, 'measure', flags.measure, base.measureMs, { min: 0.1, max: 3600 }),
    reps: integerFlag(name, 'reps', flags.reps, base.reps, { min: 1, max: 100 }),
    mixes: mixesFlag(name, flags.mixes),
    concurrency: integerFlag(name, 'concurrency', flags.concurrency, base.concurrency, { min: 1, max: 4096 }),
    modes: listFlag(name, 'modes', flags.modes, base.modes, CREATION_MODES),
    verifyTokens: base.verifyTokens,
    seqNumBatchSize: integerFlag(name, 'batch-size', flags['batch-size'], base.seqNumBatchSize, {
      min: 1,
      max: 1_000_000,
    }),
  };
}
