import { BenchmarkUsageError, integerFlag, listFlag, parseScenarioFlags } from '../../harness/index.js';
import { secondsFlagMs } from '../../harness/mixed-load/mixed-load-flags.js';
import { MAX_READ_WORKER_THREADS, type DatanodeTransport } from '@fastpath/ozone-fs-client';
import {
  datanodesFor,
  EC_ROW_IDS,
  READ_MODES,
  READ_ROWS,
  ROW_IDS,
  SEQUENTIAL_ROW_IDS,
  SOURCE_ROW_IDS,
  type ReadMode,
  type RowId,
} from './ozone-read-cases.js';
import { clientPropertiesFlag, clientPropertyFlag } from './client-property-flag.js';
import { SECURITY_FLAG, securityFlag, type SecurityLevel } from './security-levels.js';

/** fastpath's datanode transports; the first is the client's default, the row the goals read. */
export const TRANSPORTS: readonly DatanodeTransport[] = [
  'socket-stream-pool',
  'http2-stream-pool',
  'stream-pool',
  'call-per-request',
];

export const CLUSTER_KINDS = ['embedded', 'real'] as const;
export type ClusterKind = (typeof CLUSTER_KINDS)[number];

export interface OzoneReadSettings {
  cluster: ClusterKind;
  /** Datanodes of the cluster: 3, or 5 when an EC row (rs-3-2) is asked for (`datanodesFor`). */
  datanodes: number;
  files: number;
  fileSizeBytes: number;
  readBytes: number;
  /** The sequential rows: bytes per cursor read (`read(buf)`) of a whole-file read. */
  seqReadBytes: number;
  readers: number;
  warmupMs: number;
  measureMs: number;
  rounds: number;
  rows: RowId[];
  /** Also measure the 64 KiB-aligned offsets (verify on and off per instance). */
  aligned: boolean;
  /** With `--cluster real`: Ozone's own Java client on the same files, beside fastpath's. */
  java: boolean;
  /**
   * With `--cluster real`: `@aws-sdk/client-s3` ranged GETs through Ozone's S3 gateway (in the
   * cluster's JVM) on the same files and offsets, beside fastpath's and Java's rows.
   */
  s3: boolean;
  /** Compare every `checkEvery`-th read of each reader with the known content (1: every read), gRPC rows. */
  checkEvery: number;
  /**
   * The same for short-circuit rows. A short-circuit read with verification off costs the reader
   * about 55 µs of CPU and the compare about 7 µs (measured here), so checking every one would
   * move their rate by ~13%: they check a 1-in-16 sample (under 1%).
   */
  checkEveryShortCircuit: number;
  seed: number;
  /** Bound on one read, in ms (a read that takes longer is an error). */
  readTimeoutMs: number;
  /** fastpath's datanode transports, a row each on the gRPC rows (`ozone.client.datanode.transport`). */
  transports: DatanodeTransport[];
  /** Profile fastpath's reader in a window of its own after each case's first measured window. */
  profile: boolean;
  /**
   * Counts of fastpath's read worker threads (`ozone.client.read.worker.threads`): a row each
   * above 0 on the gRPC rows, with the first transport (0 is the transport rows themselves).
   */
  readWorkers: number[];
  /** CPUs fastpath's reader process (all its threads) is pinned to (`taskset -a -c`), e.g. "0"; none: every CPU. */
  readerCpus: string | undefined;
  /**
   * `ozone.client.datanode.http2.max.frame.size` for fastpath's own HTTP/2 sessions
   * (`socket-stream-pool`, `http2-stream-pool`): the largest DATA frame the datanodes may send.
   * The first applies to every fastpath case; each further size adds fastpath's positional gRPC
   * rows on those transports and its sequential rows once more, marked with the size (empty: the
   * client's default, 1 MiB).
   */
  http2MaxFrameBytes: number[];
  /**
   * Client properties set on every fastpath case after the scenario's own (`--client-property`),
   * e.g. `ozone.client.read.chunk.readahead=0` for a run with Ozone's ReadChunk sizes.
   */
  clientProperties: Record<string, string>;
  /**
   * How the gRPC rows read: `readchunk` (the rows above), `readblock` (fastpath's and Java's gRPC
   * rows once more with `ozone.client.stream.readblock.enable=true`).
   */
  readModes: ReadMode[];
  /**
   * With `--cluster real`: the security levels, a cluster each, in this order; fastpath's and
   * Java's rows at each (the S3 gateway's on the unsecured one only: it refuses to start secure).
   */
  security: SecurityLevel[];
}

