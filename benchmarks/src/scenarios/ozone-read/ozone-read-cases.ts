// The matrix of the source's table: rows are a read path and a bytes-per-checksum, columns how
// verification is set; plus the 64 KiB-aligned cases the report adds beside the byte-random ones,
// and fastpath's gRPC rows once per datanode transport (pooled long-lived streams, a call per request)
// and once per count of read worker threads; and fastpath's and Java's gRPC rows once more with
// streaming ReadBlock (`ozone.client.stream.readblock.enable`) when that mode is asked for. The
// erasure-coded rows read files of an EC layout, healthy and with a datanode holding one of
// their data replicas stopped. The sequential rows read whole files start to end, a stream per
// file read, by 1 reader and by 16.
import type { DatanodeTransport } from '@fastpath/ozone-fs-client';

/** The source's four rows: the default set. */
export const SOURCE_ROW_IDS = ['grpc-1m', 'grpc-16k', 'sc-1m', 'sc-16k'] as const;
/** The erasure-coded rows (asked for by name: they need d + p datanodes, see `datanodesFor`). */
export const EC_ROW_IDS = ['ec-rs-3-2', 'ec-rs-3-2-down'] as const;
/** The sequential whole-file rows (asked for by name: see the README for why not by default). */
export const SEQUENTIAL_ROW_IDS = ['seq-1', 'seq-16'] as const;
export const ROW_IDS = [...SOURCE_ROW_IDS, ...EC_ROW_IDS, ...SEQUENTIAL_ROW_IDS] as const;
export type RowId = (typeof ROW_IDS)[number];

export const COLUMN_IDS = ['on', 'off-global', 'off-instance'] as const;
export type ColumnId = (typeof COLUMN_IDS)[number];

export type ReadPath = 'grpc' | 'short-circuit';

/** An erasure-coded row's files and state. */
export interface EcRowLayout {
  /** Ozone's text form, as the writers take it. */
  replication: 'rs-3-2-1024k';
  dataUnits: number;
  parityUnits: number;
  /** The cell (`ecChunkSize`), bytes: each cell one chunk on its replica. */
  cellBytes: number;
  /**
   * The row runs with one datanode stopped, one that holds a data replica of every file (the
   * same replica index in each), from before its first case to after its last.
   */
  dataDatanodeDown: boolean;
}

export interface ReadRow {
  id: RowId;
  label: string;
  path: ReadPath;
  bytesPerChecksum: number;
  /** The source's figures (operations/s, verify on and off), copied as published; none for rows it has not. */
  source?: { on: number; off: number };
  /** Erasure-coded files (an EC row); absent: RATIS/THREE files. */
  ec?: EcRowLayout;
  /**
   * A sequential row: each of `readers` readers reads whole files start to end with cursor reads,
   * a stream of its own per file read; absent: positional reads on shared streams.
   */
  sequential?: { readers: number };
}

const MiB = 1024 * 1024;
const KiB = 1024;

const RS_3_2_1024K: EcRowLayout = Object.freeze({
  replication: 'rs-3-2-1024k',
  dataUnits: 3,
  parityUnits: 2,
  cellBytes: MiB,
  dataDatanodeDown: false,
});

export const READ_ROWS: Readonly<Record<RowId, ReadRow>> = Object.freeze({
  'grpc-1m': {
    id: 'grpc-1m',
    label: 'gRPC, 1 MiB bytes per checksum',
    path: 'grpc',
    bytesPerChecksum: MiB,
    source: { on: 6_100, off: 22_600 },
  },
  'grpc-16k': {
    id: 'grpc-16k',
    label: 'gRPC, 16 KiB bytes per checksum',
    path: 'grpc',
    bytesPerChecksum: 16 * KiB,
    source: { on: 22_100, off: 22_600 },
  },
  'sc-1m': {
    id: 'sc-1m',
    label: 'Short-circuit, 1 MiB bytes per checksum',
    path: 'short-circuit',
    bytesPerChecksum: MiB,
    source: { on: 38_500, off: 937_800 },
  },
  'sc-16k': {
    id: 'sc-16k',
    label: 'Short-circuit, 16 KiB bytes per checksum',
    path: 'short-circuit',
    bytesPerChecksum: 16 * KiB,
    source: { on: 534_900, off: 911_400 },
  },
  'ec-rs-3-2': {
    id: 'ec-rs-3-2',
    label: 'EC rs-3-2-1024k, 16 KiB bytes per checksum',
    path: 'grpc',
    bytesPerChecksum: 16 * KiB,
    ec: RS_3_2_1024K,
  },
  'ec-rs-3-2-down': {
    id: 'ec-rs-3-2-down',
    label: 'EC rs-3-2-1024k, 16 KiB bytes per checksum, a data datanode down',
    path: 'grpc',
    bytesPerChecksum: 16 * KiB,
    ec: { ...RS_3_2_1024K, dataDatanodeDown: true },
  },
  // The 16 KiB files (Ozone's default bytes per checksum) of the gRPC 16 KiB row: no files of their own.
  'seq-1': {
    id: 'seq-1',
    label: 'Sequential whole-file reads, 1 reader, 16 KiB bytes per checksum',
    path: 'grpc',
    bytesPerChecksum: 16 * KiB,
    sequential: { readers: 1 },
  },
  'seq-16': {
    id: 'seq-16',
    label: 'Sequential whole-file reads, 16 readers, 16 KiB bytes per checksum',
    path: 'grpc',
    bytesPerChecksum: 16 * KiB,
    sequential: { readers: 16 },
  },
});

