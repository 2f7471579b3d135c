// The content of a Ratis request that carries a container command, as Ozone's datanodes read it
// (ContainerCommandRequestMessage): a 4-byte big-endian length N, the ContainerCommandRequestProto
// of N bytes without its bulk data, then the bulk data. Keeping the chunk's bytes outside the
// protobuf lets the datanode's state machine write them to disk without parsing them as a field.
import protobuf from 'protobufjs/minimal.js';
import { OzoneInvalidArgumentError, OzoneProtocolError } from '../../ozone-errors.js';
import { CLIENT_VERSION } from '../grpc/om-transport.js';
import { Cursor } from '../proto/proto-cursor.js';
import { dn, has, type hadoop } from '../proto/wire.js';

type ContainerCommandRequest = hadoop.hdds.datanode.IContainerCommandRequestProto;

const LENGTH_BYTES = 4;

/**
 * A container command as Ratis message content, in pieces: the length prefix with the header,
 * then WriteChunk's `data` as it is (not copied: the Ratis client writes the pieces into its one
 * request buffer). `pipelineID` is left out: a datanode fails the whole Ratis stream when it
 * differs from the group's UUID string, and fills it in itself when absent.
 *
 * @throws OzoneInvalidArgumentError for a WriteChunk without data (a datanode fails the stream on one).
 */
export function containerCommandMessagePieces(request: ContainerCommandRequest): Uint8Array[] {
  const { pipelineID: _ignored, ...rest } = request;
  let payload: Uint8Array | undefined;
  let header: ContainerCommandRequest = rest;
  if (request.writeChunk) {
    const { data, ...writeChunk } = request.writeChunk;
    // A StreamInit carries a WriteChunk that only names the block: no data, and none expected.
    if (request.cmdType === dn.Type.WriteChunk && (!data || data.length === 0))
      throw new OzoneInvalidArgumentError(
        'a WriteChunk sent through Ratis needs data (an empty one fails the stream)',
      );
    if (data && data.length > 0) payload = data;
    header = { ...rest, writeChunk };
  }
  const headerBytes = dn.ContainerCommandRequestProto.encode(header).finish();
  const head = Buffer.allocUnsafe(LENGTH_BYTES + headerBytes.length);
  head.writeUInt32BE(headerBytes.length, 0);
  head.set(headerBytes, LENGTH_BYTES);
  return payload ? [head, payload] : [head];
}

/** Field tags (number << 3 | wire type) of the PutBlock path: the command's putBlock, its blockData, BlockData's chunks and size. */
const PUT_BLOCK_FIELD = 12;
const PUT_BLOCK_TAG = (PUT_BLOCK_FIELD << 3) | 2;
const BLOCK_DATA_TAG = (1 << 3) | 2;
const CHUNKS_TAG = (4 << 3) | 2;
const SIZE_TAG = 5 << 3;
const EOF_TAG = 2 << 3;
const AUTO_CREATE_TAG = 3 << 3;

/**
 * A block's chunk list as PutBlock carries it (BlockData's repeated field 4), each ChunkInfo
 * encoded once, when it is added. Every PutBlock names all of the block's chunks so far, so
 * encoding the list each time costs the square of a block's chunks: 256 ChunkInfos of 64 checksums
 * each by the end of a 256 MiB block of 1 MiB packets, most of a streamed writer's protobuf time.
 */
export class EncodedChunkList {
  #buffer = Buffer.allocUnsafe(4096);
  #length = 0;
  #count = 0;

  get count(): number {
    return this.#count;
  }

  /**
   * The list's bytes so far. Appends write only past them (a longer list moves to a new buffer),
   * so a view handed out stays as it was while a send holds it.
   */
  get bytes(): Buffer {
    return this.#buffer.subarray(0, this.#length);
  }

