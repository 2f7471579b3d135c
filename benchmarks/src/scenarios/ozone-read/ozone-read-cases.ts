// The matrix of the source's table: rows are a read path and a bytes-per-checksum, columns how
// verification is set; plus the 64 KiB-aligned cases the report adds beside the byte-random ones,
// and fastpath's gRPC rows once per datanode transport (pooled long-lived streams, a call per request)
// and once per count of read worker threads; and fastpath's and Java's gRPC rows once more with
// streaming ReadBlock (`ozone.client.stream.readblock.enable`) when that mode is asked for.
import type { DatanodeTransport } from '@fastpath/ozone-fs-client';

export const ROW_IDS = ['grpc-1m', 'grpc-16k', 'sc-1m', 'sc-16k'] as const;
export type RowId = (typeof ROW_IDS)[number];

export const COLUMN_IDS = ['on', 'off-global', 'off-instance'] as const;
export type ColumnId = (typeof COLUMN_IDS)[number];

export type ReadPath = 'grpc' | 'short-circuit';

export interface ReadRow {
  id: RowId;
  label: string;
  path: ReadPath;
  bytesPerChecksum: number;
  /** The source's figures (operations/s, verify on and off), copied as published. */
  source: { on: number; off: number };
}

const MiB = 1024 * 1024;
const KiB = 1024;

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
});

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

/** The transport of fastpath's cases when none is named. */
export const DEFAULT_TRANSPORT: DatanodeTransport = 'http2-stream-pool';

/** Each transport's mark in case IDs and row keys, and in row labels (none for the default). */
export const TRANSPORT_MARKS: Readonly<Record<DatanodeTransport, { id: string; label: string }>> =
  Object.freeze({
    'http2-stream-pool': { id: '', label: '' },
    'stream-pool': { id: 'pool', label: ', grpc-js pooled streams' },
    'call-per-request': { id: 'calls', label: ', a grpc-js call per request' },
  });

export function caseId(
  reader: ReaderKind,
  row: RowId,
  column: ColumnId,
  aligned: boolean,
  transport: DatanodeTransport = DEFAULT_TRANSPORT,
  readWorkers = 0,
  readBlock = false,
): string {
  const mark = TRANSPORT_MARKS[transport].id;
  const calls = reader === 'fastpath' && mark ? `-${mark}` : '';
  const workers = reader === 'fastpath' && readWorkers > 0 ? `-w${readWorkers}` : '';
  return `${reader === 'fastpath' ? '' : `${reader}-`}${row}-${column}${aligned ? '-aligned' : ''}${calls}${workers}${readBlock ? '-rb' : ''}`;
}

/**
 * Every case of one round, in a fixed order (rounds rotate it). fastpath's gRPC rows come once per
 * transport in `transports` (default: the client's default), on the reader's thread, and once per count
 * of read worker threads above 0 in `readWorkers` with the first transport; short-circuit and
 * aligned cases use the first transport on the reader's thread. With `readblock` in `readModes`,
 * fastpath's and Java's gRPC rows (random offsets) come once more reading with ReadBlock,
 * fastpath's on the first transport and the reader's thread.
 */
export function planCases(options: {
  rows: readonly RowId[];
  aligned: boolean;
  readers: readonly ReaderKind[];
  transports?: readonly DatanodeTransport[];
  readWorkers?: readonly number[];
  readModes?: readonly ReadMode[];
}): ReadCase[] {
  const transports = options.transports?.length ? options.transports : [DEFAULT_TRANSPORT];
  const first = transports[0] as DatanodeTransport;
  const modes = options.readModes?.length ? options.readModes : (['readchunk'] as const);
  const chunkRows = modes.includes('readchunk');
  const blockRow = modes.includes('readblock') ? [{ transport: first, readWorkers: 0, readBlock: true }] : [];
  const variants: Array<{ transport: DatanodeTransport; readWorkers: number; readBlock: boolean }> = [
    ...(chunkRows
      ? [
          ...transports.map((transport) => ({ transport, readWorkers: 0, readBlock: false })),
          ...(options.readWorkers ?? [])
            .filter((n) => n > 0)
            .map((readWorkers) => ({ transport: first, readWorkers, readBlock: false })),
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
      const own =
        reader === 'fastpath' && row.path === 'grpc'
          ? variants
          : reader === 'java'
            ? [...(chunkRows ? [plain] : []), ...blockRow]
            : [plain];
      for (const { transport, readWorkers, readBlock } of own)
        for (const columnId of reader === 's3' ? S3_COLUMNS : COLUMN_IDS)
          cases.push({
            id: caseId(reader, rowId, columnId, false, transport, readWorkers, readBlock),
            reader,
            row,
            column: READ_COLUMNS[columnId],
            aligned: false,
            transport,
            readWorkers,
            readBlock,
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
