// A hand-written decoder for the datanode's answers on the read path (ContainerCommandResponseProto
// carrying ReadChunk, GetBlock or ReadBlock). It builds no protobufjs message, Long or reader per
// answer: 64-bit IDs become bigints, offsets and lengths numbers, and every `bytes` field a view
// of the received buffer, so a 1 MiB ReadChunk answer costs a handful of small objects and its
// data is checksummed and copied from where it arrived. The generated codecs stay the reference:
// a property test decodes random answers with both and compares.
import { OzoneProtocolError } from '../../ozone-errors.js';
import { BYTES, Cursor, expectWire, Malformed, missing, VARINT } from './proto-cursor.js';

/** DatanodeBlockID. */
export interface BlockIdView {
  containerID: bigint;
  localID: bigint;
  blockCommitSequenceId: bigint;
}

/** ChecksumData; `checksums` are views of the answer. */
export interface ChecksumDataView {
  type: number;
  bytesPerChecksum: number;
  checksums: Uint8Array[];
}

/** ChunkInfo as the read path needs it (its metadata and stripe checksum are skipped). */
export interface ChunkInfoView {
  chunkName: string;
  offset: number;
  len: number;
  checksumData: ChecksumDataView;
}

export interface GetBlockAnswer {
  blockData: { blockID: BlockIdView; chunks: ChunkInfoView[]; size: number | undefined };
}

export interface ReadChunkAnswer {
  blockID: BlockIdView;
  chunkData: ChunkInfoView;
  /** The data: V0's one `data` field, or V1's `dataBuffers` (preferred when both are present). */
  parts: Buffer[];
}

export interface ReadBlockAnswer {
  checksumData: ChecksumDataView;
  /** Block offset of this piece. */
  offset: number;
  data: Buffer;
}

/** A ContainerCommandResponseProto with the read path's bodies decoded; other bodies are skipped. */
export interface ContainerAnswer {
  cmdType: number;
  result: number;
  message: string | undefined;
  getBlock: GetBlockAnswer | undefined;
  readChunk: ReadChunkAnswer | undefined;
  readBlock: ReadBlockAnswer | undefined;
}

function blockId(c: Cursor, end: number): BlockIdView {
  let containerID: bigint | undefined;
  let localID: bigint | undefined;
  let bcsid = 0n;
  while (c.pos < end) {
    const tag = c.uint32(end);
    const field = tag >>> 3;
    const wire = tag & 7;
    if (field === 1) {
      expectWire(field, wire, VARINT, 'DatanodeBlockID');
      containerID = c.int64(end);
    } else if (field === 2) {
      expectWire(field, wire, VARINT, 'DatanodeBlockID');
      localID = c.int64(end);
    } else if (field === 3) {
      expectWire(field, wire, VARINT, 'DatanodeBlockID');
      bcsid = c.uint64(end);
    } else c.skip(wire, end);
  }
  if (containerID === undefined) missing('DatanodeBlockID', 'containerID');
  if (localID === undefined) missing('DatanodeBlockID', 'localID');
  return { containerID, localID, blockCommitSequenceId: bcsid };
}

function checksumData(c: Cursor, end: number, lazy = false): ChecksumDataView {
  let type: number | undefined;
  let bpc: number | undefined;
  const checksums: Uint8Array[] | undefined = lazy ? undefined : [];
  const start = c.pos;
  while (c.pos < end) {
    const tag = c.uint32(end);
    const field = tag >>> 3;
    const wire = tag & 7;
    if (field === 1) {
      expectWire(field, wire, VARINT, 'ChecksumData');
      type = c.int32(end);
    } else if (field === 2) {
      expectWire(field, wire, VARINT, 'ChecksumData');
      bpc = c.uint32(end);
    } else if (field === 3) {
      expectWire(field, wire, BYTES, 'ChecksumData');
      if (checksums) checksums.push(c.bytes(end));
      else c.pos = c.delimited(end);
    } else c.skip(wire, end);
  }
  if (type === undefined) missing('ChecksumData', 'type');
  if (bpc === undefined) missing('ChecksumData', 'bytesPerChecksum');
  if (checksums) return { type, bytesPerChecksum: bpc, checksums };
  return new LazyChecksumData(type, bpc, c.buf, start, end);
}

