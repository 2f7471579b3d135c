import { InvalidOptionError } from '@fastpath/core';
import { HadoopConfiguration } from '@fastpath/hadoop-common';
import { RAFT_GRPC_TRANSPORTS, type RaftGrpcTransport } from '@fastpath/ratis-client';
import { BULK_ENGINE_NAMES, resolveBulkEngine, type BulkEngineName } from './internal/bulk/bulk-engine.js';
import type { ChecksumTypeName } from './internal/checksum.js';
import {
  checkReplicationAllowed,
  DEFAULT_REPLICATION_ALLOWED_CONFIGS,
  parseReplication,
  type WritableReplicationType,
} from './internal/replication.js';
import { OzoneError } from './ozone-errors.js';

/**
 * The client settings fastpath reads, under Ozone's own configuration keys and with Ozone's
 * defaults (`OzoneClientConfig`, `ScmConfigKeys`, `OzoneConfigKeys`). Sizes are bytes, times
 * milliseconds.
 */
export interface OzoneClientConfig {
  /** `ozone.client.bytes.per.checksum`, default 16KB; values below 8KB are raised to 8KB, as Ozone does. */
  bytesPerChecksum: number;
  /** `ozone.client.checksum.type`, default CRC32. */
  checksumType: ChecksumTypeName;
  /** `ozone.client.verify.checksum`, default true. */
  verifyChecksum: boolean;
  /** `ozone.client.stream.buffer.size`, the chunk size of writes, default 4MB. */
  chunkSizeBytes: number;
  /** `ozone.scm.block.size`, default 256MB. */
  blockSizeBytes: number;
  /**
   * `ozone.client.stream.buffer.flush.size`, default 16MB: a write sends PutBlock (and watches it)
   * each time this much more of the block is written (counted in whole chunks).
   */
  flushSizeBytes: number;
  /**
   * `ozone.client.stream.buffer.max.size`, default 32MB: a writer waits while this much of the
   * block is written but not yet watched to the replication level (never less than one flush).
   */
  maxBufferSizeBytes: number;
  /**
   * `hdds.ratis.client.request.watch.type`, default ALL_COMMITTED: the level each PutBlock's log
   * index is watched to; a watch that fails there is repeated at MAJORITY_COMMITTED, as Ozone does.
   */
  watchType: 'ALL_COMMITTED' | 'MAJORITY_COMMITTED';
  /**
   * `ozone.client.max.retries`, default 5: how often one key's write moves the unacknowledged data
   * of a failed block (its container closed, its pipeline gone) to a newly allocated block.
   */
  writeMaxRetries: number;
  /**
   * `ozone.client.stream.buffer.flush.delay`, default true: `flush()` (and `hflush()`/`hsync()`
   * with hsync off) sends a PutBlock only once a chunk's worth (`ozone.client.stream.buffer.size`)
   * is written past the last one; false sends one on every flush with anything new.
   */
  flushDelay: boolean;
  /**
   * `ozone.client.hbase.enhancements.allowed`, default false: with `hsyncEnabled`, turns on
   * `hflush()`/`hsync()` (Ozone's experimental HBase support). Off, either of the two makes them a
   * plain `flush()`, as Ozone's client does.
   */
  hbaseEnhancementsAllowed: boolean;
  /** `ozone.fs.hsync.enabled`, default false: see `hbaseEnhancementsAllowed`; the OM has a setting of the same name. */
  hsyncEnabled: boolean;
  /** `ozone.client.read.timeout`, the deadline of each datanode call, default 30s. */
  readTimeoutMs: number;
  /** `ozone.client.read.max.retries`, default 3. */
  readMaxRetries: number;
  /** `ozone.client.read.retry.interval`, default 1s. */
  readRetryIntervalMs: number;
  /** `hdds.ratis.raft.client.async.outstanding-requests.max`: requests in flight per datanode channel, default 32. */
  maxOutstandingRequests: number;
  /** `ozone.om.grpc.port`, the OM gRPC port used when the OM address has none, default 8981. */
  omGrpcPort: number;
  /**
   * `ozone.om.transport.class`: how the OM is reached. `…Hadoop3OmTransportFactory` is
   * `hadoop-rpc` (Hadoop RPC, port 9862: Ozone's default), `…GrpcOmTransportFactory` is `grpc`
   * (the OM's gRPC port, 8981). Set, it decides how every OM address is read, a `host:port`
   * included. Unset (the default here): Hadoop RPC for an OM service id and `ozone.om.address`,
   * as in Ozone; a `host:port` given as the client's `omAddress` (or a file-system URI's
   * authority) stays the OM's gRPC address, as it was before this client spoke Hadoop RPC.
   */
  omTransport: OmTransportName | undefined;
  /** `ozone.client.failover.max.attempts`, default 500: failovers one OM call may make (HA). */
  omFailoverMaxAttempts: number;
  /**
   * `ozone.client.wait.between.retries.millis`, default 2000 (a bare number is ms): the wait after
   * each round of the OM nodes, and × n before the n-th ask in a row of a leader not ready yet.
   */
  omFailoverWaitMs: number;
  /**
   * `ozone.client.warmup.enabled` (HDDS-17357), default true: the first client of a process warms
   * the datanode path (protocol codecs, checksums, the TLS credentials) while it waits on the OM.
   */
  warmupEnabled: boolean;
  /** `ozone.client.warmup.tls.enabled` (fastpath's own key), default true: the warm-up's TLS part, which runs only with TLS on. */
  warmupTlsEnabled: boolean;
  /**
   * `ozone.client.read.short-circuit`, default false: read blocks of a datanode on this host from
   * the block file it passes over its domain socket (needs `domainSocketPath` and the native addon).
   */
  shortCircuitEnabled: boolean;
  /**
   * `ozone.domain.socket.path`, no default: the datanodes' Unix domain socket; `_PORT` becomes
   * the datanode's standalone port. The datanode must be configured with the same path.
   */
  domainSocketPath: string | undefined;
  /**
   * `ozone.client.read.short-circuit.disable.interval`, default 600 s (a bare number is seconds):
   * after a short-circuit failure on a datanode, its reads go over gRPC for this long.
   */
  shortCircuitDisableIntervalMs: number;
  /**
   * `ozone.client.datanode.transport` (fastpath's own key), default `socket-stream-pool`: how read
   * commands (GetBlock, ReadChunk, ReadBlock) travel to a datanode. `stream-pool` keeps long-lived
   * `send` streams per datanode channel over grpc-js and sends many requests on each, matched in
   * order (the datanode answers a stream's requests one after another); `call-per-request` opens a
   * grpc-js stream per request, as Ozone's Java client does; `http2-stream-pool` is the same pool
   * on fastpath's own HTTP/2 session on Node's `http2` (gRPC's framing done by fastpath, wide
   * windows and large frames); `socket-stream-pool` is the same pool on `@fastpath/grpc-http2`'s
   * session, HTTP/2 spoken by fastpath on a socket that reads into one reused buffer, each answer
   * copied once into a pooled buffer: the least CPU per MiB of the four. Writes always use a
   * grpc-js stream per request.
   */
  datanodeTransport: DatanodeTransport;
  /**
   * `ozone.client.bulk.engine` (fastpath's own key), default `auto`: who does the data path's byte
   * work. `js`: the CRC of every checksum window (@node-rs/crc32) and the copy of written bytes
   * into chunk buffers run on the JS thread. `native`: the optional addon (built where Debian's
   * libisal is) runs ISA-L's hardware CRCs, and copies writes of 256 KiB or more into the chunk
   * buffers on libuv's thread pool while the JS thread sends other chunks; the client refuses
   * `native` when the addon is not built. `auto`: `native` where it is built, else `js`.
   */
  bulkEngine: BulkEngineName;
  /**
   * `ozone.client.om.grpc.channel` (fastpath's own key), default `socket`: how calls to the OM's
   * gRPC service travel when `ozone.om.transport.class` names the gRPC transport. `socket` is
   * `@fastpath/grpc-http2`'s session (the one `socket-stream-pool` reads use), a stream per call
   * with gRPC's framing done by fastpath; `http2` the same on a session of Node's `http2` module
   * (the one `http2-stream-pool` reads use); `grpc-js` is a grpc-js channel, as before.
   */
  omGrpcChannel: OmGrpcChannel;
  /**
   * `ozone.client.ratis.grpc.channel` (fastpath's own key), default `http2`: whose HTTP/2 session
   * carries the Ratis client's streams to a RATIS pipeline's datanodes (WriteChunk, PutBlock, the
   * watches): Node's `http2` module (`http2`), or `@fastpath/grpc-http2`'s on a socket (`socket`).
   * Both send each chunk from where it lies, without copying it into a message buffer.
   */
  ratisGrpcChannel: RaftGrpcTransport;
  /**
   * `ozone.client.datanode.http2.max.frame.size` (fastpath's own key), default 1 MiB, 16 KiB to
   * 16 MiB - 1: with `http2-stream-pool` and `socket-stream-pool`, the largest DATA frame the datanode may send
   * (SETTINGS_MAX_FRAME_SIZE; Ozone's Netty server sends frames as large as allowed).
   */
  datanodeHttp2MaxFrameBytes: number;
  /**
   * `ozone.client.datanode.streams.per.channel` (fastpath's own key), default 4: the most
   * long-lived streams of one datanode channel in `stream-pool` mode. A request goes to an idle
   * stream, else a new one while fewer are open, else the stream with the fewest waiting.
   */
  datanodeStreamsPerChannel: number;
  /**
   * `ozone.client.datanode.stream.idle.timeout` (fastpath's own key), default 1s: a pooled
   * stream without a request for this long is half-closed. An open stream keeps the process
   * alive, so this also bounds how long a process that never closes its client lingers.
   */
  datanodeStreamIdleMs: number;
  /**
   * `ozone.client.read.worker.threads` (fastpath's own key), default 0: worker threads that do the
   * datanode side of positional reads (GetBlock, ReadChunk, decoding, checksum verification), each
   * with datanode channels of its own; the reads of a key stream are spread over them and the bytes
   * come back to the caller's thread. 0 reads on the caller's thread. At most 64.
   */
  readWorkerThreads: number;
  /**
   * `hadoop.security.key.provider.path`, no default: the KMS that decrypts the data keys of
   * encrypted keys, as Hadoop writes it (`kms://http@host:9600/kms`, several hosts as
   * `kms://http@h1;h2:9600/kms`). Only encrypted keys need it.
   */
  keyProviderPath: string | undefined;
  /**
   * `ozone.client.read.chunk.readahead` (fastpath's own key), default 1MB: a read that continues
   * where the last one on the stream ended, read with ReadChunk, asks this many bytes more of its
   * chunk (never past the chunk's end, never more than the stream's window cache); the reads that
   * follow take them from the window cache without a datanode call. 0 asks only what each read
   * needs, as Ozone's ChunkInputStream does. Positional reads elsewhere in the key are unaffected.
   */
  readChunkReadAheadBytes: number;
  /**
   * `ozone.client.stream.readblock.enable`, default false: read a block's range with one streaming
   * ReadBlock request (Ozone 2.2.0) instead of a ReadChunk per chunk range, where the block allows
   * it (see the package README for when the client falls back to ReadChunk).
   */
  streamReadBlockEnabled: boolean;
  /**
   * `ozone.client.stream.read.response-data-size`, default 1MB: the most bytes per ReadBlock
   * piece; each request rounds it down to a multiple of the block's bytes per checksum (at least
   * one window) and no larger than the read needs.
   */
  streamReadResponseDataSizeBytes: number;
  /**
   * `ozone.client.stream.read.pre-read-size`, default 32MB: a read that continues where the last
   * one on its block ended asks this many bytes more than it needs (never past the block's end);
   * the next read in line takes them from the same stream.
   */
  streamReadPreReadSizeBytes: number;
  /**
   * `ozone.client.stream.read.timeout`, default 10s: the longest wait for the next ReadBlock piece;
   * a stream that stalls longer fails with DEADLINE_EXCEEDED and the read goes to the next replica.
   */
  streamReadTimeoutMs: number;
  /**
   * `ozone.client.stream.readblock.positional.min.size` (fastpath's own key), default 256MB: with
   * ReadBlock on, a positional (not sequential) read of at least this many bytes of one block is
   * streamed; smaller ones use ReadChunk. 0 streams every read. The default keeps positional reads
   * on ReadChunk: measured from 64 KiB to 8 MiB (the ozone-read benchmark), ReadBlock did not read
   * them faster on Ozone 2.2.0's datanodes.
   */
  streamReadBlockPositionalMinBytes: number;
  /**
   * `ozone.replication`, no default: the replication of keys that name none themselves, in
   * Ozone's text (`THREE`, `ONE`; `rs-3-2-1024k` with `replicationType` EC). Unset, CreateKey
   * names none and the OM applies the bucket's default, else its own. As in Ozone's file
   * systems, a bucket whose default is EC keeps it whatever this says.
   */
  replication: string | undefined;
  /** `ozone.replication.type`, default RATIS: how `replication` is read (RATIS or EC); alone it changes nothing. */
  replicationType: WritableReplicationType;
  /**
   * `ozone.replication.allowed-configs`, default Ozone's
   * `^((STANDALONE|RATIS)/(ONE|THREE))|(EC/(3-2|6-3|10-4)-(512|1024|2048|4096)k)$`: a regular
   * expression the whole of a key's replication (`RATIS/THREE`, `EC/3-2-1024k`) must match before
   * CreateKey is sent, as Ozone's client checks it; empty allows all. The OM checks its own.
   */
  replicationAllowedConfigs: string;
  /**
   * `ozone.client.max.ec.stripe.write.retries`, default 10: how often one stripe of an EC key is
   * written again into a new block group after it failed in one, before the key fails.
   */
  ecStripeWriteMaxRetries: number;
  /**
   * `ozone.fs.datastream.enabled`, default false: write keys of RATIS replication larger than
   * `dataStreamAutoThresholdBytes` with Ratis streaming (HDDS-4454), as Ozone's file systems do:
   * each block's bytes go as raw packets over Ratis's DataStream protocol to the pipeline's
   * `RATIS_DATASTREAM` ports, and only PutBlocks go through the Raft log. Needs datanodes with
   * `hdds.container.ratis.datastream.enabled`; a pipeline without those ports fails the write.
   */
  dataStreamEnabled: boolean;
  /**
   * `ozone.fs.datastream.auto.threshold`, default 4MB: with streaming on, a key of at most this
   * many bytes (CreateKey's size, or, when unknown, what was written by close) goes the async
   * Ratis way; a larger one streams.
   */
  dataStreamAutoThresholdBytes: number;
  /** `ozone.client.datastream.min.packet.size`, default 1MB: the bytes of one data packet, which is one chunk. */
  dataStreamPacketBytes: number;
  /** `ozone.client.datastream.buffer.flush.size`, default 16MB: a PutBlock (over Ratis) every this many bytes of a block. */
  dataStreamFlushSizeBytes: number;
  /**
   * `ozone.client.datastream.window.size`, default 64MB: bytes of a block written but not yet
   * covered by a watched PutBlock, before the writer waits for the oldest PutBlock and its watch.
   */
  dataStreamWindowBytes: number;
  /**
   * `ozone.client.datastream.pipeline.mode`, default true: route a stream along the pipeline
   * (client → first → second → third); false sends it to the first datanode, which sends it to
   * every other.
   */
  dataStreamChainRouting: boolean;
  /** `ozone.client.datastream.sync.size`, default 0 (never): ask the datanodes to force the block file to disk every this many bytes. */
  dataStreamSyncSizeBytes: number;
}

