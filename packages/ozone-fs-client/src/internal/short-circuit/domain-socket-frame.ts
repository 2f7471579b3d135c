// The framing of container commands on a datanode's Unix domain socket (Ozone's short-circuit
// read, HDDS-10685): a big-endian short DATA_TRANSFER_VERSION, a big-endian short cmdType, then
// the protobuf message prefixed with its varint length (Java's writeDelimitedTo). The answer has
// the same shape; a granted GetBlock is followed by one byte, DATA_TRANSFER_MAGIC_CODE, that
// carries the block file's descriptor as SCM_RIGHTS ancillary data.

/** The protocol version both sides write first. */
export const DATA_TRANSFER_VERSION = 28;
/** The one-byte payload that carries the passed descriptor. */
export const DATA_TRANSFER_MAGIC_CODE = 99;
/** Largest message either side accepts (the datanode's gRPC limit, OZONE_SCM_CHUNK_MAX_SIZE). */
export const MAX_FRAME_MESSAGE_BYTES = 32 * 1024 * 1024;

/** A frame that cannot be what the protocol says (wrong version, a length out of range). */
export class FrameError extends Error {}

export function encodeFrame(cmdType: number, message: Uint8Array): Buffer {
  const varint: number[] = [];
  for (let n = message.length; ; n = Math.floor(n / 128)) {
    if (n < 128) {
      varint.push(n);
      break;
    }
    varint.push((n % 128) | 0x80);
  }
  const out = Buffer.allocUnsafe(4 + varint.length + message.length);
  out.writeUInt16BE(DATA_TRANSFER_VERSION, 0);
  out.writeUInt16BE(cmdType, 2);
  Buffer.from(varint).copy(out, 4);
  out.set(message, 4 + varint.length);
  return out;
}

export interface Frame {
  version: number;
  cmdType: number;
  message: Buffer;
  /** Bytes of the input the frame took. */
  frameBytes: number;
}

/**
 * The first frame of `input`, or undefined when more bytes are needed. Throws a
 * {@link FrameError} on a version other than {@link DATA_TRANSFER_VERSION} or a length past
 * {@link MAX_FRAME_MESSAGE_BYTES}.
 */
export function decodeFrame(input: Buffer): Frame | undefined {
  if (input.length < 2) return undefined;
  const version = input.readUInt16BE(0);
  if (version !== DATA_TRANSFER_VERSION)
    throw new FrameError(`data transfer version ${version}, expected ${DATA_TRANSFER_VERSION}`);
  if (input.length < 4) return undefined;
  const cmdType = input.readUInt16BE(2);
  let length = 0;
  let at = 4;
  for (let shift = 1; ; shift *= 128) {
    if (at >= input.length) return undefined;
    const b = input[at++] as number;
    length += (b & 0x7f) * shift;
    if (length > MAX_FRAME_MESSAGE_BYTES)
      throw new FrameError(`a message of more than ${MAX_FRAME_MESSAGE_BYTES} bytes`);
    if ((b & 0x80) === 0) break;
  }
  if (input.length < at + length) return undefined;
  return { version, cmdType, message: input.subarray(at, at + length), frameBytes: at + length };
}