/**
 * ChecksumData whose checksums are made into views only when asked for. A ReadChunk answer
 * repeats the chunk's checksums, one per window (64 in a 1 MiB answer with 16 KiB windows), and
 * the reader checks the data against the ones GetBlock listed, so they are usually never read.
 * The message was walked once already: it is known to be well formed.
 */
class LazyChecksumData implements ChecksumDataView {
  #checksums: Uint8Array[] | undefined;
  readonly #buf: Buffer;
  readonly #start: number;
  readonly #end: number;
  constructor(
    readonly type: number,
    readonly bytesPerChecksum: number,
    buf: Buffer,
    start: number,
    end: number,
  ) {
    this.#buf = buf;
    this.#start = start;
    this.#end = end;
  }

  get checksums(): Uint8Array[] {
    if (!this.#checksums) {
      const c = new Cursor(this.#buf);
      c.pos = this.#start;
      this.#checksums = checksumData(c, this.#end).checksums;
    }
    return this.#checksums;
  }
}

function chunkInfo(c: Cursor, end: number, lazyChecksums = false): ChunkInfoView {
  let chunkName: string | undefined;
  let offset: number | undefined;
  let len: number | undefined;
  let cd: ChecksumDataView | undefined;
  while (c.pos < end) {
    const tag = c.uint32(end);
    const field = tag >>> 3;
    const wire = tag & 7;
    if (field === 1) {
      expectWire(field, wire, BYTES, 'ChunkInfo');
      chunkName = c.string(end);
    } else if (field === 2) {
      expectWire(field, wire, VARINT, 'ChunkInfo');
      offset = c.uint64Number(end, 'ChunkInfo.offset');
    } else if (field === 3) {
      expectWire(field, wire, VARINT, 'ChunkInfo');
      len = c.uint64Number(end, 'ChunkInfo.len');
    } else if (field === 5) {
      expectWire(field, wire, BYTES, 'ChunkInfo');
      cd = checksumData(c, c.delimited(end), lazyChecksums);
    } else c.skip(wire, end);
  }
  if (chunkName === undefined) missing('ChunkInfo', 'chunkName');
  if (offset === undefined) missing('ChunkInfo', 'offset');
  if (len === undefined) missing('ChunkInfo', 'len');
  if (cd === undefined) missing('ChunkInfo', 'checksumData');
  return { chunkName, offset, len, checksumData: cd };
}

function getBlock(c: Cursor, end: number): GetBlockAnswer {
  let blockData: GetBlockAnswer['blockData'] | undefined;
  while (c.pos < end) {
    const tag = c.uint32(end);
    const field = tag >>> 3;
    const wire = tag & 7;
    if (field === 1) {
      expectWire(field, wire, BYTES, 'GetBlockResponseProto');
      blockData = blockDataOf(c, c.delimited(end));
    } else c.skip(wire, end);
  }
  if (blockData === undefined) missing('GetBlockResponseProto', 'blockData');
  return { blockData };
}

function blockDataOf(c: Cursor, end: number): GetBlockAnswer['blockData'] {
  let id: BlockIdView | undefined;
  let size: number | undefined;
  const chunks: ChunkInfoView[] = [];
  while (c.pos < end) {
    const tag = c.uint32(end);
    const field = tag >>> 3;
    const wire = tag & 7;
    if (field === 1) {
      expectWire(field, wire, BYTES, 'BlockData');
      id = blockId(c, c.delimited(end));
    } else if (field === 4) {
      expectWire(field, wire, BYTES, 'BlockData');
      chunks.push(chunkInfo(c, c.delimited(end)));
    } else if (field === 5) {
      expectWire(field, wire, VARINT, 'BlockData');
      // int64 on the wire; a block's size is far below 2^53.
      size = c.uint64Number(end, 'BlockData.size');
    } else c.skip(wire, end);
  }
  if (id === undefined) missing('BlockData', 'blockID');
  return { blockID: id, chunks, size };
}

function readChunk(c: Cursor, end: number): ReadChunkAnswer {
  let id: BlockIdView | undefined;
  let chunk: ChunkInfoView | undefined;
  let data: Buffer | undefined;
  let buffers: Buffer[] | undefined;
  while (c.pos < end) {
    const tag = c.uint32(end);
    const field = tag >>> 3;
    const wire = tag & 7;
    if (field === 1) {
      expectWire(field, wire, BYTES, 'ReadChunkResponseProto');
      id = blockId(c, c.delimited(end));
    } else if (field === 2) {
      expectWire(field, wire, BYTES, 'ReadChunkResponseProto');
      chunk = chunkInfo(c, c.delimited(end), true);
    } else if (field === 3) {
      expectWire(field, wire, BYTES, 'ReadChunkResponseProto');
      data = c.bytes(end);
    } else if (field === 4) {
      expectWire(field, wire, BYTES, 'ReadChunkResponseProto');
      buffers = dataBuffers(c, c.delimited(end));
    } else c.skip(wire, end);
  }
  if (id === undefined) missing('ReadChunkResponseProto', 'blockID');
  if (chunk === undefined) missing('ReadChunkResponseProto', 'chunkData');
  return { blockID: id, chunkData: chunk, parts: buffers ?? (data ? [data] : []) };
}

function dataBuffers(c: Cursor, end: number): Buffer[] {
  const out: Buffer[] = [];
  while (c.pos < end) {
    const tag = c.uint32(end);
    const field = tag >>> 3;
    const wire = tag & 7;
    if (field === 1) {
      expectWire(field, wire, BYTES, 'DataBuffers');
      out.push(c.bytes(end));
    } else c.skip(wire, end);
  }
  return out;
}

function readBlock(c: Cursor, end: number): ReadBlockAnswer {
  let cd: ChecksumDataView | undefined;
  let offset: number | undefined;
  let data: Buffer | undefined;
  while (c.pos < end) {
    const tag = c.uint32(end);
    const field = tag >>> 3;
    const wire = tag & 7;
    if (field === 1) {
      expectWire(field, wire, BYTES, 'ReadBlockResponseProto');
      cd = checksumData(c, c.delimited(end));
    } else if (field === 2) {
      expectWire(field, wire, VARINT, 'ReadBlockResponseProto');
      offset = c.uint64Number(end, 'ReadBlockResponseProto.offset');
    } else if (field === 3) {
      expectWire(field, wire, BYTES, 'ReadBlockResponseProto');
      data = c.bytes(end);
    } else c.skip(wire, end);
  }
  if (cd === undefined) missing('ReadBlockResponseProto', 'checksumData');
  if (offset === undefined) missing('ReadBlockResponseProto', 'offset');
  if (data === undefined) missing('ReadBlockResponseProto', 'data');
  return { checksumData: cd, offset, data };
}

/**
 * Decodes one answer. Bodies other than GetBlock, ReadChunk and ReadBlock are skipped (the read
 * path has no use for them); a malformed answer is an {@link OzoneProtocolError} naming `address`.
 */
export function decodeContainerAnswer(raw: Buffer, address: string): ContainerAnswer {
  const c = new Cursor(raw);
  const end = raw.length;
  const answer: ContainerAnswer = {
    cmdType: 0,
    result: 0,
    message: undefined,
    getBlock: undefined,
    readChunk: undefined,
    readBlock: undefined,
  };
  let seen = 0;
  try {
    while (c.pos < end) {
      const tag = c.uint32(end);
      const field = tag >>> 3;
      const wire = tag & 7;
      switch (field) {
        case 1:
          expectWire(field, wire, VARINT, 'ContainerCommandResponseProto');
          answer.cmdType = c.int32(end);
          seen |= 1;
          break;
        case 3:
          expectWire(field, wire, VARINT, 'ContainerCommandResponseProto');
          answer.result = c.int32(end);
          seen |= 2;
          break;
        case 4:
          expectWire(field, wire, BYTES, 'ContainerCommandResponseProto');
          answer.message = c.string(end);
          break;
        case 12:
          expectWire(field, wire, BYTES, 'ContainerCommandResponseProto');
          answer.getBlock = getBlock(c, c.delimited(end));
          break;
        case 16:
          expectWire(field, wire, BYTES, 'ContainerCommandResponseProto');
          answer.readChunk = readChunk(c, c.delimited(end));
          break;
        case 25:
          expectWire(field, wire, BYTES, 'ContainerCommandResponseProto');
          answer.readBlock = readBlock(c, c.delimited(end));
          break;
        default:
          if (field === 0) throw new Malformed('a field numbered 0');
          c.skip(wire, end);
      }
    }
    if ((seen & 1) === 0) missing('ContainerCommandResponseProto', 'cmdType');
    if ((seen & 2) === 0) missing('ContainerCommandResponseProto', 'result');
  } catch (err) {
    if (err instanceof Malformed)
      throw new OzoneProtocolError(address, `undecodable response: ${err.message}`, err);
    throw err;
  }
  return answer;
}