/** How the client reaches the OM (`ozone.om.transport.class`). */
export type OmTransportName = 'grpc' | 'hadoop-rpc';

/** The values of `ozone.om.transport.class` and the transport each names. */
export const OM_TRANSPORT_CLASSES: Readonly<Record<string, OmTransportName>> = Object.freeze({
  'org.apache.hadoop.ozone.om.protocolPB.GrpcOmTransportFactory': 'grpc',
  'org.apache.hadoop.ozone.om.protocolPB.Hadoop3OmTransportFactory': 'hadoop-rpc',
});

/** How calls to the OM's gRPC service travel (`ozone.client.om.grpc.channel`). */
export type OmGrpcChannel = 'http2' | 'grpc-js' | 'socket';
const OM_GRPC_CHANNELS: readonly OmGrpcChannel[] = ['http2', 'grpc-js', 'socket'];

/** How read commands travel to a datanode (`ozone.client.datanode.transport`). */
export type DatanodeTransport =
  'stream-pool' | 'call-per-request' | 'http2-stream-pool' | 'socket-stream-pool';
const DATANODE_TRANSPORTS: readonly DatanodeTransport[] = [
  'stream-pool',
  'call-per-request',
  'http2-stream-pool',
  'socket-stream-pool',
];

const KB = 1024;
const MB = 1024 * KB;