/**
 * The file set a row reads, named as its bucket: a set per bytes-per-checksum setting of the
 * replicated rows (`bpc-1048576`), one per EC layout (`ec-rs-3-2-1024k`: healthy and degraded
 * rows read the same files).
 */
export function fileSetId(row: ReadRow): string {
  return row.ec ? `ec-${row.ec.replication}` : `bpc-${row.bytesPerChecksum}`;
}

/** Datanodes a cluster needs for `rows`: 3 (RATIS/THREE), or d + p for an EC row (5 for rs-3-2). */
export function datanodesFor(rows: readonly RowId[]): number {
  return Math.max(
    3,
    ...rows.map((r) => READ_ROWS[r].ec).map((ec) => (ec ? ec.dataUnits + ec.parityUnits : 0)),
  );
}

export interface ReadColumn {
  id: ColumnId;
  label: string;
  /** Whether reads verify checksums. */
  verify: boolean;
  /** How: the file system's configuration, or `setVerifyChecksum` on the instance. */
  how: 'configuration' | 'instance';
}

export const READ_COLUMNS: Readonly<Record<ColumnId, ReadColumn>> = Object.freeze({
  on: { id: 'on', label: 'verify on', verify: true, how: 'configuration' },
  'off-global': {
    id: 'off-global',
    label: 'off: ozone.client.verify.checksum=false',
    verify: false,
    how: 'configuration',
  },
  'off-instance': {
    id: 'off-instance',
    label: 'off: setVerifyChecksum(false)',
    verify: false,
    how: 'instance',
  },
});

/**
 * The reader that runs a case: fastpath's client, Ozone's own Java client (the anchor), or
 * `@aws-sdk/client-s3` through Ozone's S3 gateway (what a Node team would use without fastpath).
 */
export type ReaderKind = 'fastpath' | 'java' | 's3';

/** One measured case of a round. */
export interface ReadCase {
  id: string;
  reader: ReaderKind;
  row: ReadRow;
  column: ReadColumn;
  aligned: boolean;
  /** How fastpath's gRPC reads travel (`ozone.client.datanode.transport`); the first one listed for other cases. */
  transport: DatanodeTransport;
  /** fastpath's read worker threads (`ozone.client.read.worker.threads`); 0: reads on the reader's thread. */
  readWorkers: number;
  /**
   * Reads with streaming ReadBlock (`ozone.client.stream.readblock.enable=true`; fastpath's reads
   * streamed whatever their size), else with ReadChunk (the default of both clients).
   */
  readBlock: boolean;
  /**
   * fastpath's HTTP/2 frame size of this case when it is one of the run's further sizes
   * (`--h2-frame-size`'s second and later); absent: the run's first size (or the client's default).
   */
  frameBytes?: number;
}

/** How a gRPC row's reads reach the datanode: ReadChunk per chunk range, or one streaming ReadBlock. */
export const READ_MODES = ['readchunk', 'readblock'] as const;
export type ReadMode = (typeof READ_MODES)[number];

/** The columns measured in the 64 KiB-aligned variant of a row: enough for its off/on ratio. */
export const ALIGNED_COLUMNS: readonly ColumnId[] = ['on', 'off-instance'];

/**
 * The columns of the S3 gateway's rows: the gateway reads with its own Ozone client, configured
 * once when it starts (verification on, Ozone's default); a client has no switch for it.
 */
export const S3_COLUMNS: readonly ColumnId[] = ['on'];

/**
 * The columns of the erasure-coded rows: verification on and off. The per-instance switch is the
 * replicated rows' question (HDDS-16783); on EC files it would add a case per row and nothing new.
 */
export const EC_COLUMNS: readonly ColumnId[] = ['on', 'off-global'];

/**
 * The columns of the sequential rows: verification on and off by the configuration (a stream per
 * file read, so the per-instance switch would read like the global one and add nothing).
 */
export const SEQUENTIAL_COLUMNS: readonly ColumnId[] = ['on', 'off-global'];

