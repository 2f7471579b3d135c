// When a block may be read with Ozone 2.2.0's streaming ReadBlock, and what one request asks for.
// The datanode's side has two defects a client must steer around (HDDS-16207: an offset at or past
// the block's end gets no answer at all; HDDS-15857: chunks of unequal length get wrong checksums
// or an internal error), so both are decided here, before anything is sent.
import { CHECKSUM_TYPE_VALUES } from './checksum.js';

/** `DatanodeVersion.STREAM_BLOCK_SUPPORT`: a datanode reporting less does not know ReadBlock. */
export const STREAM_BLOCK_DATANODE_VERSION = 3;

/**
 * The window the datanode aligns a ReadBlock of a block without checksums to (Ozone 2.2.0's
 * `KeyValueHandler.STREAMING_BYTES_PER_CHUNK`).
 */
export const STREAMING_BYTES_PER_CHUNK = 64 * 1024;

/** Why a block is read with ReadChunk although ReadBlock is on. */
export type ReadBlockFallback = 'empty-block' | 'uneven-chunks' | 'old-datanode';

/** A chunk as the decision needs it: where GetBlock says it lies, and its checksum layout. */
export interface PlanChunk {
  /** Offset of the chunk in the block file (`ChunkInfo.offset`). */
  offset: number;
  /** `ChunkInfo.len`. */
  len: number;
  checksumData: { type: number; bytesPerChecksum: number };
}

/**
 * Whether a block must be read with ReadChunk: it has no bytes, a pipeline member reports a
 * `currentVersion` below 3 (or none), or its chunks break what 2.2.0's `getChecksums` assumes: every
 * chunk but the last as long as the first and (with checksums) a multiple of its bytes per
 * checksum, the last no longer than the first, one checksum type and window size throughout, and
 * the chunks back to back from offset 0 (the datanode reads the block file at block offsets).
 * Undefined: ReadBlock may be used.
 */
export function readBlockFallback(
  chunks: readonly PlanChunk[],
  datanodes: readonly { currentVersion?: number }[],
): ReadBlockFallback | undefined {
  const first = chunks[0];
  if (!first || chunks.every((c) => c.len === 0)) return 'empty-block';
  if (datanodes.some((d) => (d.currentVersion ?? 0) < STREAM_BLOCK_DATANODE_VERSION)) return 'old-datanode';
  const { type, bytesPerChecksum } = first.checksumData;
  const none = type === CHECKSUM_TYPE_VALUES.NONE;
  if (!none && bytesPerChecksum <= 0) return 'uneven-chunks';
  // A block of one chunk has no "every chunk but the last" to hold to the window.
  if (!none && chunks.length > 1 && first.len % bytesPerChecksum !== 0) return 'uneven-chunks';
  let start = 0;
  for (let i = 0; i < chunks.length; i++) {
    const c = chunks[i] as PlanChunk;
    if (c.offset !== start) return 'uneven-chunks';
    if (i < chunks.length - 1 ? c.len !== first.len : c.len > first.len || c.len === 0)
      return 'uneven-chunks';
    if (c.checksumData.type !== type) return 'uneven-chunks';
    if (!none && c.checksumData.bytesPerChecksum !== bytesPerChecksum) return 'uneven-chunks';
    start += c.len;
  }
  return undefined;
}

/**
 * Whether a positional read should be streamed rather than read with ReadChunk, by the bytes each
 * would fetch: the datanode streams whole checksum windows even when the client does not verify,
 * where ReadChunk then fetches exactly the read. Measured (the ozone-read benchmark), ReadBlock
 * kept up with ReadChunk at 1 MiB reads when both fetched the same windows and fell behind when it
 * fetched twice the bytes (1 MiB windows, verification off), so it is taken when it fetches at most
 * an eighth more than ReadChunk would.
 */
export function positionalReadBlockPays(
  offset: number,
  length: number,
  replicaLength: number,
  windowBytes: number,
  verifying: boolean,
): boolean {
  if (verifying) return true;
  const range = readBlockRange(offset, length, replicaLength, windowBytes, windowBytes);
  return range !== undefined && (range.end - range.alignedOffset - length) * 8 <= length;
}

/** One ReadBlock request and what the datanode will send for it. */
export interface ReadBlockRange {
  /** The request's `offset`: never at or past the replica's length. */
  offset: number;
  /** The request's `length`: never past the replica's length. */
  length: number;
  /**
   * The request's `responseDataSize`: whole windows, at most the configured size, and as even a
   * split of the asked windows as windows allow, so that the last piece (which the datanode fills
   * to this size whatever was asked) carries less than a window per piece beyond them.
   */
  responseDataSize: number;
  /** Where the first piece starts: `offset` moved back to its window. */
  alignedOffset: number;
  /** Where the last byte sent ends (exclusive): the datanode sends whole windows, up to the replica's end. */
  end: number;
}

/**
 * The request for `length` bytes at `offset` of a replica of `replicaLength` bytes whose windows
 * are `windowBytes` (its bytes per checksum, or {@link STREAMING_BYTES_PER_CHUNK} without
 * checksums), with pieces of at most `maxPieceBytes`. The length is clamped to the replica's end;
 * an offset at or past it (or nothing to read) is undefined: the caller has reached the end of
 * the block and must send nothing (2.2.0's datanode would never answer).
 */
export function readBlockRange(
  offset: number,
  length: number,
  replicaLength: number,
  windowBytes: number,
  maxPieceBytes: number,
): ReadBlockRange | undefined {
  if (!(offset >= 0) || !(length > 0) || offset >= replicaLength || !(windowBytes > 0)) return undefined;
  const clamped = Math.min(length, replicaLength - offset);
  const alignedOffset = offset - (offset % windowBytes);
  const rounded = Math.ceil((clamped + (offset - alignedOffset)) / windowBytes) * windowBytes;
  const end = Math.min(alignedOffset + rounded, replicaLength);
  const maxPiece = Math.max(windowBytes, Math.floor(maxPieceBytes / windowBytes) * windowBytes);
  const pieces = Math.ceil(rounded / maxPiece);
  const responseDataSize = Math.ceil(rounded / pieces / windowBytes) * windowBytes;
  return {
    offset,
    length: clamped,
    responseDataSize,
    alignedOffset,
    end,
  };
}