/** Ozone's defaults. */
export const DEFAULT_OZONE_CLIENT_CONFIG: Readonly<OzoneClientConfig> = Object.freeze({
  bytesPerChecksum: 16 * KB,
  checksumType: 'CRC32',
  verifyChecksum: true,
  chunkSizeBytes: 4 * MB,
  blockSizeBytes: 256 * MB,
  flushSizeBytes: 16 * MB,
  maxBufferSizeBytes: 32 * MB,
  watchType: 'ALL_COMMITTED',
  writeMaxRetries: 5,
  flushDelay: true,
  hbaseEnhancementsAllowed: false,
  hsyncEnabled: false,
  readTimeoutMs: 30_000,
  readMaxRetries: 3,
  readRetryIntervalMs: 1_000,
  maxOutstandingRequests: 32,
  omGrpcPort: 8981,
  omTransport: undefined,
  omFailoverMaxAttempts: 500,
  omFailoverWaitMs: 2000,
  warmupEnabled: true,
  warmupTlsEnabled: true,
  shortCircuitEnabled: false,
  domainSocketPath: undefined,
  shortCircuitDisableIntervalMs: 600_000,
  datanodeTransport: 'socket-stream-pool',
  bulkEngine: 'auto',
  omGrpcChannel: 'socket',
  ratisGrpcChannel: 'http2',
  datanodeStreamsPerChannel: 4,
  datanodeStreamIdleMs: 1_000,
  datanodeHttp2MaxFrameBytes: MB,
  readWorkerThreads: 0,
  keyProviderPath: undefined,
  readChunkReadAheadBytes: MB,
  streamReadBlockEnabled: false,
  streamReadResponseDataSizeBytes: MB,
  streamReadPreReadSizeBytes: 32 * MB,
  streamReadTimeoutMs: 10_000,
  streamReadBlockPositionalMinBytes: 256 * MB,
  replication: undefined,
  replicationType: 'RATIS',
  replicationAllowedConfigs: DEFAULT_REPLICATION_ALLOWED_CONFIGS,
  ecStripeWriteMaxRetries: 10,
  dataStreamEnabled: false,
  dataStreamAutoThresholdBytes: 4 * MB,
  dataStreamPacketBytes: MB,
  dataStreamFlushSizeBytes: 16 * MB,
  dataStreamWindowBytes: 64 * MB,
  dataStreamChainRouting: true,
  dataStreamSyncSizeBytes: 0,
});

