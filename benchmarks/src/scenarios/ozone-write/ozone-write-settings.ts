import { BenchmarkUsageError, integerFlag, listFlag, parseScenarioFlags } from '../../harness/index.js';
import { DEFAULT_OZONE_CLIENT_CONFIG } from '@fastpath/ozone-fs-client';
import { RAFT_GRPC_TRANSPORTS, type RaftGrpcTransport } from '@fastpath/ratis-client';
import { clusterFlag, sizeFlag, type ClusterKind } from '../ozone-read/ozone-read-settings.js';
import { clientPropertiesFlag, clientPropertyFlag } from '../ozone-read/client-property-flag.js';

/** The rows of the table: one shape of key writes each, named by what they stand for. */
export const ROW_IDS = [
  'single',
  'parallel',
  'small-files',
  'ec-rs-3-2',
  'ec-rs-3-2-single',
  'stream',
  'stream-single',
] as const;
export type RowId = (typeof ROW_IDS)[number];

/** The rows run when `--rows` is not given: issue 27's, RATIS/THREE on 3 datanodes. */
export const DEFAULT_ROW_IDS = Object.freeze(['single', 'parallel', 'small-files'] as const);

/**
 * The erasure-coded rows, asked for by name only: they need d + p = 5 datanodes, which the cluster
 * then gets, and a default run with them would change the cluster under every recorded row.
 */
export const EC_ROW_IDS = Object.freeze(['ec-rs-3-2', 'ec-rs-3-2-single'] as const);

/**
 * The streamed rows, asked for by name only: the 16-writer and 1-writer shapes written with Ratis
 * streaming (fastpath with `ozone.fs.datastream.enabled`, Java with `createStreamKey`), on
 * datanodes that serve Ratis DataStream, which the cluster then runs.
 */
export const STREAM_ROW_IDS = Object.freeze(['stream', 'stream-single'] as const);

/** The EC rows' replication, in Ozone's text form: RS, 3 data + 2 parity cells of 1 MiB. */
export const EC_REPLICATION = 'rs-3-2-1024k';

/** What a row's keys are written as: RATIS/THREE, or erasure-coded. */
export type WriteReplication = 'THREE' | typeof EC_REPLICATION;

/** Datanodes a replication needs: 3 for RATIS/THREE, d + p for rs-3-2. */
const DATANODES: Readonly<Record<WriteReplication, number>> = Object.freeze({
  THREE: 3,
  [EC_REPLICATION]: 5,
});

/** One row's writes in one pass: `writers` concurrent writers, each writing `keysPerWriter` keys in turn. */
export interface RowShape {
  id: RowId;
  writers: number;
  keySizeBytes: number;
  keysPerWriter: number;
  /** Both clients write the row's keys as this. */
  replication: WriteReplication;
  /** Both clients stream the row's keys (Ratis DataStream) rather than write them through the Raft log. */
  dataStream: boolean;
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
  /**
   * Unmeasured passes per client before the first measured one (JIT, connections, pipelines): one
   * per replication the rows use (RATIS/THREE, rs-3-2-1024k), none with `--no-warmup`.
   */
  warmups: RowShape[];
  /** The cluster's datanodes serve Ratis DataStream: a streamed row is asked for. */
  dataStream: boolean;
  /** Datanodes of the cluster: 3, or 5 when an EC row (rs-3-2) is asked for. */
  datanodes: number;
  /** After the passes, one more fastpath pass per row under the CPU profiler (not measured). */
  profile: boolean;
  /** fastpath's Ratis streams' session (`ozone.client.ratis.grpc.channel`); undefined: the client's default. */
  ratisGrpcChannel: RaftGrpcTransport | undefined;
  /**
   * Client properties set on fastpath's clients after the scenario's own (`--client-property`),
   * such as a deeper write buffer to measure against the defaults; empty by default.
   */
  clientProperties: Record<string, string>;
}

const KiB = 1024;
const MiB = 1024 * KiB;

/**
 * Issue 27's rows: 1 writer × 256 MiB, 16 writers × 16 MiB, 16 writers × 64 KiB files; the EC rows
 * are the first two shapes again, rs-3-2-1024k.
 */
