import { BenchmarkUsageError, integerFlag, listFlag, parseScenarioFlags } from '../../harness/index.js';
import { clusterFlag, sizeFlag, type ClusterKind } from '../ozone-read/ozone-read-settings.js';

/** The rows of the table: one shape of key writes each, named by what they stand for. */
export const ROW_IDS = ['single', 'parallel', 'small-files'] as const;
export type RowId = (typeof ROW_IDS)[number];

/** One row's writes in one pass: `writers` concurrent writers, each writing `keysPerWriter` keys in turn. */
export interface RowShape {
  id: RowId;
  writers: number;
  keySizeBytes: number;
  keysPerWriter: number;
}

export interface OzoneWriteSettings {
  cluster: ClusterKind;
  /** Rows to run, in this order within every pass. */
  rows: RowId[];
  /** The shape of each row (the profile's, or `--quick`'s smaller one). */
  shapes: Record<RowId, RowShape>;
  /** Measured passes; in each, every row is written once by each client, the clients alternating first. */
  passes: number;
  /** Bytes handed to the output stream per `write` call, both clients. */
  writeBytes: number;
  /** With `--cluster real`: Ozone's own Java client writes beside fastpath's. */
  java: boolean;
  /** With Java: Ozone's Java client also reads back every key fastpath wrote (checksums verified). */
  crossRead: boolean;
  /** An unmeasured pass per client before the first measured one (JIT, connections, pipelines). */
  warmup: RowShape | null;
  /** RATIS/THREE for both clients (the table's subject: writes through a 3-member Raft group). */
  replication: 'THREE';
  datanodes: number;
  /** After the passes, one more fastpath pass per row under the CPU profiler (not measured). */
  profile: boolean;
}

const KiB = 1024;
const MiB = 1024 * KiB;

/** Issue 27's rows: 1 writer × 256 MiB, 16 writers × 16 MiB, 16 writers × 64 KiB files. */
export const DEFAULT_SHAPES: Readonly<Record<RowId, Readonly<RowShape>>> = Object.freeze({
  single: Object.freeze({ id: 'single', writers: 1, keySizeBytes: 256 * MiB, keysPerWriter: 1 }),
  parallel: Object.freeze({ id: 'parallel', writers: 16, keySizeBytes: 16 * MiB, keysPerWriter: 1 }),
  'small-files': Object.freeze({ id: 'small-files', writers: 16, keySizeBytes: 64 * KiB, keysPerWriter: 32 }),
});

/** The `--quick` profile: the same shapes, smaller, so that a run proves the benchmark works. */
export const QUICK_SHAPES: Readonly<Record<RowId, Readonly<RowShape>>> = Object.freeze({
  single: Object.freeze({ id: 'single', writers: 1, keySizeBytes: 64 * MiB, keysPerWriter: 1 }),
  parallel: Object.freeze({ id: 'parallel', writers: 16, keySizeBytes: 4 * MiB, keysPerWriter: 1 }),
  'small-files': Object.freeze({ id: 'small-files', writers: 16, keySizeBytes: 64 * KiB, keysPerWriter: 8 }),
});

const DEFAULT_WARMUP: Readonly<RowShape> = Object.freeze({
  id: 'parallel',
  writers: 16,
  keySizeBytes: 4 * MiB,
  keysPerWriter: 1,
});
const QUICK_WARMUP: Readonly<RowShape> = Object.freeze({
  id: 'parallel',
  writers: 4,
  keySizeBytes: 4 * MiB,
  keysPerWriter: 1,
});

export const DEFAULT_PASSES = 5;
export const QUICK_PASSES = 2;

export const OZONE_WRITE_FLAGS = {
  cluster: {
    type: 'string',
    value: '<kind>',
    description:
      "embedded (fastpath's mini cluster in its own process, fastpath only; default) or real (Apache Ozone MiniOzoneCluster, with Ozone's Java client beside fastpath's)",
  },
  rows: { type: 'string', value: '<list>', description: `rows (default ${ROW_IDS.join(',')})` },
  passes: {
    type: 'string',
    value: '<n>',
    description: `measured passes; medians and min-max over them (default ${DEFAULT_PASSES}; --quick ${QUICK_PASSES})`,
  },
  'write-size': {
    type: 'string',
    value: '<size>',
    description: 'bytes per write call on the output stream, both clients (default 1MiB)',
  },
  'single-size': {
    type: 'string',
    value: '<size>',
    description: 'key size of the 1-writer row (default 256MiB; --quick 64MiB)',
  },
  'parallel-size': {
    type: 'string',
    value: '<size>',
    description: 'key size of the 16-writer row (default 16MiB; --quick 4MiB)',
  },
  'small-files': {
    type: 'string',
    value: '<n>',
    description: 'keys per writer in the 64 KiB row (default 32; --quick 8)',
  },
  'no-warmup': { type: 'boolean', description: 'skip the unmeasured warm-up pass of each client' },
  'no-java': { type: 'boolean', description: "with --cluster real: fastpath only, no Ozone's Java client" },
  'no-cross-read': {
    type: 'boolean',
    description: "with --cluster real: skip Ozone's Java client reading back the keys fastpath wrote",
  },
  profile: {
    type: 'boolean',
    description:
      "after the passes, one more pass of fastpath's writer per row under the CPU profiler, not measured: profiles/<row>-fastpath.cpuprofile",
  },
} as const;

