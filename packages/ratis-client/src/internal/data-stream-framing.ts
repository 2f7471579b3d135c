// The frames of Ratis's DataStream protocol (ratis-netty's NettyDataStreamUtils), big-endian:
//
//   request (client → member): int64 header length + data length | int32 header length |
//                              DataStreamRequestHeaderProto | data (packetHeader.dataLength bytes)
//   reply (member → client):   int32 header length | DataStreamReplyHeaderProto |
//                              data (packetHeader.dataLength bytes; a RaftClientReplyProto or none)
//
// A request's data is never copied here: the caller writes the head this module builds and then
// its own buffers. TCP cuts the byte stream anywhere, so the readers take chunks as they come and
// hand on whole frames; a frame's data is a view of the chunk it arrived in when it lies whole in
// one, else one copy of exactly its length.
import type Long from 'long';
import { type ratis, raft, uint64 } from './proto/wire.js';

/** `DataStreamPacketHeaderProto.Type`. */
export const PACKET_TYPE = Object.freeze({ STREAM_HEADER: 0, STREAM_DATA: 1 });
/** `DataStreamPacketHeaderProto.Option` (Ratis's local FLUSH never goes on the wire). */
export const PACKET_OPTION = Object.freeze({ SYNC: 0, CLOSE: 1 });

/** One packet's header, with its 64-bit fields as numbers. */
export interface PacketHeader {
  /** The client's 16-byte id. */
  clientId: Uint8Array;
  /** {@link PACKET_TYPE}. */
  type: number;
  /** The call id of the stream's header request. */
  streamId: number;
  /** Data bytes sent on the stream before this packet. */
  streamOffset: number;
  /** Bytes of data after the header. */
  dataLength: number;
  /** {@link PACKET_OPTION}s. */
  options: readonly number[];
}

/** A decoded reply frame. */
export interface ReplyFrame {
  header: PacketHeader;
  bytesWritten: number;
  success: boolean;
  commitInfos: ratis.common.ICommitInfoProto[];
  /** The reply's data: empty for a plain reply, a serialized RaftClientReplyProto for a failure. */
  data: Buffer;
}

/** Bytes that cannot be read as the protocol's frames; the connection they came on is useless after. */
export class DataStreamFramingError extends Error {}

// Headers carry ids, offsets and commit infos: far below this. A larger length is garbage.
const MAX_HEADER_BYTES = 1 << 20;

/**
 * The head of a request frame in one buffer: the 12-byte prefix and the encoded header. The
 * packet's data (`header.dataLength` bytes) goes on the wire right after it, as the caller's own
 * buffers. Fields at their default stay off the wire, as Java's encoder leaves them.
 */
export function encodeRequestHead(header: PacketHeader): Buffer {
  const encoded = raft.DataStreamRequestHeaderProto.encode({
    packetHeader: packetHeaderProto(header),
  }).finish();
  const head = Buffer.allocUnsafe(12 + encoded.length);
  head.writeBigInt64BE(BigInt(encoded.length + header.dataLength), 0);
  head.writeInt32BE(encoded.length, 8);
  head.set(encoded, 12);
  return head;
}

/** A whole reply frame: the prefix, the header (with `data.length` as its dataLength) and the data. */
export function encodeReplyFrame(
  reply: Omit<ReplyFrame, 'data'>,
  data: Uint8Array = Buffer.alloc(0),
): Buffer {
  const proto: ratis.common.IDataStreamReplyHeaderProto = {
    packetHeader: packetHeaderProto({ ...reply.header, dataLength: data.length }),
  };
  if (reply.bytesWritten > 0) proto.bytesWritten = uint64(reply.bytesWritten);
  if (reply.success) proto.success = true;
  if (reply.commitInfos.length > 0) proto.commitInfos = reply.commitInfos;
  const encoded = raft.DataStreamReplyHeaderProto.encode(proto).finish();
  const frame = Buffer.allocUnsafe(4 + encoded.length + data.length);
  frame.writeInt32BE(encoded.length, 0);
  frame.set(encoded, 4);
  frame.set(data, 4 + encoded.length);
  return frame;
}