export const DEFAULT_SHAPES: Readonly<Record<RowId, Readonly<RowShape>>> = Object.freeze({
  single: Object.freeze({
    id: 'single',
    writers: 1,
    keySizeBytes: 256 * MiB,
    keysPerWriter: 1,
    replication: 'THREE',
    dataStream: false,
  }),
  parallel: Object.freeze({
    id: 'parallel',
    writers: 16,
    keySizeBytes: 16 * MiB,
    keysPerWriter: 1,
    replication: 'THREE',
    dataStream: false,
  }),
  'small-files': Object.freeze({
    id: 'small-files',
    writers: 16,
    keySizeBytes: 64 * KiB,
    keysPerWriter: 32,
    replication: 'THREE',
    dataStream: false,
  }),
  'ec-rs-3-2': Object.freeze({
    id: 'ec-rs-3-2',
    writers: 16,
    keySizeBytes: 16 * MiB,
    keysPerWriter: 1,
    replication: EC_REPLICATION,
    dataStream: false,
  }),
  'ec-rs-3-2-single': Object.freeze({
    id: 'ec-rs-3-2-single',
    writers: 1,
    keySizeBytes: 256 * MiB,
    keysPerWriter: 1,
    replication: EC_REPLICATION,
    dataStream: false,
  }),
  stream: Object.freeze({
    id: 'stream',
    writers: 16,
    keySizeBytes: 16 * MiB,
    keysPerWriter: 1,
    replication: 'THREE',
    dataStream: true,
  }),
  'stream-single': Object.freeze({
    id: 'stream-single',
    writers: 1,
    keySizeBytes: 256 * MiB,
    keysPerWriter: 1,
    replication: 'THREE',
    dataStream: true,
  }),
});

/** The `--quick` profile: the same shapes, smaller, so that a run proves the benchmark works. */
export const QUICK_SHAPES: Readonly<Record<RowId, Readonly<RowShape>>> = Object.freeze({
  single: Object.freeze({
    id: 'single',
    writers: 1,
    keySizeBytes: 64 * MiB,
    keysPerWriter: 1,
    replication: 'THREE',
    dataStream: false,
  }),
  parallel: Object.freeze({
    id: 'parallel',
    writers: 16,
    keySizeBytes: 4 * MiB,
    keysPerWriter: 1,
    replication: 'THREE',
    dataStream: false,
  }),
  'small-files': Object.freeze({
    id: 'small-files',
    writers: 16,
    keySizeBytes: 64 * KiB,
    keysPerWriter: 8,
    replication: 'THREE',
    dataStream: false,
  }),
  'ec-rs-3-2': Object.freeze({
    id: 'ec-rs-3-2',
    writers: 16,
    keySizeBytes: 4 * MiB,
    keysPerWriter: 1,
    replication: EC_REPLICATION,
    dataStream: false,
  }),
  'ec-rs-3-2-single': Object.freeze({
    id: 'ec-rs-3-2-single',
    writers: 1,
    keySizeBytes: 64 * MiB,
    keysPerWriter: 1,
    replication: EC_REPLICATION,
    dataStream: false,
  }),
  stream: Object.freeze({
    id: 'stream',
    writers: 16,
    keySizeBytes: 4 * MiB,
    keysPerWriter: 1,
    replication: 'THREE',
    dataStream: true,
  }),
  'stream-single': Object.freeze({
    id: 'stream-single',
    writers: 1,
    keySizeBytes: 64 * MiB,
    keysPerWriter: 1,
    replication: 'THREE',
    dataStream: true,
  }),
});

const DEFAULT_WARMUP: Readonly<RowShape> = Object.freeze({
  id: 'parallel',
  writers: 16,
  keySizeBytes: 4 * MiB,
  keysPerWriter: 1,
  replication: 'THREE',
  dataStream: false,
});
const QUICK_WARMUP: Readonly<RowShape> = Object.freeze({
  id: 'parallel',
  writers: 4,
  keySizeBytes: 4 * MiB,
  keysPerWriter: 1,
  replication: 'THREE',
  dataStream: false,
});

/**
 * The warm-up passes the rows need: the warm-up shape once per replication they use, RATIS first,
 * and once streamed when a streamed row runs (its connections and pipelines are its own).
 */
export function warmupsFor(rows: readonly RowId[], quick: boolean): RowShape[] {
  const base = quick ? QUICK_WARMUP : DEFAULT_WARMUP;
  const used = new Set(
    rows.filter((id) => !DEFAULT_SHAPES[id].dataStream).map((id) => DEFAULT_SHAPES[id].replication),
  );
  const streamed = rows.some((id) => DEFAULT_SHAPES[id].dataStream);
  return [
    ...(['THREE', EC_REPLICATION] as const).flatMap((replication) =>
      used.has(replication)
        ? [{ ...base, id: replication === 'THREE' ? base.id : ('ec-rs-3-2' as const), replication }]
        : [],
    ),
    ...(streamed ? [{ ...base, id: 'stream' as const, dataStream: true }] : []),
  ];
}

/** Datanodes the rows need: the most any row's replication does. */
export function datanodesFor(rows: readonly RowId[]): number {
  return Math.max(3, ...rows.map((id) => DATANODES[DEFAULT_SHAPES[id].replication]));
}

export const DEFAULT_PASSES = 5;
export const QUICK_PASSES = 2;