/** Parses the scenario's flags; bad or unknown flags throw `BenchmarkUsageError`. */
export function parseOzoneWriteFlags(args: readonly string[], quick: boolean): OzoneWriteSettings {
  const name = 'ozone-write';
  const f = parseScenarioFlags(name, args, OZONE_WRITE_FLAGS);
  const base = quick ? QUICK_SHAPES : DEFAULT_SHAPES;
  const kind = clusterFlag(name, f.cluster, 'embedded');
  if (kind !== 'real' && (f['no-java'] || f['no-cross-read']))
    throw new BenchmarkUsageError(
      `${name}: --no-java and --no-cross-read go with --cluster real (the embedded run is fastpath's alone)`,
    );
  const shapes: Record<RowId, RowShape> = {
    single: {
      ...base.single,
      keySizeBytes: sizeFlag(name, 'single-size', f['single-size'], base.single.keySizeBytes, {
        min: 1,
        max: 4096 * MiB,
      }),
    },
    parallel: {
      ...base.parallel,
      keySizeBytes: sizeFlag(name, 'parallel-size', f['parallel-size'], base.parallel.keySizeBytes, {
        min: 1,
        max: 1024 * MiB,
      }),
    },
    'small-files': {
      ...base['small-files'],
      keysPerWriter: integerFlag(name, 'small-files', f['small-files'], base['small-files'].keysPerWriter, {
        min: 1,
        max: 10_000,
      }),
    },
  };
  const java = kind === 'real' && !f['no-java'];
  return {
    cluster: kind,
    rows: listFlag(name, 'rows', f.rows, ROW_IDS, ROW_IDS),
    shapes,
    passes: integerFlag(name, 'passes', f.passes, quick ? QUICK_PASSES : DEFAULT_PASSES, {
      min: 1,
      max: 100,
    }),
    writeBytes: sizeFlag(name, 'write-size', f['write-size'], MiB, { min: 1, max: 64 * MiB }),
    java,
    crossRead: java && !f['no-cross-read'],
    warmup: f['no-warmup'] ? null : { ...(quick ? QUICK_WARMUP : DEFAULT_WARMUP) },
    replication: 'THREE',
    datanodes: 3,
    profile: f.profile === true,
  };
}

/** Keys one client writes in one pass of a row. */
export function keysPerPass(shape: RowShape): number {
  return shape.writers * shape.keysPerWriter;
}

/** The row's label in tables: `16 writers × 16 MiB`, with the keys per writer when more than one. */
export function rowLabel(shape: RowShape): string {
  const size = formatBytes(shape.keySizeBytes);
  const writers = `${shape.writers} writer${shape.writers === 1 ? '' : 's'}`;
  return shape.keysPerWriter === 1
    ? `${writers} × ${size}`
    : `${writers} × ${shape.keysPerWriter} keys × ${size}`;
}

/** Bytes as the largest binary unit that divides them: `256 MiB`, `64 KiB`, `1000 B`. */
export function formatBytes(bytes: number): string {
  for (const [unit, size] of [
    ['GiB', 1024 * MiB],
    ['MiB', MiB],
    ['KiB', KiB],
  ] as const)
    if (bytes >= size && bytes % size === 0) return `${bytes / size} ${unit}`;
  return `${bytes} B`;
}

// Rough pace on the 2-core machine kind with three replicas, for the progress ETA and the plan of
// `all`: writing at about 10 MB/s, reading back at about three times that, ~15 ms per key besides.
const WRITE_BYTES_PER_MS = 10_000;
const READ_BACK_SHARE = 0.4;
const MS_PER_KEY = 15;

/** About how long one client's pass of `shape` takes, write and read-back, in ms. */
export function estimatePassMs(shape: RowShape): number {
  const keys = keysPerPass(shape);
  return ((keys * shape.keySizeBytes) / WRITE_BYTES_PER_MS) * (1 + READ_BACK_SHARE) + keys * MS_PER_KEY;
}

/** About how long a whole run takes, cluster start included, in ms. */
export function estimateRunMs(s: OzoneWriteSettings): number {
  const clients = s.java ? 2 : 1;
  const perPass = s.rows.reduce((ms, id) => ms + estimatePassMs(s.shapes[id]), 0);
  const warmup = s.warmup ? estimatePassMs(s.warmup) : 0;
  const setup = s.cluster === 'real' ? 90_000 : 10_000;
  return setup + clients * (warmup + s.passes * perPass) + (s.profile ? perPass : 0);
}