function packetHeaderProto(h: PacketHeader): ratis.common.IDataStreamPacketHeaderProto {
  const p: ratis.common.IDataStreamPacketHeaderProto = { clientId: h.clientId };
  if (h.type !== 0) p.type = h.type;
  if (h.streamId !== 0) p.streamId = uint64(h.streamId);
  if (h.streamOffset !== 0) p.streamOffset = uint64(h.streamOffset);
  if (h.dataLength !== 0) p.dataLength = uint64(h.dataLength);
  if (h.options.length > 0) p.options = [...h.options];
  return p;
}

function packetHeaderOf(p: ratis.common.IDataStreamPacketHeaderProto | null | undefined): PacketHeader {
  return {
    clientId: p?.clientId ?? new Uint8Array(0),
    type: p?.type ?? 0,
    streamId: safeNumber('streamId', p?.streamId),
    streamOffset: safeNumber('streamOffset', p?.streamOffset),
    dataLength: safeNumber('dataLength', p?.dataLength),
    options: p?.options ?? [],
  };
}

function safeNumber(field: string, value: Long | number | null | undefined): number {
  if (value == null) return 0;
  const n = typeof value === 'number' ? value : value.toNumber();
  if (!Number.isSafeInteger(n) || n < 0)
    throw new DataStreamFramingError(`${field} ${String(value)} is out of range`);
  return n;
}

