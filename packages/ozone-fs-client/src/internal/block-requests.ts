// The container commands of the read and write paths, filled as the Java client fills them.
import { CLIENT_VERSION } from './grpc/om-transport.js';
import { dn, int64, uint64, type hadoop } from './proto/wire.js';

export interface BlockRef {
  containerId: bigint;
  localId: bigint;
  blockCommitSequenceId: bigint;
  /** The block token from the OM (`encodedBlockToken`), sent with every command on the block; absent when the OM sent none. */
  encodedToken?: string | undefined;
  /**
   * The replica index of an erasure-coded block's internal block (1..d+p); a datanode refuses a
   * command whose index differs from its container's. Absent (0) for replicated blocks.
   */
  replicaIndex?: number | undefined;
}

export function datanodeBlockId(block: BlockRef): hadoop.hdds.datanode.IDatanodeBlockID {
  return {
    containerID: int64(block.containerId),
    localID: int64(block.localId),
    blockCommitSequenceId: uint64(block.blockCommitSequenceId),
    ...(block.replicaIndex ? { replicaIndex: block.replicaIndex } : {}),
  };
}

function envelope(
  cmdType: keyof typeof dn.Type,
  block: BlockRef,
  datanodeUuid: string,
): hadoop.hdds.datanode.IContainerCommandRequestProto {
  return {
    cmdType: dn.Type[cmdType],
    containerID: int64(block.containerId),
    datanodeUuid,
    version: CLIENT_VERSION,
    ...(block.encodedToken === undefined ? {} : { encodedToken: block.encodedToken }),
  };
}

/** GetBlock; `requestShortCircuitAccess` only on a datanode's domain socket (gRPC leaves the field out, as Java does). */
export function getBlockRequest(
  block: BlockRef,
  datanodeUuid: string,
  requestShortCircuitAccess = false,
): hadoop.hdds.datanode.IContainerCommandRequestProto {
  return {
    ...envelope('GetBlock', block, datanodeUuid),
    getBlock: {
      blockID: datanodeBlockId(block),
      ...(requestShortCircuitAccess ? { requestShortCircuitAccess: true } : {}),
    },
  };
}

/** The chunk a ReadChunk names: its name and its checksums, as GetBlock listed them. */
export interface ChunkToRead {
  chunkName: string;
  checksumData: { type: number; bytesPerChecksum: number; checksums?: Uint8Array[] | null };
}

export function readChunkRequest(
  block: BlockRef,
  chunk: ChunkToRead,
  offsetInBlock: number,
  length: number,
  datanodeUuid: string,
): hadoop.hdds.datanode.IContainerCommandRequestProto {
  return {
    ...envelope('ReadChunk', block, datanodeUuid),
    readChunk: {
      blockID: datanodeBlockId(block),
      chunkData: {
        chunkName: chunk.chunkName,
        offset: uint64(offsetInBlock),
        len: uint64(length),
        checksumData: chunk.checksumData,
      },
      readChunkVersion: dn.ReadChunkVersion.V1,
    },
  };
}

/** A request as it goes on the wire (for a stream that is not a channel's round trip). */
export function encodeRequest(request: hadoop.hdds.datanode.IContainerCommandRequestProto): Buffer {
  return Buffer.from(dn.ContainerCommandRequestProto.encode(request).finish());
}

/** A streaming ReadBlock of `length` bytes at `offset` of the block, in pieces of `responseDataSize` bytes. */
export function readBlockRequest(
  block: BlockRef,
  offset: number,
  length: number,
  responseDataSize: number,
  datanodeUuid: string,
): hadoop.hdds.datanode.IContainerCommandRequestProto {
  return {
    ...envelope('ReadBlock', block, datanodeUuid),
    readBlock: {
      blockID: datanodeBlockId(block),
      offset: uint64(offset),
      length: uint64(length),
      responseDataSize,
    },
  };
}

export function writeChunkRequest(
  block: BlockRef,
  chunk: hadoop.hdds.datanode.IChunkInfo,
  data: Uint8Array,
  datanodeUuid: string,
): hadoop.hdds.datanode.IContainerCommandRequestProto {
  return {
    ...envelope('WriteChunk', block, datanodeUuid),
    writeChunk: { blockID: datanodeBlockId(block), chunkData: chunk, data },
  };
}

/**
 * StreamInit: the content of a Ratis DataStream header. It names the block (a WriteChunk with its
 * block id and no chunk) so that each datanode opens the block's file; the data follows as raw
 * stream packets.
 */
export function streamInitRequest(
  block: BlockRef,
  datanodeUuid: string,
): hadoop.hdds.datanode.IContainerCommandRequestProto {
  return {
    ...envelope('StreamInit', block, datanodeUuid),
    writeChunk: { blockID: datanodeBlockId(block) },
  };
}

/**
 * PutBlock with the block's chunk list; `metadata` follows the `TYPE`=`KEY` entry every block
 * carries (an EC block adds `blockGroupLen`).
 */
export function putBlockRequest(
  block: BlockRef,
  chunks: hadoop.hdds.datanode.IChunkInfo[],
  sizeBytes: number,
  eof: boolean,
  datanodeUuid: string,
  metadata: readonly hadoop.hdds.datanode.IKeyValue[] = [],
): hadoop.hdds.datanode.IContainerCommandRequestProto {
  return {
    ...envelope('PutBlock', block, datanodeUuid),
    putBlock: {
      blockData: {
        blockID: datanodeBlockId(block),
        metadata: [{ key: 'TYPE', value: 'KEY' }, ...metadata],
        chunks,
        size: int64(BigInt(sizeBytes)),
      },
      eof,
    },
  };
}
