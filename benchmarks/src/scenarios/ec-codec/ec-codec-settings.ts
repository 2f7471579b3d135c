import { integerFlag, listFlag, parseScenarioFlags } from '../../harness/index.js';

/** The stripe layouts measured: Ozone's two recommended RS configs. */
export const EC_SCHEMAS = ['rs-3-2', 'rs-6-3'] as const;
export type EcSchemaName = (typeof EC_SCHEMAS)[number];

/** encode; decode with the first one or two data cells lost. */
export const EC_OPS = ['encode', 'decode-1', 'decode-2'] as const;
export type EcOp = (typeof EC_OPS)[number];

/** The columns: fastpath's two kernels, Hadoop's Java coder, ISA-L from C. */
export const EC_CODERS = ['typescript', 'isa-l-addon', 'hadoop-java', 'isa-l-native'] as const;
export type EcCoder = (typeof EC_CODERS)[number];

/** The settings of one run of the ec-codec scenario, resolved from flags and `--quick`. */
export interface EcCodecSettings {
  /** Measured rounds per case and coder. */
  rounds: number;
  /** Length of one round, in ms (one more unmeasured round warms up first). */
  roundMs: number;
  /** Bytes per cell (Ozone's `1024k` configs: 1 MiB). */
  cellBytes: number;
  schemas: EcSchemaName[];
  ops: EcOp[];
  coders: EcCoder[];
}

export const DEFAULT_EC_CODEC_SETTINGS: Readonly<EcCodecSettings> = Object.freeze({
  rounds: 5,
  roundMs: 500,
  cellBytes: 1 << 20,
  schemas: [...EC_SCHEMAS],
  ops: [...EC_OPS],
  coders: [...EC_CODERS],
});

export const QUICK_EC_CODEC_SETTINGS: Readonly<Pick<EcCodecSettings, 'rounds' | 'roundMs'>> = Object.freeze({
  rounds: 3,
  roundMs: 100,
});

export const EC_CODEC_FLAGS = {
  rounds: {
    type: 'string',
    value: '<n>',
    description: `measured rounds per case (default ${DEFAULT_EC_CODEC_SETTINGS.rounds}; --quick ${QUICK_EC_CODEC_SETTINGS.rounds})`,
  },
  'round-ms': {
    type: 'string',
    value: '<ms>',
    description: `length of one round in ms (default ${DEFAULT_EC_CODEC_SETTINGS.roundMs}; --quick ${QUICK_EC_CODEC_SETTINGS.roundMs})`,
  },
  'cell-bytes': {
    type: 'string',
    value: '<n>',
    description: `bytes per cell (default ${DEFAULT_EC_CODEC_SETTINGS.cellBytes}, Ozone's 1024k)`,
  },
  schemas: { type: 'string', value: '<list>', description: `layouts (default ${EC_SCHEMAS.join(',')})` },
  ops: { type: 'string', value: '<list>', description: `operations (default ${EC_OPS.join(',')})` },
  coders: { type: 'string', value: '<list>', description: `columns (default ${EC_CODERS.join(',')})` },
} as const;

/** Parses the scenario's flags; bad or unknown flags throw `BenchmarkUsageError`. */
export function parseEcCodecFlags(args: readonly string[], quick: boolean): EcCodecSettings {
  const flags = parseScenarioFlags('ec-codec', args, EC_CODEC_FLAGS);
  const base = quick
    ? { ...DEFAULT_EC_CODEC_SETTINGS, ...QUICK_EC_CODEC_SETTINGS }
    : DEFAULT_EC_CODEC_SETTINGS;
  return {
    rounds: integerFlag('ec-codec', 'rounds', flags.rounds, base.rounds, { min: 1, max: 1000 }),
    roundMs: integerFlag('ec-codec', 'round-ms', flags['round-ms'], base.roundMs, { min: 10, max: 600_000 }),
    cellBytes: integerFlag('ec-codec', 'cell-bytes', flags['cell-bytes'], base.cellBytes, {
      min: 64,
      max: 64 << 20,
    }),
    schemas: listFlag('ec-codec', 'schemas', flags.schemas, base.schemas, EC_SCHEMAS),
    ops: listFlag('ec-codec', 'ops', flags.ops, base.ops, EC_OPS),
    coders: listFlag('ec-codec', 'coders', flags.coders, base.coders, EC_CODERS),
  };
}

/** Data and parity counts of a layout name. */
export function schemaCounts(name: EcSchemaName): { data: number; parity: number } {
  const [, d, p] = /^rs-(\d+)-(\d+)$/.exec(name)!;
  return { data: Number(d), parity: Number(p) };
}

/** Lost data cells of an op. */
export function opErasures(op: EcOp): number {
  return op === 'encode' ? 0 : Number(op.slice('decode-'.length));
}
