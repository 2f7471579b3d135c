// What the shared suites (the client contract, the file-system reads, the writes) need of a cluster. The
// embedded mini cluster and Ozone's own MiniOzoneCluster each provide one adapter; cluster
// differences live there, the assertions in the suites.
import type {
  ChecksumTypeName,
  ClientTlsOptions,
  DatanodeTransport,
  OzoneClientConfig,
  OzoneClientOptions,
} from '../../index.js';

/** One key a suite needs written, with the layout to write it in. */
export interface ContractKeySpec {
  /** Volume of the key; the suite has created it. */
  volume: string;
  /** Bucket of the key; the suite has created it. */
  bucket: string;
  /** Key name within the bucket. */
  key: string;
  /** Length of the key in bytes. */
  sizeBytes: number;
  /** Seed of `contractKeyBytes`. */
  seed: number;
  /** Checksum type to write (`ozone.client.checksum.type`). */
  checksumType: ChecksumTypeName;
  /** Bytes covered by each checksum (`ozone.client.bytes.per.checksum`). */
  bytesPerChecksum: number;
  /** Bytes per chunk (`ozone.client.stream.buffer.size`). */
  chunkSizeBytes: number;
  /** Bytes per block (`ozone.scm.block.size`). */
  blockSizeBytes: number;
  /** Replication factor (RATIS/THREE unless a test only needs the bytes back). */
  replication: 'ONE' | 'THREE';
}

/** One erasure-coded key a suite needs written by the cluster's own writer. */
export interface EcContractKeySpec {
  /** Volume of the key; the suite has created it. */
  volume: string;
  /** Bucket of the key; the suite has created it. */
  bucket: string;
  /** Key name within the bucket. */
  key: string;
  /** Length of the key in bytes. */
  sizeBytes: number;
  /** Seed of `contractKeyBytes`. */
  seed: number;
  /** Ozone's text form of the EC config, e.g. `rs-3-2-1024k`. */
  replication: string;
  /** Key bytes per block group, as the capabilities state it (a real cluster's block size decides it there). */
  blockGroupBytes: number;
}

/** One internal block's replica on one datanode, as the EC fault hooks address it. */
export interface ContractBlockReplicaRef {
  /** The datanode holding it. */
  datanodeUuid: string;
  /** The block group's container. */
  containerId: bigint;
  /** The block group's id in its container. */
  localId: bigint;
  /** Offset of the byte to damage, within that replica's internal block. */
  offsetInBlock: number;
}

/** A key's replica, as fault hooks address it. */
export interface ContractReplicaRef {
  /** Volume of the key. */
  volume: string;
  /** Bucket of the key. */
  bucket: string;
  /** Key name within the bucket. */
  key: string;
  /** Offset of the byte to damage, within the key. */
  offsetInKey: number;
  /** Which replica, in the order fastpath tries them (0: the first). */
  replica: number;
}

/** ReadChunk activity summed over every datanode, as the datanodes themselves count it. */
export interface ReadChunkCounters {
  /** ReadChunk requests served. */
  calls: number;
  /** Bytes those requests asked for and got (after the client's widening). */
  bytes: number;
}

/** A committed key as the OM records it, read by the cluster's own side (not fastpath's codecs). */
export interface ClusterKeyRecord {
  /** The key's length in bytes (`KeyInfo.dataSize`). */
  dataSize: number;
  /** The key's blocks in key order (the latest version's `KeyLocation`s); empty for an empty key. */
  blocks: Array<{
    /** The container holding the block. */
    containerId: bigint;
    /** The block's id within its container. */
    localId: bigint;
    /** The block's BCSID as the OM committed it: the Raft log index of its last PutBlock. */
    blockCommitSequenceId: bigint;
    /** The bytes of the key in this block. */
    lengthBytes: number;
  }>;
}

/** What Ozone's Java client read of a whole key, checksums verified. */
export interface JavaKeyReadResult {
  /** How many bytes the Java client read, to the end of the key. */
  bytesRead: number;
  /** SHA-256 of the bytes read, lower-case hex. */
  sha256: string;
}

/**
 * What the suites need of a cluster. Optional hooks a cluster cannot offer leave their tests out
 * of that cluster's run (the capabilities say which, at registration time).
 */