/** Chunks received and not yet read; reads take from the front. */
class ByteQueue {
  readonly #chunks: Buffer[] = [];
  #offset = 0; // into the first chunk
  length = 0;

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.#chunks.push(chunk);
    this.length += chunk.length;
  }

  /** `n` bytes from the front (n ≤ length): a view when they lie in one chunk, else a copy. */
  take(n: number): Buffer {
    this.length -= n;
    const first = this.#chunks[0];
    if (n === 0 || first === undefined) return Buffer.alloc(0);
    if (first.length - this.#offset >= n) {
      const view = first.subarray(this.#offset, this.#offset + n);
      this.#advance(first, n);
      return view;
    }
    const out = Buffer.allocUnsafe(n);
    let filled = 0;
    while (filled < n) {
      const chunk = this.#chunks[0] as Buffer;
      const take = Math.min(chunk.length - this.#offset, n - filled);
      chunk.copy(out, filled, this.#offset, this.#offset + take);
      filled += take;
      this.#advance(chunk, take);
    }
    return out;
  }

  #advance(chunk: Buffer, n: number): void {
    this.#offset += n;
    if (this.#offset === chunk.length) {
      this.#chunks.shift();
      this.#offset = 0;
    }
  }
}

/**
 * Reads reply frames from the chunks of a connection, in order. `push` throws a
 * {@link DataStreamFramingError} when the bytes are not reply frames (a header that does not
 * decode, a length out of bounds); nothing more can be read after that.
 */
export class ReplyFrameReader {
  readonly #queue = new ByteQueue();
  #headerLength = -1;
  #pending: Omit<ReplyFrame, 'data'> | undefined;
  #broken = false;

  constructor(
    /** The largest reply data accepted (a serialized RaftClientReplyProto). */
    private readonly maxDataBytes: number,
    private readonly onReply: (reply: ReplyFrame) => void,
  ) {}

  /** Whether no frame is half read. */
  get atBoundary(): boolean {
    return this.#queue.length === 0 && this.#headerLength < 0 && this.#pending === undefined;
  }

  push(chunk: Buffer): void {
    if (this.#broken) throw new DataStreamFramingError('the reply stream is already unreadable');
    this.#queue.push(chunk);
    try {
      this.#drain();
    } catch (error) {
      this.#broken = true;
      throw error instanceof DataStreamFramingError
        ? error
        : new DataStreamFramingError(`a reply header that does not decode: ${(error as Error).message}`, {
            cause: error,
          });
    }
  }

  #drain(): void {
    const q = this.#queue;
    for (;;) {
      if (this.#pending === undefined && this.#headerLength < 0) {
        if (q.length < 4) return;
        const length = q.take(4).readInt32BE(0);
        if (length < 0 || length > MAX_HEADER_BYTES)
          throw new DataStreamFramingError(`a reply header length of ${length} bytes`);
        this.#headerLength = length;
      }
      if (this.#pending === undefined) {
        if (q.length < this.#headerLength) return;
        const proto = raft.DataStreamReplyHeaderProto.decode(q.take(this.#headerLength));
        this.#headerLength = -1;
        const header = packetHeaderOf(proto.packetHeader);
        if (header.dataLength > this.maxDataBytes)
          throw new DataStreamFramingError(
            `a reply with ${header.dataLength} bytes of data, more than the ${this.maxDataBytes} allowed`,
          );
        this.#pending = {
          header,
          bytesWritten: safeNumber('bytesWritten', proto.bytesWritten),
          success: proto.success === true,
          commitInfos: proto.commitInfos,
        };
      }
      const pending = this.#pending;
      if (q.length < pending.header.dataLength) return;
      this.#pending = undefined;
      this.onReply({ ...pending, data: q.take(pending.header.dataLength) });
    }
  }
}

/** A decoded request frame (the member's side). */
export interface RequestFrame {
  header: PacketHeader;
  data: Buffer;
}

/** Reads request frames, as a member's DataStream server does; errors as {@link ReplyFrameReader}'s. */
export class RequestFrameReader {
  readonly #queue = new ByteQueue();
  #bodyLength = -1;
  #headerBytes = 0;
  #header: PacketHeader | undefined;
  #broken = false;

  constructor(
    /** The largest packet data accepted. */
    private readonly maxDataBytes: number,
    private readonly onRequest: (request: RequestFrame) => void,
  ) {}

  push(chunk: Buffer): void {
    if (this.#broken) throw new DataStreamFramingError('the request stream is already unreadable');
    this.#queue.push(chunk);
    try {
      this.#drain();
    } catch (error) {
      this.#broken = true;
      throw error instanceof DataStreamFramingError
        ? error
        : new DataStreamFramingError(`a request header that does not decode: ${(error as Error).message}`, {
            cause: error,
          });
    }
  }

  #drain(): void {
    const q = this.#queue;
    for (;;) {
      if (this.#header === undefined) {
        // Both lengths are read before the header, so that a garbage length fails at once.
        if (this.#bodyLength < 0) {
          if (q.length < 12) return;
          const prefix = q.take(12);
          const body = prefix.readBigInt64BE(0);
          const headerLength = prefix.readInt32BE(8);
          if (headerLength < 0 || headerLength > MAX_HEADER_BYTES || body < BigInt(headerLength))
            throw new DataStreamFramingError(`request lengths ${body} and ${headerLength}`);
          if (body - BigInt(headerLength) > BigInt(this.maxDataBytes))
            throw new DataStreamFramingError(`a request of ${body} bytes, more than allowed`);
          this.#bodyLength = Number(body);
          this.#headerBytes = headerLength;
        }
        if (q.length < this.#headerBytes) return;
        const proto = raft.DataStreamRequestHeaderProto.decode(q.take(this.#headerBytes));
        const header = packetHeaderOf(proto.packetHeader);
        if (header.dataLength !== this.#bodyLength - this.#headerBytes)
          throw new DataStreamFramingError(
            `a request whose header says ${header.dataLength} bytes of data and whose frame ${this.#bodyLength - this.#headerBytes}`,
          );
        this.#header = header;
      }
      const header = this.#header;
      if (q.length < header.dataLength) return;
      this.#header = undefined;
      this.#bodyLength = -1;
      this.onRequest({ header, data: q.take(header.dataLength) });
    }
  }
}