export const OZONE_WRITE_FLAGS = {
  cluster: {
    type: 'string',
    value: '<kind>',
    description:
      "embedded (fastpath's mini cluster in its own process, fastpath only; default) or real (Apache Ozone MiniOzoneCluster, with Ozone's Java client beside fastpath's)",
  },
  rows: {
    type: 'string',
    value: '<list>',
    description:
      `rows (default ${DEFAULT_ROW_IDS.join(',')}); also ${EC_ROW_IDS.join(',')}: ` +
      `the 16-writer and 1-writer shapes as ${EC_REPLICATION} keys (the cluster gets 5 datanodes); ` +
      `${STREAM_ROW_IDS.join(',')}: the same shapes streamed (Ratis DataStream; the datanodes serve it)`,
  },
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
    description: 'key size of the 1-writer rows (default 256MiB; --quick 64MiB)',
  },
  'parallel-size': {
    type: 'string',
    value: '<size>',
    description: 'key size of the 16-writer rows (default 16MiB; --quick 4MiB)',
  },
  'small-files': {
    type: 'string',
    value: '<n>',
    description: 'keys per writer in the 64 KiB row (default 32; --quick 8)',
  },
  'no-warmup': { type: 'boolean', description: 'skip the unmeasured warm-up pass of each client' },
  'ratis-grpc-channel': {
    type: 'string',
    value: '<session>',
    description: `the HTTP/2 session fastpath's Ratis streams take (ozone.client.ratis.grpc.channel): ${RAFT_GRPC_TRANSPORTS.join(', ')} (default: the client's, ${DEFAULT_OZONE_CLIENT_CONFIG.ratisGrpcChannel})`,
  },
  'client-property': clientPropertyFlag('ozone.client.stream.buffer.max.size=128MB'),
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
  const singleBytes = sizeFlag(name, 'single-size', f['single-size'], base.single.keySizeBytes, {
    min: 1,
    max: 4096 * MiB,
  });
  const parallelBytes = sizeFlag(name, 'parallel-size', f['parallel-size'], base.parallel.keySizeBytes, {
    min: 1,
    max: 1024 * MiB,
  });
  // Each EC row and streamed row is its replicated twin's shape, so that the two read side by side.
  const shapes: Record<RowId, RowShape> = {
    single: { ...base.single, keySizeBytes: singleBytes },
    parallel: { ...base.parallel, keySizeBytes: parallelBytes },
    'small-files': {
      ...base['small-files'],
      keysPerWriter: integerFlag(name, 'small-files', f['small-files'], base['small-files'].keysPerWriter, {
        min: 1,
        max: 10_000,
      }),
    },
    'ec-rs-3-2': { ...base['ec-rs-3-2'], keySizeBytes: parallelBytes },
    'ec-rs-3-2-single': { ...base['ec-rs-3-2-single'], keySizeBytes: singleBytes },
    stream: { ...base.stream, keySizeBytes: parallelBytes },
    'stream-single': { ...base['stream-single'], keySizeBytes: singleBytes },
  };
  const java = kind === 'real' && !f['no-java'];
  const rows = listFlag(name, 'rows', f.rows, DEFAULT_ROW_IDS, ROW_IDS);
  return {
    cluster: kind,
    rows,
    shapes,
    passes: integerFlag(name, 'passes', f.passes, quick ? QUICK_PASSES : DEFAULT_PASSES, {
      min: 1,
      max: 100,
    }),
    writeBytes: sizeFlag(name, 'write-size', f['write-size'], MiB, { min: 1, max: 64 * MiB }),
    java,
    crossRead: java && !f['no-cross-read'],
    warmups: f['no-warmup'] ? [] : warmupsFor(rows, quick),
    // An EC row needs d + p datanodes; the cluster gets them rather than the row being refused.
    datanodes: datanodesFor(rows),
    dataStream: rows.some((id) => shapes[id].dataStream),
    profile: f.profile === true,
    ratisGrpcChannel:
      f['ratis-grpc-channel'] === undefined
        ? undefined
        : listFlag(name, 'ratis-grpc-channel', f['ratis-grpc-channel'], [], RAFT_GRPC_TRANSPORTS)[0],
    clientProperties: clientPropertiesFlag(name, f['client-property']),
  };
}

/** Keys one client writes in one pass of a row. */
export function keysPerPass(shape: RowShape): number {
  return shape.writers * shape.keysPerWriter;
}

/**
 * The row's label in tables: `16 writers × 16 MiB`, with the keys per writer when more than one,
 * a streamed row's `streamed`, and an EC row's replication (`16 writers × 16 MiB, rs-3-2-1024k`).
 */
export function rowLabel(shape: RowShape): string {
  const size = formatBytes(shape.keySizeBytes);
  const writers = `${shape.writers} writer${shape.writers === 1 ? '' : 's'}`;
  const keys =
    shape.keysPerWriter === 1 ? `${writers} × ${size}` : `${writers} × ${shape.keysPerWriter} keys × ${size}`;
  const how = shape.dataStream ? `${keys}, streamed` : keys;
  return shape.replication === 'THREE' ? how : `${how}, ${shape.replication}`;
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
  const warmup = s.warmups.reduce((ms, w) => ms + estimatePassMs(w), 0);
  const setup = s.cluster === 'real' ? 90_000 : 10_000;
  return setup + clients * (warmup + s.passes * perPass) + (s.profile ? perPass : 0);
}