const MiB = 1024 * 1024;

/** The source's setting (HDDS-16783, "Expected gain"). */
export const DEFAULT_OZONE_READ_SETTINGS: Readonly<OzoneReadSettings> = Object.freeze<OzoneReadSettings>({
  cluster: 'embedded',
  datanodes: 3,
  files: 16,
  fileSizeBytes: 64 * MiB,
  readBytes: 64 * 1024,
  seqReadBytes: MiB,
  readers: 16,
  warmupMs: 3000,
  measureMs: 8000,
  rounds: 3,
  rows: [...SOURCE_ROW_IDS],
  aligned: true,
  java: true,
  s3: true,
  checkEvery: 1,
  checkEveryShortCircuit: 16,
  seed: 1,
  readTimeoutMs: 30_000,
  transports: [...TRANSPORTS],
  profile: true,
  readWorkers: [0, 2],
  readerCpus: undefined,
  http2MaxFrameBytes: [],
  clientProperties: {},
  readModes: [...READ_MODES],
  security: ['none'],
});

const QUICK = Object.freeze({ files: 4, fileSizeBytes: 8 * MiB, warmupMs: 1000, measureMs: 2000, rounds: 1 });

export const OZONE_READ_FLAGS = {
  cluster: {
    type: 'string',
    value: '<kind>',
    description:
      'embedded (the mini cluster in its own process, default) or real (Apache Ozone MiniOzoneCluster, gRPC rows, with the Java anchor)',
  },
  files: {
    type: 'string',
    value: '<n>',
    description: 'files per bytes-per-checksum setting (default 16; --quick 4)',
  },
  'file-size': {
    type: 'string',
    value: '<size>',
    description: 'size of each file, e.g. 64MiB, 8MiB (default 64MiB; --quick 8MiB)',
  },
  'read-size': { type: 'string', value: '<size>', description: 'bytes per positional read (default 64KiB)' },
  'seq-read-size': {
    type: 'string',
    value: '<size>',
    description: 'the sequential rows: bytes per cursor read of a whole-file read (default 1MiB)',
  },
  readers: {
    type: 'string',
    value: '<n>',
    description: 'concurrent readers sharing the streams (default 16)',
  },
  warmup: { type: 'string', value: '<s>', description: 'warm-up per case in seconds (default 3; --quick 1)' },
  measure: {
    type: 'string',
    value: '<s>',
    description: 'measured window per case in seconds (default 8; --quick 2)',
  },
  rounds: {
    type: 'string',
    value: '<n>',
    description: 'rounds; medians and min-max over them (default 3; --quick 1)',
  },
  rows: {
    type: 'string',
    value: '<list>',
    description:
      `rows (default ${SOURCE_ROW_IDS.join(',')}; real: the grpc ones); also ${EC_ROW_IDS.join(',')}: ` +
      'rs-3-2-1024k files healthy and with a datanode holding a data replica of every file stopped (the cluster gets 5 datanodes); ' +
      `also ${SEQUENTIAL_ROW_IDS.join(',')}: whole files read start to end by 1 and by 16 readers (the 16 KiB files)`,
  },
  'no-aligned': { type: 'boolean', description: 'skip the 64 KiB-aligned cases' },
  'no-java': { type: 'boolean', description: 'with --cluster real: skip the Java anchor' },
  'no-s3': {
    type: 'boolean',
    description:
      "with --cluster real: skip the S3 gateway row (@aws-sdk/client-s3 through Ozone's S3 gateway)",
  },
  'check-every': {
    type: 'string',
    value: '<n>',
    description: 'gRPC rows: compare every n-th read with the known content (default 1: every read)',
  },
  'check-every-sc': {
    type: 'string',
    value: '<n>',
    description: 'short-circuit rows: compare every n-th read with the known content (default 16)',
  },
  seed: { type: 'string', value: '<n>', description: 'seed of the read offsets (default 1)' },
  transports: {
    type: 'string',
    value: '<list>',
    description: `fastpath's datanode transports, a row each on the gRPC rows (default ${TRANSPORTS.join(',')})`,
  },
  'no-profile': {
    type: 'boolean',
    description: "skip the CPU profile of fastpath's reader (a window of its own per case, first round)",
  },
  'read-workers': {
    type: 'string',
    value: '<list>',
    description:
      "counts of fastpath's read worker threads (ozone.client.read.worker.threads), a row each above 0 on the gRPC rows (default 0,2)",
  },
  'reader-cpus': {
    type: 'string',
    value: '<list>',
    description:
      "pin fastpath's reader process to these CPUs (taskset -a -c), e.g. 0 for one core (default: every CPU)",
  },
  'read-modes': {
    type: 'string',
    value: '<list>',
    description: `how the gRPC rows read: ReadChunk, and/or streaming ReadBlock (ozone.client.stream.readblock.enable) for fastpath and Java (default ${READ_MODES.join(',')})`,
  },
  'h2-frame-size': {
    type: 'string',
    value: '<list>',
    description:
      "fastpath's own HTTP/2 sessions (socket-stream-pool, http2-stream-pool): the largest HTTP/2 DATA frame the datanodes may send, 16KiB to 16777215 bytes; the first for every case, each further size a row of its own on those transports' positional rows and on the sequential rows (default: the client's, 1MiB)",
  },
  'client-property': clientPropertyFlag('ozone.client.read.chunk.readahead=0'),
  security: SECURITY_FLAG,
} as const;