/** The configuration key of each setting. */
export const OZONE_CLIENT_CONFIG_KEYS: Readonly<Record<keyof OzoneClientConfig, string>> = Object.freeze({
  bytesPerChecksum: 'ozone.client.bytes.per.checksum',
  checksumType: 'ozone.client.checksum.type',
  verifyChecksum: 'ozone.client.verify.checksum',
  chunkSizeBytes: 'ozone.client.stream.buffer.size',
  blockSizeBytes: 'ozone.scm.block.size',
  flushSizeBytes: 'ozone.client.stream.buffer.flush.size',
  maxBufferSizeBytes: 'ozone.client.stream.buffer.max.size',
  watchType: 'hdds.ratis.client.request.watch.type',
  writeMaxRetries: 'ozone.client.max.retries',
  flushDelay: 'ozone.client.stream.buffer.flush.delay',
  hbaseEnhancementsAllowed: 'ozone.client.hbase.enhancements.allowed',
  hsyncEnabled: 'ozone.fs.hsync.enabled',
  readTimeoutMs: 'ozone.client.read.timeout',
  readMaxRetries: 'ozone.client.read.max.retries',
  readRetryIntervalMs: 'ozone.client.read.retry.interval',
  maxOutstandingRequests: 'hdds.ratis.raft.client.async.outstanding-requests.max',
  omGrpcPort: 'ozone.om.grpc.port',
  omTransport: 'ozone.om.transport.class',
  omFailoverMaxAttempts: 'ozone.client.failover.max.attempts',
  omFailoverWaitMs: 'ozone.client.wait.between.retries.millis',
  warmupEnabled: 'ozone.client.warmup.enabled',
  warmupTlsEnabled: 'ozone.client.warmup.tls.enabled',
  shortCircuitEnabled: 'ozone.client.read.short-circuit',
  domainSocketPath: 'ozone.domain.socket.path',
  shortCircuitDisableIntervalMs: 'ozone.client.read.short-circuit.disable.interval',
  datanodeTransport: 'ozone.client.datanode.transport',
  bulkEngine: 'ozone.client.bulk.engine',
  omGrpcChannel: 'ozone.client.om.grpc.channel',
  ratisGrpcChannel: 'ozone.client.ratis.grpc.channel',
  datanodeStreamsPerChannel: 'ozone.client.datanode.streams.per.channel',
  datanodeStreamIdleMs: 'ozone.client.datanode.stream.idle.timeout',
  datanodeHttp2MaxFrameBytes: 'ozone.client.datanode.http2.max.frame.size',
  readWorkerThreads: 'ozone.client.read.worker.threads',
  keyProviderPath: 'hadoop.security.key.provider.path',
  readChunkReadAheadBytes: 'ozone.client.read.chunk.readahead',
  streamReadBlockEnabled: 'ozone.client.stream.readblock.enable',
  streamReadResponseDataSizeBytes: 'ozone.client.stream.read.response-data-size',
  streamReadPreReadSizeBytes: 'ozone.client.stream.read.pre-read-size',
  streamReadTimeoutMs: 'ozone.client.stream.read.timeout',
  streamReadBlockPositionalMinBytes: 'ozone.client.stream.readblock.positional.min.size',
  replication: 'ozone.replication',
  replicationType: 'ozone.replication.type',
  replicationAllowedConfigs: 'ozone.replication.allowed-configs',
  ecStripeWriteMaxRetries: 'ozone.client.max.ec.stripe.write.retries',
  dataStreamEnabled: 'ozone.fs.datastream.enabled',
  dataStreamAutoThresholdBytes: 'ozone.fs.datastream.auto.threshold',
  dataStreamPacketBytes: 'ozone.client.datastream.min.packet.size',
  dataStreamFlushSizeBytes: 'ozone.client.datastream.buffer.flush.size',
  dataStreamWindowBytes: 'ozone.client.datastream.window.size',
  dataStreamChainRouting: 'ozone.client.datastream.pipeline.mode',
  dataStreamSyncSizeBytes: 'ozone.client.datastream.sync.size',
});

/** The largest ReadBlock piece the client asks for (`ozone.client.stream.read.response-data-size`). */
export const MAX_STREAM_READ_RESPONSE_DATA_SIZE_BYTES = 16 * MB;

/** The most read worker threads one client may start (`ozone.client.read.worker.threads`). */
export const MAX_READ_WORKER_THREADS = 64;

/** Ozone clamps bytes per checksum to at least this (OzoneClientConfig.validate). */
export const MIN_BYTES_PER_CHECKSUM = 8 * KB;

const SIZE_UNITS: Record<string, number> = {
  '': 1,
  B: 1,
  K: KB,
  KB,
  M: MB,
  MB,
  G: 1024 * MB,
  GB: 1024 * MB,
  T: 1024 * 1024 * MB,
  TB: 1024 * 1024 * MB,
};
const TIME_UNITS: Record<string, number> = {
  '': 1,
  NS: 1e-6,
  US: 1e-3,
  MS: 1,
  S: 1000,
  M: 60_000,
  H: 3_600_000,
  D: 86_400_000,
};