  append(chunk: hadoop.hdds.datanode.IChunkInfo): void {
    const entry = protobuf.Writer.create();
    dn.ChunkInfo.encode(chunk, entry.uint32(CHUNKS_TAG).fork()).ldelim();
    const bytes = entry.finish();
    if (this.#length + bytes.length > this.#buffer.length) {
      const grown = Buffer.allocUnsafe(Math.max(2 * this.#buffer.length, this.#length + bytes.length));
      grown.set(this.bytes, 0);
      this.#buffer = grown;
    }
    this.#buffer.set(bytes, this.#length);
    this.#length += bytes.length;
    this.#count++;
  }
}

/**
 * A PutBlock as Ratis message content, in pieces, byte for byte what
 * {@link containerCommandMessagePieces} gives for `request` with `chunks` as its block's chunk
 * list, without encoding the list again: the command's fields before putBlock, putBlock's and
 * blockData's tags and lengths, blockData's fields before its chunks; the list as it is; then
 * blockData's size, putBlock's flags and the command's fields after putBlock.
 *
 * @param request a PutBlock whose blockData names no chunks (they are `chunks`).
 * @throws OzoneInvalidArgumentError for a request that is not such a PutBlock.
 */
export function putBlockMessagePieces(
  request: ContainerCommandRequest,
  chunks: EncodedChunkList,
): Uint8Array[] {
  const { pipelineID: _ignored, putBlock, ...rest } = request;
  const blockData = putBlock?.blockData;
  if (request.cmdType !== dn.Type.PutBlock || !blockData)
    throw new OzoneInvalidArgumentError('putBlockMessagePieces takes a PutBlock with its block data');
  if (blockData.chunks && blockData.chunks.length > 0)
    throw new OzoneInvalidArgumentError("a PutBlock's chunks come from its encoded chunk list");
  const { chunks: _none, size, ...blockHead } = blockData;
  const command = Buffer.from(dn.ContainerCommandRequestProto.encode(rest).finish());
  const split = firstFieldAfter(command, PUT_BLOCK_FIELD);
  const blockHeadBytes = dn.BlockData.encode(blockHead).finish();
  const tail = protobuf.Writer.create();
  if (size != null) tail.uint32(SIZE_TAG).int64(size);
  const blockTailLength = tail.len;
  if (putBlock.eof != null) tail.uint32(EOF_TAG).bool(putBlock.eof);
  if (putBlock.containerAutoCreate != null) tail.uint32(AUTO_CREATE_TAG).bool(putBlock.containerAutoCreate);
  const putBlockTailLength = tail.len - blockTailLength;
  const list = chunks.bytes;
  const blockDataLength = blockHeadBytes.length + list.length + blockTailLength;
  const blockDataField = protobuf.Writer.create().uint32(BLOCK_DATA_TAG).uint32(blockDataLength).finish();
  const putBlockLength = blockDataField.length + blockDataLength + putBlockTailLength;
  const putBlockField = protobuf.Writer.create().uint32(PUT_BLOCK_TAG).uint32(putBlockLength).finish();
  const tags = Buffer.concat([putBlockField, blockDataField]);
  const headerLength = command.length + tags.length + blockDataLength + putBlockTailLength;
  const head = Buffer.allocUnsafe(LENGTH_BYTES + split + tags.length + blockHeadBytes.length);
  head.writeUInt32BE(headerLength, 0);
  head.set(command.subarray(0, split), LENGTH_BYTES);
  head.set(tags, LENGTH_BYTES + split);
  head.set(blockHeadBytes, LENGTH_BYTES + split + tags.length);
  return [head, list, Buffer.concat([tail.finish(), command.subarray(split)])];
}

/** The offset of the first top-level field numbered above `field` in an encoded message (its length if none). */
function firstFieldAfter(message: Buffer, field: number): number {
  const cursor = new Cursor(message);
  while (cursor.pos < message.length) {
    const start = cursor.pos;
    const tag = cursor.uint32(message.length);
    if (tag >>> 3 > field) return start;
    cursor.skip(tag & 7, message.length);
  }
  return message.length;
}

/** {@link containerCommandMessagePieces} joined into one buffer. */
export function encodeContainerCommandMessage(request: ContainerCommandRequest): Buffer {
  return Buffer.concat(containerCommandMessagePieces(request));
}

/**
 * Decodes Ratis message content back into the container command, WriteChunk's `data` a view of
 * the payload; `version` is 3 when the sender left it out, as a datanode assumes.
 *
 * @param from who sent it, for the error message.
 * @throws OzoneProtocolError for content shorter than its length prefix says, or a header that is not a command.
 */
export function decodeContainerCommandMessage(content: Uint8Array, from: string): ContainerCommandRequest {
  if (content.length < LENGTH_BYTES)
    throw new OzoneProtocolError(
      from,
      `a container-command message of ${content.length} bytes has no length prefix`,
    );
  const view = Buffer.from(content.buffer, content.byteOffset, content.length);
  const headerLength = view.readUInt32BE(0);
  if (headerLength > view.length - LENGTH_BYTES)
    throw new OzoneProtocolError(
      from,
      `a container-command message says its header has ${headerLength} bytes, but ${view.length - LENGTH_BYTES} follow`,
    );
  let header: hadoop.hdds.datanode.ContainerCommandRequestProto;
  try {
    header = dn.ContainerCommandRequestProto.decode(view.subarray(LENGTH_BYTES, LENGTH_BYTES + headerLength));
  } catch (err) {
    throw new OzoneProtocolError(
      from,
      'a container-command header that is not a ContainerCommandRequestProto',
      err,
    );
  }
  const payload = view.subarray(LENGTH_BYTES + headerLength);
  const request: ContainerCommandRequest = header;
  if (!has(header, 'version')) request.version = CLIENT_VERSION;
  if (payload.length > 0) {
    if (!request.writeChunk)
      throw new OzoneProtocolError(
        from,
        `a ${dn.Type[header.cmdType] ?? header.cmdType} message with a payload of ${payload.length} bytes`,
      );
    request.writeChunk.data = payload;
  }
  return request;
}