/** The transport of fastpath's cases when none is named. */
export const DEFAULT_TRANSPORT: DatanodeTransport = 'socket-stream-pool';

/** Each transport's mark in case IDs and row keys, and in row labels (none for the default). */
export const TRANSPORT_MARKS: Readonly<Record<DatanodeTransport, { id: string; label: string }>> =
  Object.freeze({
    'socket-stream-pool': { id: '', label: '' },
    'http2-stream-pool': { id: 'http2', label: ", own HTTP/2 on Node's http2" },
    'stream-pool': { id: 'pool', label: ', grpc-js pooled streams' },
    'call-per-request': { id: 'calls', label: ', a grpc-js call per request' },
  });

/** The transports on fastpath's own HTTP/2 sessions, where `SETTINGS_MAX_FRAME_SIZE` is fastpath's to choose. */
export const OWN_SESSION_TRANSPORTS: readonly DatanodeTransport[] = [
  'socket-stream-pool',
  'http2-stream-pool',
];

/** A frame size's mark in case IDs and row keys: `f16k`, `f1m`, or the bytes (`f16777215`). */
export function frameMark(bytes: number): string {
  if (bytes % MiB === 0) return `f${bytes / MiB}m`;
  if (bytes % KiB === 0) return `f${bytes / KiB}k`;
  return `f${bytes}`;
}

/** A frame size as row labels give it: ", 16 KiB HTTP/2 frames". */
export function frameLabel(bytes: number): string {
  const size =
    bytes % MiB === 0
      ? `${bytes / MiB} MiB`
      : bytes % KiB === 0
        ? `${bytes / KiB} KiB`
        : `${bytes.toLocaleString('en-US')}-byte`;
  return `, ${size} HTTP/2 frames`;
}

export function caseId(
  reader: ReaderKind,
  row: RowId,
  column: ColumnId,
  aligned: boolean,
  transport: DatanodeTransport = DEFAULT_TRANSPORT,
  readWorkers = 0,
  readBlock = false,
  frameBytes?: number,
): string {
  const mark = TRANSPORT_MARKS[transport].id;
  const calls = reader === 'fastpath' && mark ? `-${mark}` : '';
  const workers = reader === 'fastpath' && readWorkers > 0 ? `-w${readWorkers}` : '';
  const frames = reader === 'fastpath' && frameBytes !== undefined ? `-${frameMark(frameBytes)}` : '';
  return `${reader === 'fastpath' ? '' : `${reader}-`}${row}-${column}${aligned ? '-aligned' : ''}${calls}${workers}${readBlock ? '-rb' : ''}${frames}`;
}

/**
 * Every case of one round, in a fixed order (rounds rotate it). fastpath's gRPC rows come once per
 * transport in `transports` (default: the client's default), on the reader's thread, and once per count
 * of read worker threads above 0 in `readWorkers` with the first transport; short-circuit and
 * aligned cases use the first transport on the reader's thread. With `readblock` in `readModes`,
 * fastpath's and Java's gRPC rows (random offsets) come once more reading with ReadBlock,
 * fastpath's on the first transport and the reader's thread. The EC rows are read by fastpath (the
 * first transport, the reader's thread, ReadChunk) and Java only, random offsets, `EC_COLUMNS`.
 * The sequential rows are read by fastpath (the first transport, the reader's thread) and Java
 * only, once per read mode in `readModes` (ReadChunk; streaming ReadBlock), `SEQUENTIAL_COLUMNS`.
 * Each size in `extraFrameSizes` (the run's HTTP/2 frame sizes after its first) adds fastpath's
 * random-offset gRPC ReadChunk rows on each own-session transport (`OWN_SESSION_TRANSPORTS`) in
 * `transports`, and its sequential rows, once more with that size.
 */