const SIZE_UNITS: Record<string, number> = {
  '': 1,
  B: 1,
  KIB: 1024,
  KB: 1024,
  K: 1024,
  MIB: MiB,
  MB: MiB,
  M: MiB,
  GIB: 1024 * MiB,
  GB: 1024 * MiB,
  G: 1024 * MiB,
};

/** `--cluster`: exactly one of CLUSTER_KINDS, `fallback` when not given (the Ozone scenarios share it). */
export function clusterFlag(scenario: string, raw: string | undefined, fallback: ClusterKind): ClusterKind {
  const cluster = listFlag(scenario, 'cluster', raw, [fallback], CLUSTER_KINDS);
  if (cluster.length !== 1)
    throw new BenchmarkUsageError(`${scenario}: --cluster takes one of ${CLUSTER_KINDS.join(', ')}`);
  return cluster[0]!;
}

/** A size flag: bytes, or a number with KiB/MiB/GiB (KB/MB/GB and K/M/G read as binary too). */
export function sizeFlag(
  scenario: string,
  name: string,
  raw: string | undefined,
  fallback: number,
  range: { min: number; max: number },
): number {
  if (raw === undefined) return fallback;
  const m = /^\s*(\d+)\s*([a-zA-Z]*)\s*$/.exec(raw);
  const unit = m ? SIZE_UNITS[(m[2] ?? '').toUpperCase()] : undefined;
  const value = m && unit !== undefined ? Number(m[1]) * unit : NaN;
  if (!Number.isSafeInteger(value) || value < range.min || value > range.max)
    throw new BenchmarkUsageError(
      `${scenario}: --${name} must be a size from ${range.min} to ${range.max} bytes (e.g. 8MiB), got "${raw}"`,
    );
  return value;
}

/** A list of read worker thread counts, duplicates dropped, in the order given. */
function readWorkersFlag(scenario: string, raw: string | undefined, fallback: readonly number[]): number[] {
  if (raw === undefined) return [...fallback];
  const counts = raw
    .split(',')
    .map((item) => integerFlag(scenario, 'read-workers', item, 0, { min: 0, max: MAX_READ_WORKER_THREADS }));
  return [...new Set(counts)];
}

/** HTTP/2 frame sizes (SETTINGS_MAX_FRAME_SIZE's range), duplicates dropped, in the order given. */
function frameSizesFlag(scenario: string, raw: string | undefined): number[] {
  if (raw === undefined) return [];
  const sizes = raw
    .split(',')
    .map((item) => sizeFlag(scenario, 'h2-frame-size', item, 0, { min: 16 * 1024, max: 16 * MiB - 1 }));
  return [...new Set(sizes)];
}

/** A CPU list as taskset takes it ("0", "0,1", "0-1"). */
function cpuListFlag(scenario: string, raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+(-\d+)?(,\d+(-\d+)?)*$/.test(raw.trim()))
    throw new BenchmarkUsageError(
      `${scenario}: --reader-cpus takes a CPU list such as 0 or 0-1, got "${raw}"`,
    );
  return raw.trim();
}