/** Properties under Ozone's keys: a Map, a plain object, or a `HadoopConfiguration` (ozone-site.xml). */
export type OzoneProperties =
  | ReadonlyMap<string, string>
  | Readonly<Record<string, string>>
  | {
      /** The value of a property, or undefined when it is not set (a value that is not a string counts as unset). */
      get(key: string): string | undefined;
    };

/**
 * Reads `ozone-site.xml` files with Hadoop's configuration reader, later files winning (a missing
 * file is an error unless `optional`). Pass the result as `properties`.
 *
 * @example
 * ```ts
 * const site = loadOzoneSiteXml(['/etc/ozone/ozone-site.xml']);
 * const client = createOzoneClient({ omAddress: 'om1:8981', properties: site });
 * ```
 */
export function loadOzoneSiteXml(
  paths: readonly string[],
  options: { optional?: boolean } = {},
): HadoopConfiguration {
  return HadoopConfiguration.layered(...paths.map((path) => HadoopConfiguration.fromXmlFile(path, options)));
}

/** Hadoop storage sizes ("16KB", "4MB", "1048576"; binary units, as Hadoop's StorageUnit). */
export function parseStorageSize(key: string, text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(text);
  const unit = m ? SIZE_UNITS[(m[2] ?? '').toUpperCase()] : undefined;
  if (!m || unit === undefined)
    throw new InvalidOptionError(key, `expected a size such as 16KB or 4MB, got ${JSON.stringify(text)}`);
  return Math.round(Number(m[1]) * unit);
}

/** Hadoop durations ("30s", "1000ms", "1m"; a bare number in `defaultUnitMs`). */
export function parseDurationMs(key: string, text: string, defaultUnitMs = 1): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(text);
  const unitName = (m?.[2] ?? '').toUpperCase();
  const unit = unitName === '' ? defaultUnitMs : TIME_UNITS[unitName];
  if (!m || unit === undefined)
    throw new InvalidOptionError(
      key,
      `expected a duration such as 30s or 500ms, got ${JSON.stringify(text)}`,
    );
  return Number(m[1]) * unit;
}

function parseBoolean(key: string, text: string): boolean {
  const t = text.trim().toLowerCase();
  if (t === 'true') return true;
  if (t === 'false') return false;
  throw new InvalidOptionError(key, `expected true or false, got ${JSON.stringify(text)}`);
}

function parseInteger(key: string, text: string, min: number): number {
  const n = Number(text.trim());
  if (!Number.isInteger(n) || n < min)
    throw new InvalidOptionError(key, `expected an integer ≥ ${min}, got ${JSON.stringify(text)}`);
  return n;
}

const CHECKSUM_TYPES: readonly ChecksumTypeName[] = ['NONE', 'CRC32', 'CRC32C', 'SHA256', 'MD5'];