export interface OzoneClusterAdapter {
  /**
   * The OM as the client's `omAddress` takes it: `host:port` of its gRPC service, or of its Hadoop
   * RPC server with `ozone.om.transport.class` naming Hadoop RPC in `clientOptions.properties`, or
   * an OM service id (with its keys there).
   */
  readonly omAddress: string;
  /** The TLS options clients need (the cluster's CA); absent for a cluster serving plain text. */
  readonly tls?: ClientTlsOptions;
  /** Extra client options (e.g. shorter retry intervals). */
  readonly clientOptions?: Partial<OzoneClientOptions>;
  /**
   * Writes `spec` with the cluster's own writer (Ozone's Java client on a real cluster), with the
   * bytes of `contractKeyBytes(spec.sizeBytes, spec.seed)`. Absent: the suite writes with fastpath's client.
   */
  writeKey?(spec: ContractKeySpec): Promise<void>;
  /** Flips one byte of one replica of a key. */
  corruptReplica?(ref: ContractReplicaRef): Promise<void>;
  /** Writes an erasure-coded key with the cluster's own writer (`contractKeyBytes(sizeBytes, seed)`). */
  writeEcKey?(spec: EcContractKeySpec): Promise<void>;
  /** Flips one byte of one datanode's replica of a block (an EC internal block: the datanode holding that index). */
  corruptBlockReplica?(ref: ContractBlockReplicaRef): Promise<void>;
  /** Stops the datanode holding the given replica of the key's first block; returns a restart function. */
  stopReplica?(ref: Omit<ContractReplicaRef, 'offsetInKey'>): Promise<() => Promise<void>>;
  /** Stops one datanode (by UUID) at once, whatever it holds; returns a function that starts it again. */
  stopDatanode?(uuid: string): Promise<() => Promise<void>>;
  /** The OM's record of a committed key, read by the cluster's own side; `undefined` when it has none. */
  lookupKey?(volume: string, bucket: string, key: string): Promise<ClusterKeyRecord | undefined>;
  /** Reads a whole key with Ozone's own Java client, checksums verified. */
  readKeyWithJava?(volume: string, bucket: string, key: string): Promise<JavaKeyReadResult>;
  /** Lists a bucket's keys under `prefix` with Ozone's own Java client: name and size each. */
  listKeysWithJava?(
    volume: string,
    bucket: string,
    prefix: string,
  ): Promise<
    Array<{
      /** The key name within the bucket (the prefix included). */
      name: string;
      /** The key's length in bytes, as the OM lists it. */
      sizeBytes: number;
    }>
  >;
  /** The datanodes' own ReadChunk counters now (the suites take differences around one read). */
  readChunkCounters?(): Promise<ReadChunkCounters>;
}

/** Which optional parts of the suites a cluster runs. */
export interface OzoneContractCapabilities {
  /** Whether the adapter has `corruptReplica` (the tests of a damaged replica then run). */
  corruptReplica: boolean;
  /** Whether the adapter has `stopReplica` and `stopDatanode`. */
  stopDatanode: boolean;
  /** Whether fastpath's own client writes keys there (both clusters now: it writes through Ratis). */
  fastpathWrites: boolean;
  /** Whether the adapter has `readChunkCounters` (the widening is then checked at the datanodes too). */
  datanodeCounters?: boolean;
  /**
   * Whether Ozone's own Java client works there (`writeKey`, `readKeyWithJava`, `listKeysWithJava`,
   * `lookupKey`): the write suite then has it read back every key fastpath wrote and writes a key
   * of its own beside them. Default: false.
   */
  javaClient?: boolean;
  /**
   * Erasure-coded keys (the EC read suite): the config its keys are written in and the key bytes
   * of a block group there. Absent: the cluster does not run the EC suite.
   */
  ec?: {
    /** Ozone's text form of the config, e.g. `rs-3-2-1024k`. */
    replication: string;
    /** Key bytes held by one block group (d × the block size). */
    blockGroupBytes: number;
  };
  /** Size of the large key, default 64 MiB. */
  largeKeyBytes?: number;
  /**
   * Whether the write suite writes a whole 256 MiB block (16 flushes against the buffer limit).
   * Default: true; off where a run repeats the suite on a cluster whose writes are already
   * covered at that size (it is the suite's longest case).
   */
  wholeBlockWrites?: boolean;
}

/** The same cluster, its suites' clients given `config` over what the adapter gives them. */
function withClientConfig(
  adapter: () => OzoneClusterAdapter,
  config: Partial<OzoneClientConfig>,
): () => OzoneClusterAdapter {
  return () => {
    const a = adapter();
    return {
      ...a,
      clientOptions: { ...a.clientOptions, config: { ...a.clientOptions?.config, ...config } },
    };
  };
}

/** The same cluster, its suites' clients reading with `transport` (`ozone.client.datanode.transport`). */
export function withDatanodeTransport(
  adapter: () => OzoneClusterAdapter,
  transport: DatanodeTransport,
): () => OzoneClusterAdapter {
  return withClientConfig(adapter, { datanodeTransport: transport });
}

/**
 * The adapter with its clients streaming every key they write (Ratis DataStream:
 * `ozone.fs.datastream.enabled` with a threshold of 0), for a cluster whose datanodes stream
 * (`dataStream` of either cluster). The write suite then streams each of its keys.
 */
export function withDataStreamWrites(adapter: () => OzoneClusterAdapter): () => OzoneClusterAdapter {
  return withClientConfig(adapter, { dataStreamEnabled: true, dataStreamAutoThresholdBytes: 0 });
}

/**
 * The adapter with its clients' Ratis streams on `channel`'s HTTP/2 session
 * (`ozone.client.ratis.grpc.channel`): the write suite then writes every RATIS key over it.
 */
export function withRatisChannel(
  adapter: () => OzoneClusterAdapter,
  channel: OzoneClientConfig['ratisGrpcChannel'],
): () => OzoneClusterAdapter {
  return withClientConfig(adapter, { ratisGrpcChannel: channel });
}

/**
 * The same cluster, its suites' clients doing the data path's byte work with `engine`
 * (`ozone.client.bulk.engine`): the suites then show both engines give the same bytes.
 */
export function withBulkEngine(
  adapter: () => OzoneClusterAdapter,
  engine: OzoneClientConfig['bulkEngine'],
): () => OzoneClusterAdapter {
  return withClientConfig(adapter, { bulkEngine: engine });
}