export function parseOzoneReadFlags(args: readonly string[], quick: boolean): OzoneReadSettings {
  const name = 'ozone-read';
  const f = parseScenarioFlags(name, args, OZONE_READ_FLAGS);
  const base: OzoneReadSettings = quick
    ? {
        ...DEFAULT_OZONE_READ_SETTINGS,
        ...QUICK,
        rows: [...SOURCE_ROW_IDS],
        transports: [...TRANSPORTS],
        readWorkers: [...DEFAULT_OZONE_READ_SETTINGS.readWorkers],
        readModes: [...READ_MODES],
        security: ['none'],
      }
    : {
        ...DEFAULT_OZONE_READ_SETTINGS,
        rows: [...SOURCE_ROW_IDS],
        transports: [...TRANSPORTS],
        readWorkers: [...DEFAULT_OZONE_READ_SETTINGS.readWorkers],
        readModes: [...READ_MODES],
        security: ['none'],
      };
  const kind = clusterFlag(name, f.cluster, base.cluster);
  const defaultRows: RowId[] = kind === 'real' ? ['grpc-1m', 'grpc-16k'] : base.rows;
  const rows = listFlag(name, 'rows', f.rows, defaultRows, ROW_IDS);
  if (kind === 'real' && rows.some((r) => r.startsWith('sc-')))
    throw new BenchmarkUsageError(
      `${name}: --cluster real has no short-circuit rows: Ozone's datanodes need Hadoop's native libhadoop for them, which the Maven jars do not carry`,
    );
  const fileSizeBytes = sizeFlag(name, 'file-size', f['file-size'], base.fileSizeBytes, {
    min: 64 * 1024,
    max: 1024 * MiB,
  });
  const readBytes = sizeFlag(name, 'read-size', f['read-size'], base.readBytes, { min: 1, max: 16 * MiB });
  if (readBytes > fileSizeBytes)
    throw new BenchmarkUsageError(`${name}: --read-size must not exceed --file-size`);
  const seqReadBytes = sizeFlag(name, 'seq-read-size', f['seq-read-size'], base.seqReadBytes, {
    min: 1,
    max: 16 * MiB,
  });
  return {
    cluster: kind,
    // An EC row needs d + p datanodes; the cluster gets them rather than the flag being refused.
    datanodes: Math.max(base.datanodes, datanodesFor(rows)),
    files: integerFlag(name, 'files', f.files, base.files, { min: 1, max: 256 }),
    fileSizeBytes,
    readBytes,
    seqReadBytes,
    readers: integerFlag(name, 'readers', f.readers, base.readers, { min: 1, max: 1024 }),
    warmupMs: secondsFlagMs(name, 'warmup', f.warmup, base.warmupMs, { min: 0, max: 3600 }),
    measureMs: secondsFlagMs(name, 'measure', f.measure, base.measureMs, { min: 0.5, max: 3600 }),
    rounds: integerFlag(name, 'rounds', f.rounds, base.rounds, { min: 1, max: 100 }),
    rows,
    aligned: !f['no-aligned'],
    java: kind === 'real' && !f['no-java'],
    // The gateway reads the replicated positional gRPC rows only: not started for a run of EC or
    // sequential rows alone.
    s3:
      kind === 'real' &&
      !f['no-s3'] &&
      rows.some((r) => READ_ROWS[r].path === 'grpc' && !READ_ROWS[r].ec && !READ_ROWS[r].sequential),
    checkEvery: integerFlag(name, 'check-every', f['check-every'], base.checkEvery, {
      min: 1,
      max: 1_000_000,
    }),
    checkEveryShortCircuit: integerFlag(
      name,
      'check-every-sc',
      f['check-every-sc'],
      base.checkEveryShortCircuit,
      {
        min: 1,
        max: 1_000_000,
      },
    ),
    seed: integerFlag(name, 'seed', f.seed, base.seed, { min: 0, max: 2 ** 31 - 1 }),
    readTimeoutMs: base.readTimeoutMs,
    transports: listFlag(name, 'transports', f.transports, base.transports, TRANSPORTS),
    profile: !f['no-profile'],
    readWorkers: readWorkersFlag(name, f['read-workers'], base.readWorkers),
    readerCpus: cpuListFlag(name, f['reader-cpus']),
    readModes: listFlag(name, 'read-modes', f['read-modes'], base.readModes, READ_MODES),
    http2MaxFrameBytes: frameSizesFlag(name, f['h2-frame-size']),
    clientProperties: clientPropertiesFlag(name, f['client-property']),
    security: securityFlag(name, f.security, kind),
  };
}