/** One property of a Map, a plain object or a `HadoopConfiguration`. */
export function readProperty(properties: OzoneProperties, key: string): string | undefined {
  const getter = (properties as { get?: unknown }).get;
  const value: unknown =
    typeof getter === 'function'
      ? (properties as { get(key: string): string | undefined }).get(key)
      : (properties as Readonly<Record<string, string>>)[key];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Reads the client settings from Hadoop-style key/value properties (for example the properties
 * of an `ozone-site.xml`); keys that are absent keep Ozone's defaults, unknown keys are ignored.
 *
 * @example
 * ```ts
 * const config = ozoneClientConfigFromProperties({ 'ozone.client.bytes.per.checksum': '1MB' });
 * ```
 */
export function ozoneClientConfigFromProperties(
  properties: OzoneProperties,
  base: Readonly<OzoneClientConfig> = DEFAULT_OZONE_CLIENT_CONFIG,
): OzoneClientConfig {
  const get = (k: keyof OzoneClientConfig): string | undefined =>
    readProperty(properties, OZONE_CLIENT_CONFIG_KEYS[k]);
  const c: OzoneClientConfig = { ...base };
  const K = OZONE_CLIENT_CONFIG_KEYS;
  let v: string | undefined;
  if ((v = get('bytesPerChecksum')) !== undefined)
    c.bytesPerChecksum = parseStorageSize(K.bytesPerChecksum, v);
  if ((v = get('checksumType')) !== undefined) {
    const t = v.trim().toUpperCase();
    if (!(CHECKSUM_TYPES as readonly string[]).includes(t))
      throw new InvalidOptionError(
        K.checksumType,
        `expected one of ${CHECKSUM_TYPES.join(', ')}, got ${JSON.stringify(v)}`,
      );
    c.checksumType = t as ChecksumTypeName;
  }
  if ((v = get('verifyChecksum')) !== undefined) c.verifyChecksum = parseBoolean(K.verifyChecksum, v);
  if ((v = get('chunkSizeBytes')) !== undefined) c.chunkSizeBytes = parseStorageSize(K.chunkSizeBytes, v);
  if ((v = get('blockSizeBytes')) !== undefined) c.blockSizeBytes = parseStorageSize(K.blockSizeBytes, v);
  if ((v = get('flushSizeBytes')) !== undefined) c.flushSizeBytes = parseStorageSize(K.flushSizeBytes, v);
  if ((v = get('maxBufferSizeBytes')) !== undefined)
    c.maxBufferSizeBytes = parseStorageSize(K.maxBufferSizeBytes, v);
  if ((v = get('watchType')) !== undefined)
    c.watchType = v.trim().toUpperCase() as OzoneClientConfig['watchType'];
  if ((v = get('writeMaxRetries')) !== undefined) c.writeMaxRetries = parseInteger(K.writeMaxRetries, v, 0);
  if ((v = get('flushDelay')) !== undefined) c.flushDelay = parseBoolean(K.flushDelay, v);
  if ((v = get('hbaseEnhancementsAllowed')) !== undefined)
    c.hbaseEnhancementsAllowed = parseBoolean(K.hbaseEnhancementsAllowed, v);
  if ((v = get('hsyncEnabled')) !== undefined) c.hsyncEnabled = parseBoolean(K.hsyncEnabled, v);
  if ((v = get('readTimeoutMs')) !== undefined) c.readTimeoutMs = parseDurationMs(K.readTimeoutMs, v);
  if ((v = get('readMaxRetries')) !== undefined) c.readMaxRetries = parseInteger(K.readMaxRetries, v, 0);
  if ((v = get('readRetryIntervalMs')) !== undefined)
    c.readRetryIntervalMs = parseDurationMs(K.readRetryIntervalMs, v);
  if ((v = get('maxOutstandingRequests')) !== undefined)
    c.maxOutstandingRequests = parseInteger(K.maxOutstandingRequests, v, 1);
  if ((v = get('omGrpcPort')) !== undefined) c.omGrpcPort = parseInteger(K.omGrpcPort, v, 1);
  if ((v = get('omTransport')) !== undefined) {
    const transport = OM_TRANSPORT_CLASSES[v.trim()];
    if (transport === undefined)
      throw new InvalidOptionError(
        K.omTransport,
        `expected one of ${Object.keys(OM_TRANSPORT_CLASSES).join(', ')}, got ${JSON.stringify(v)}`,
      );
    c.omTransport = transport;
  }
  if ((v = get('omFailoverMaxAttempts')) !== undefined)
    c.omFailoverMaxAttempts = parseInteger(K.omFailoverMaxAttempts, v, 0);
  if ((v = get('omFailoverWaitMs')) !== undefined)
    c.omFailoverWaitMs = parseDurationMs(K.omFailoverWaitMs, v);
  if ((v = get('warmupEnabled')) !== undefined) c.warmupEnabled = parseBoolean(K.warmupEnabled, v);
  if ((v = get('warmupTlsEnabled')) !== undefined) c.warmupTlsEnabled = parseBoolean(K.warmupTlsEnabled, v);
  if ((v = get('shortCircuitEnabled')) !== undefined)
    c.shortCircuitEnabled = parseBoolean(K.shortCircuitEnabled, v);
  // An empty value is Ozone's "not set".
  if ((v = get('domainSocketPath')) !== undefined)
    c.domainSocketPath = v.trim() === '' ? undefined : v.trim();
  if ((v = get('shortCircuitDisableIntervalMs')) !== undefined)
    c.shortCircuitDisableIntervalMs = parseDurationMs(K.shortCircuitDisableIntervalMs, v, 1000);
  if ((v = get('datanodeTransport')) !== undefined)
    c.datanodeTransport = v.trim().toLowerCase() as DatanodeTransport;
  if ((v = get('bulkEngine')) !== undefined) c.bulkEngine = v.trim().toLowerCase() as BulkEngineName;
  if ((v = get('omGrpcChannel')) !== undefined) c.omGrpcChannel = v.trim().toLowerCase() as OmGrpcChannel;
  if ((v = get('ratisGrpcChannel')) !== undefined)
    c.ratisGrpcChannel = v.trim().toLowerCase() as RaftGrpcTransport;
  if ((v = get('datanodeStreamsPerChannel')) !== undefined)
    c.datanodeStreamsPerChannel = parseInteger(K.datanodeStreamsPerChannel, v, 1);
  if ((v = get('datanodeStreamIdleMs')) !== undefined)
    c.datanodeStreamIdleMs = parseDurationMs(K.datanodeStreamIdleMs, v);
  if ((v = get('datanodeHttp2MaxFrameBytes')) !== undefined)
    c.datanodeHttp2MaxFrameBytes = parseStorageSize(K.datanodeHttp2MaxFrameBytes, v);
  if ((v = get('readWorkerThreads')) !== undefined)
    c.readWorkerThreads = parseInteger(K.readWorkerThreads, v, 0);
  // An empty value is Hadoop's "no provider".
  if ((v = get('keyProviderPath')) !== undefined) c.keyProviderPath = v.trim() === '' ? undefined : v.trim();
  if ((v = get('readChunkReadAheadBytes')) !== undefined)
    c.readChunkReadAheadBytes = parseStorageSize(K.readChunkReadAheadBytes, v);
  if ((v = get('streamReadBlockEnabled')) !== undefined)
    c.streamReadBlockEnabled = parseBoolean(K.streamReadBlockEnabled, v);
  if ((v = get('streamReadResponseDataSizeBytes')) !== undefined)
    c.streamReadResponseDataSizeBytes = parseStorageSize(K.streamReadResponseDataSizeBytes, v);
  if ((v = get('streamReadPreReadSizeBytes')) !== undefined)
    c.streamReadPreReadSizeBytes = parseStorageSize(K.streamReadPreReadSizeBytes, v);
  // Ozone reads the key as a Duration: a bare number is milliseconds.
  if ((v = get('streamReadTimeoutMs')) !== undefined)
    c.streamReadTimeoutMs = parseDurationMs(K.streamReadTimeoutMs, v);
  if ((v = get('streamReadBlockPositionalMinBytes')) !== undefined)
    c.streamReadBlockPositionalMinBytes = parseStorageSize(K.streamReadBlockPositionalMinBytes, v);
  // An empty value is Ozone's "not set": the OM decides.
  if ((v = get('replication')) !== undefined) c.replication = v.trim() === '' ? undefined : v.trim();
  if ((v = get('replicationType')) !== undefined)
    c.replicationType = v.trim().toUpperCase() as WritableReplicationType;
  if ((v = get('replicationAllowedConfigs')) !== undefined) c.replicationAllowedConfigs = v.trim();
  if ((v = get('ecStripeWriteMaxRetries')) !== undefined)
    c.ecStripeWriteMaxRetries = parseInteger(K.ecStripeWriteMaxRetries, v, 0);
  if ((v = get('dataStreamEnabled')) !== undefined)
    c.dataStreamEnabled = parseBoolean(K.dataStreamEnabled, v);
  if ((v = get('dataStreamAutoThresholdBytes')) !== undefined)
    c.dataStreamAutoThresholdBytes = parseStorageSize(K.dataStreamAutoThresholdBytes, v);
  if ((v = get('dataStreamPacketBytes')) !== undefined)
    c.dataStreamPacketBytes = parseStorageSize(K.dataStreamPacketBytes, v);
  if ((v = get('dataStreamFlushSizeBytes')) !== undefined)
    c.dataStreamFlushSizeBytes = parseStorageSize(K.dataStreamFlushSizeBytes, v);
  if ((v = get('dataStreamWindowBytes')) !== undefined)
    c.dataStreamWindowBytes = parseStorageSize(K.dataStreamWindowBytes, v);
  if ((v = get('dataStreamChainRouting')) !== undefined)
    c.dataStreamChainRouting = parseBoolean(K.dataStreamChainRouting, v);
  if ((v = get('dataStreamSyncSizeBytes')) !== undefined)
    c.dataStreamSyncSizeBytes = parseStorageSize(K.dataStreamSyncSizeBytes, v);
  return validateOzoneClientConfig(c);
}

/** Checks a config and applies Ozone's clamp of bytes per checksum; throws naming the key. */
export function validateOzoneClientConfig(config: OzoneClientConfig): OzoneClientConfig {
  const K = OZONE_CLIENT_CONFIG_KEYS;
  const c = { ...config };
  if (!Number.isInteger(c.bytesPerChecksum) || c.bytesPerChecksum <= 0)
    throw new InvalidOptionError(K.bytesPerChecksum, 'must be a positive integer');
  c.bytesPerChecksum = Math.max(c.bytesPerChecksum, MIN_BYTES_PER_CHECKSUM);
  if (!Number.isInteger(c.chunkSizeBytes) || c.chunkSizeBytes <= 0 || c.chunkSizeBytes > 32 * MB)
    throw new InvalidOptionError(K.chunkSizeBytes, 'must be a positive integer up to 32MB');
  if (!Number.isInteger(c.blockSizeBytes) || c.blockSizeBytes < c.chunkSizeBytes)
    throw new InvalidOptionError(K.blockSizeBytes, 'must be an integer of at least the chunk size');
  if (!Number.isInteger(c.flushSizeBytes) || c.flushSizeBytes <= 0)
    throw new InvalidOptionError(K.flushSizeBytes, 'must be a positive integer');
  if (!Number.isInteger(c.maxBufferSizeBytes) || c.maxBufferSizeBytes <= 0)
    throw new InvalidOptionError(K.maxBufferSizeBytes, 'must be a positive integer');
  if (c.watchType !== 'ALL_COMMITTED' && c.watchType !== 'MAJORITY_COMMITTED')
    throw new InvalidOptionError(K.watchType, 'expected ALL_COMMITTED or MAJORITY_COMMITTED');
  if (!Number.isInteger(c.writeMaxRetries) || c.writeMaxRetries < 0)
    throw new InvalidOptionError(K.writeMaxRetries, 'must be an integer ≥ 0');
  for (const k of ['flushDelay', 'hbaseEnhancementsAllowed', 'hsyncEnabled'] as const)
    if (typeof c[k] !== 'boolean') throw new InvalidOptionError(K[k], 'must be a boolean');
  if (!(c.readTimeoutMs > 0)) throw new InvalidOptionError(K.readTimeoutMs, 'must be positive');
  if (!Number.isInteger(c.readMaxRetries) || c.readMaxRetries < 0)
    throw new InvalidOptionError(K.readMaxRetries, 'must be an integer ≥ 0');
  if (!(c.readRetryIntervalMs >= 0)) throw new InvalidOptionError(K.readRetryIntervalMs, 'must be ≥ 0');
  if (!Number.isInteger(c.maxOutstandingRequests) || c.maxOutstandingRequests < 1)
    throw new InvalidOptionError(K.maxOutstandingRequests, 'must be an integer ≥ 1');
  if (!(CHECKSUM_TYPES as readonly string[]).includes(c.checksumType))
    throw new InvalidOptionError(K.checksumType, `expected one of ${CHECKSUM_TYPES.join(', ')}`);
  if (c.omTransport !== undefined && c.omTransport !== 'grpc' && c.omTransport !== 'hadoop-rpc')
    throw new InvalidOptionError(K.omTransport, 'expected grpc or hadoop-rpc');
  if (!Number.isInteger(c.omFailoverMaxAttempts) || c.omFailoverMaxAttempts < 0)
    throw new InvalidOptionError(K.omFailoverMaxAttempts, 'must be an integer ≥ 0');
  if (!(c.omFailoverWaitMs >= 0) || !Number.isFinite(c.omFailoverWaitMs))
    throw new InvalidOptionError(K.omFailoverWaitMs, 'must be a finite number ≥ 0');
  if (typeof c.warmupEnabled !== 'boolean')
    throw new InvalidOptionError(K.warmupEnabled, 'must be a boolean');
  if (typeof c.warmupTlsEnabled !== 'boolean')
    throw new InvalidOptionError(K.warmupTlsEnabled, 'must be a boolean');
  if (typeof c.shortCircuitEnabled !== 'boolean')
    throw new InvalidOptionError(K.shortCircuitEnabled, 'must be a boolean');
  if (
    c.domainSocketPath !== undefined &&
    (typeof c.domainSocketPath !== 'string' || c.domainSocketPath === '')
  )
    throw new InvalidOptionError(K.domainSocketPath, 'must be a non-empty path');
  if (!(c.shortCircuitDisableIntervalMs >= 0))
    throw new InvalidOptionError(K.shortCircuitDisableIntervalMs, 'must be ≥ 0');
  if (!OM_GRPC_CHANNELS.includes(c.omGrpcChannel))
    throw new InvalidOptionError(K.omGrpcChannel, `expected one of ${OM_GRPC_CHANNELS.join(', ')}`);
  if (!RAFT_GRPC_TRANSPORTS.includes(c.ratisGrpcChannel))
    throw new InvalidOptionError(K.ratisGrpcChannel, `expected one of ${RAFT_GRPC_TRANSPORTS.join(', ')}`);
  if (!DATANODE_TRANSPORTS.includes(c.datanodeTransport))
    throw new InvalidOptionError(K.datanodeTransport, `expected one of ${DATANODE_TRANSPORTS.join(', ')}`);
  if (!BULK_ENGINE_NAMES.includes(c.bulkEngine))
    throw new InvalidOptionError(K.bulkEngine, `expected one of ${BULK_ENGINE_NAMES.join(', ')}`);
  // Only a config that names the native engine needs the addon now; `auto` loads it with the client.
  const bulk = c.bulkEngine === 'native' ? resolveBulkEngine('native') : undefined;
  if (bulk && 'unavailable' in bulk)
    throw new InvalidOptionError(K.bulkEngine, `the native engine is unavailable: ${bulk.unavailable}`);
  if (!Number.isInteger(c.datanodeStreamsPerChannel) || c.datanodeStreamsPerChannel < 1)
    throw new InvalidOptionError(K.datanodeStreamsPerChannel, 'must be an integer ≥ 1');
  if (!(c.datanodeStreamIdleMs > 0)) throw new InvalidOptionError(K.datanodeStreamIdleMs, 'must be positive');
  if (
    !Number.isInteger(c.datanodeHttp2MaxFrameBytes) ||
    c.datanodeHttp2MaxFrameBytes < 16_384 ||
    c.datanodeHttp2MaxFrameBytes > 16_777_215
  )
    throw new InvalidOptionError(K.datanodeHttp2MaxFrameBytes, 'must be an integer from 16384 to 16777215');
  if (
    !Number.isInteger(c.readWorkerThreads) ||
    c.readWorkerThreads < 0 ||
    c.readWorkerThreads > MAX_READ_WORKER_THREADS
  )
    throw new InvalidOptionError(
      K.readWorkerThreads,
      `must be an integer from 0 to ${MAX_READ_WORKER_THREADS}`,
    );
  if (c.keyProviderPath !== undefined && (typeof c.keyProviderPath !== 'string' || c.keyProviderPath === ''))
    throw new InvalidOptionError(K.keyProviderPath, 'must be a non-empty kms:// URI');
  // Ozone resets bad values of the three streaming-read sizes to their defaults with a warning;
  // here they are refused, as every other bad value is.
  if (typeof c.streamReadBlockEnabled !== 'boolean')
    throw new InvalidOptionError(K.streamReadBlockEnabled, 'must be a boolean');
  if (
    !Number.isInteger(c.streamReadResponseDataSizeBytes) ||
    c.streamReadResponseDataSizeBytes <= 0 ||
    c.streamReadResponseDataSizeBytes > MAX_STREAM_READ_RESPONSE_DATA_SIZE_BYTES
  )
    throw new InvalidOptionError(K.streamReadResponseDataSizeBytes, 'must be an integer from 1 to 16MB');
  if (!Number.isSafeInteger(c.readChunkReadAheadBytes) || c.readChunkReadAheadBytes < 0)
    throw new InvalidOptionError(K.readChunkReadAheadBytes, 'must be an integer ≥ 0');
  if (!Number.isSafeInteger(c.streamReadPreReadSizeBytes) || c.streamReadPreReadSizeBytes < 0)
    throw new InvalidOptionError(K.streamReadPreReadSizeBytes, 'must be an integer ≥ 0');
  if (!(c.streamReadTimeoutMs > 0) || !Number.isFinite(c.streamReadTimeoutMs))
    throw new InvalidOptionError(K.streamReadTimeoutMs, 'must be a positive, finite duration');
  if (!Number.isSafeInteger(c.streamReadBlockPositionalMinBytes) || c.streamReadBlockPositionalMinBytes < 0)
    throw new InvalidOptionError(K.streamReadBlockPositionalMinBytes, 'must be an integer ≥ 0');
  if (c.replicationType !== 'RATIS' && c.replicationType !== 'EC')
    throw new InvalidOptionError(K.replicationType, 'expected RATIS or EC (the types this client writes)');
  if (typeof c.replicationAllowedConfigs !== 'string')
    throw new InvalidOptionError(
      K.replicationAllowedConfigs,
      'must be a regular expression (empty: allow all)',
    );
  try {
    new RegExp(c.replicationAllowedConfigs);
  } catch (err) {
    throw new InvalidOptionError(K.replicationAllowedConfigs, (err as Error).message);
  }
  if (c.replication !== undefined) {
    if (typeof c.replication !== 'string' || c.replication === '')
      throw new InvalidOptionError(K.replication, 'must be a non-empty replication (THREE, rs-3-2-1024k)');
    try {
      checkReplicationAllowed(
        parseReplication(c.replication, c.replicationType),
        c.replicationAllowedConfigs,
      );
    } catch (err) {
      if (err instanceof OzoneError) throw new InvalidOptionError(K.replication, err.message);
      throw err;
    }
  }
  if (!Number.isInteger(c.ecStripeWriteMaxRetries) || c.ecStripeWriteMaxRetries < 0)
    throw new InvalidOptionError(K.ecStripeWriteMaxRetries, 'must be an integer ≥ 0');
  validateDataStreamSettings(c);
  return c;
}

/** The streaming-write settings: sizes Java's BlockDataStreamOutput divides by one another. */
function validateDataStreamSettings(c: OzoneClientConfig): void {
  const K = OZONE_CLIENT_CONFIG_KEYS;
  for (const flag of ['dataStreamEnabled', 'dataStreamChainRouting'] as const)
    if (typeof c[flag] !== 'boolean') throw new InvalidOptionError(K[flag], 'must be a boolean');
  for (const size of ['dataStreamAutoThresholdBytes', 'dataStreamSyncSizeBytes'] as const)
    if (!Number.isSafeInteger(c[size]) || c[size] < 0)
      throw new InvalidOptionError(K[size], 'must be an integer ≥ 0');
  if (
    !Number.isInteger(c.dataStreamPacketBytes) ||
    c.dataStreamPacketBytes <= 0 ||
    c.dataStreamPacketBytes > 64 * MB
  )
    throw new InvalidOptionError(K.dataStreamPacketBytes, 'must be an integer from 1 to 64MB');
  // A PutBlock covers whole packets, and the window whole PutBlocks (Java counts both in packets).
  if (
    !Number.isSafeInteger(c.dataStreamFlushSizeBytes) ||
    c.dataStreamFlushSizeBytes < c.dataStreamPacketBytes
  )
    throw new InvalidOptionError(
      K.dataStreamFlushSizeBytes,
      `must be an integer ≥ ${K.dataStreamPacketBytes} (${c.dataStreamPacketBytes})`,
    );
  if (!Number.isSafeInteger(c.dataStreamWindowBytes) || c.dataStreamWindowBytes < c.dataStreamFlushSizeBytes)
    throw new InvalidOptionError(
      K.dataStreamWindowBytes,
      `must be an integer ≥ ${K.dataStreamFlushSizeBytes} (${c.dataStreamFlushSizeBytes})`,
    );
}