export function planCases(options: {
  rows: readonly RowId[];
  aligned: boolean;
  readers: readonly ReaderKind[];
  transports?: readonly DatanodeTransport[];
  readWorkers?: readonly number[];
  readModes?: readonly ReadMode[];
  extraFrameSizes?: readonly number[];
}): ReadCase[] {
  const transports = options.transports?.length ? options.transports : [DEFAULT_TRANSPORT];
  const first = transports[0] as DatanodeTransport;
  const modes = options.readModes?.length ? options.readModes : (['readchunk'] as const);
  const chunkRows = modes.includes('readchunk');
  const blockRow = modes.includes('readblock') ? [{ transport: first, readWorkers: 0, readBlock: true }] : [];
  const frameSizes = options.extraFrameSizes ?? [];
  const variants: Array<{
    transport: DatanodeTransport;
    readWorkers: number;
    readBlock: boolean;
    frameBytes?: number;
  }> = [
    ...(chunkRows
      ? [
          ...transports.map((transport) => ({ transport, readWorkers: 0, readBlock: false })),
          ...(options.readWorkers ?? [])
            .filter((n) => n > 0)
            .map((readWorkers) => ({ transport: first, readWorkers, readBlock: false })),
          ...frameSizes.flatMap((frameBytes) =>
            transports
              .filter((t) => OWN_SESSION_TRANSPORTS.includes(t))
              .map((transport) => ({ transport, readWorkers: 0, readBlock: false, frameBytes })),
          ),
        ]
      : []),
    ...blockRow,
  ];
  const cases: ReadCase[] = [];
  for (const rowId of options.rows) {
    const row = READ_ROWS[rowId];
    for (const reader of options.readers) {
      // Java and the S3 gateway read the gRPC rows only (short-circuit needs native Hadoop on the datanode).
      if (reader !== 'fastpath' && row.path !== 'grpc') continue;
      const plain = { transport: first, readWorkers: 0, readBlock: false };
      if (row.sequential) {
        // No S3 gateway row: its reader makes ranged GETs at offsets, not whole-file reads.
        if (reader === 's3') continue;
        const sizes = reader === 'fastpath' ? [undefined, ...frameSizes] : [undefined];
        for (const frameBytes of sizes)
          for (const readBlock of [...(chunkRows ? [false] : []), ...(blockRow.length ? [true] : [])])
            for (const columnId of SEQUENTIAL_COLUMNS)
              cases.push({
                id: caseId(reader, rowId, columnId, false, first, 0, readBlock, frameBytes),
                reader,
                row,
                column: READ_COLUMNS[columnId],
                aligned: false,
                ...plain,
                readBlock,
                ...(frameBytes !== undefined && { frameBytes }),
              });
        continue;
      }
      if (row.ec) {
        // The EC rows: the client's default path for fastpath and Java (no S3 gateway row).
        if (reader === 's3') continue;
        for (const columnId of EC_COLUMNS)
          cases.push({
            id: caseId(reader, rowId, columnId, false, first),
            reader,
            row,
            column: READ_COLUMNS[columnId],
            aligned: false,
            ...plain,
          });
        continue;
      }
      const own: typeof variants =
        reader === 'fastpath' && row.path === 'grpc'
          ? variants
          : reader === 'java'
            ? [...(chunkRows ? [plain] : []), ...blockRow]
            : [plain];
      for (const { transport, readWorkers, readBlock, frameBytes } of own)
        for (const columnId of reader === 's3' ? S3_COLUMNS : COLUMN_IDS)
          cases.push({
            id: caseId(reader, rowId, columnId, false, transport, readWorkers, readBlock, frameBytes),
            reader,
            row,
            column: READ_COLUMNS[columnId],
            aligned: false,
            transport,
            readWorkers,
            readBlock,
            ...(frameBytes !== undefined && { frameBytes }),
          });
      if (options.aligned && reader === 'fastpath' && chunkRows)
        for (const columnId of ALIGNED_COLUMNS)
          cases.push({
            id: caseId(reader, rowId, columnId, true, first),
            reader,
            row,
            column: READ_COLUMNS[columnId],
            aligned: true,
            transport: first,
            readWorkers: 0,
            readBlock: false,
          });
    }
  }
  return cases;
}

/** The case order of round `round`: rotated by the round, so no case always runs first or last. */
export function roundOrder<T>(items: readonly T[], round: number): T[] {
  const k = items.length ? round % items.length : 0;
  return [...items.slice(k), ...items.slice(0, k)];
}

/** One step of a round: a case alone, or the back-to-back cases of the rows run with a datanode down. */
export interface RoundUnit<T> {
  /** The cases run with the EC rows' datanode stopped (stopped before the first, started after the last). */
  down: boolean;
  items: T[];
}

/**
 * A round's cases in turn: each case alone, except the cases of the rows with a datanode down,
 * which run back to back as one unit where the first of them stands in `items`, so that the
 * datanode stops and starts once a round. The units rotate from round to round as the cases do
 * (`roundOrder`), and so do the cases within the down unit.
 */
export function roundUnits<T>(
  items: readonly T[],
  round: number,
  down: (item: T) => boolean,
): RoundUnit<T>[] {
  const units: RoundUnit<T>[] = [];
  let downUnit: RoundUnit<T> | undefined;
  for (const item of items) {
    if (!down(item)) {
      units.push({ down: false, items: [item] });
      continue;
    }
    if (!downUnit) {
      downUnit = { down: true, items: [] };
      units.push(downUnit);
    }
    downUnit.items.push(item);
  }
  return roundOrder(units, round).map((u) =>
    u.down ? { down: true, items: roundOrder(u.items, round) } : u,
  );
}
