// HTTP/2's frame layout (RFC 9113 §4, §6): a 9-byte header (24-bit payload length, type, flags,
// 31-bit stream id) and the payload. The builders here make the frames the client sends; a DATA
// frame's header is built alone so that its payload can go to the socket as the caller's own
// buffer, uncopied.

/** The client's connection preface (RFC 9113 §3.4), sent before its first SETTINGS. */
export const CLIENT_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

export const FRAME_HEADER_BYTES = 9;

/** HTTP/2's frame types (RFC 9113 §6). */
export const FRAME = {
  /** Frame type DATA (0x0). */
  DATA: 0x0,
  /** Frame type HEADERS (0x1). */
  HEADERS: 0x1,
  /** Frame type PRIORITY (0x2). */
  PRIORITY: 0x2,
  /** Frame type RST_STREAM (0x3). */
  RST_STREAM: 0x3,
  /** Frame type SETTINGS (0x4). */
  SETTINGS: 0x4,
  /** Frame type PUSH_PROMISE (0x5). */
  PUSH_PROMISE: 0x5,
  /** Frame type PING (0x6). */
  PING: 0x6,
  /** Frame type GOAWAY (0x7). */
  GOAWAY: 0x7,
  /** Frame type WINDOW_UPDATE (0x8). */
  WINDOW_UPDATE: 0x8,
  /** Frame type CONTINUATION (0x9). */
  CONTINUATION: 0x9,
} as const;

/** HTTP/2's frame flags (RFC 9113 §6). */
export const FLAG = {
  /** DATA, HEADERS: the sender's last frame on the stream. */
  END_STREAM: 0x1,
  /** SETTINGS, PING: an acknowledgement. */
  ACK: 0x1,
  /** HEADERS, CONTINUATION: the header block ends in this frame. */
  END_HEADERS: 0x4,
  /** DATA, HEADERS: a pad length byte leads the payload, that many bytes of padding end it. */
  PADDED: 0x8,
  /** HEADERS: 5 bytes of priority follow the pad length. */
  PRIORITY: 0x20,
} as const;

/** HTTP/2's setting identifiers (RFC 9113 §6.5.2). */
export const SETTING = {
  /** SETTINGS_HEADER_TABLE_SIZE (0x1). */
  HEADER_TABLE_SIZE: 0x1,
  /** SETTINGS_ENABLE_PUSH (0x2). */
  ENABLE_PUSH: 0x2,
  /** SETTINGS_MAX_CONCURRENT_STREAMS (0x3). */
  MAX_CONCURRENT_STREAMS: 0x3,
  /** SETTINGS_INITIAL_WINDOW_SIZE (0x4). */
  INITIAL_WINDOW_SIZE: 0x4,
  /** SETTINGS_MAX_FRAME_SIZE (0x5). */
  MAX_FRAME_SIZE: 0x5,
  /** SETTINGS_MAX_HEADER_LIST_SIZE (0x6). */
  MAX_HEADER_LIST_SIZE: 0x6,
} as const;

/** Every stream's and the connection's window before SETTINGS or WINDOW_UPDATE change it. */
export const DEFAULT_WINDOW_BYTES = 65_535;
/** The largest frame payload either side may send until the other's SETTINGS allow more. */
export const DEFAULT_MAX_FRAME_BYTES = 16_384;
/** The largest SETTINGS_MAX_FRAME_SIZE (2^24 - 1). */
export const MAX_FRAME_BYTES_LIMIT = 16_777_215;
/** The largest window and stream id (2^31 - 1). */
export const MAX_WINDOW_BYTES = 2_147_483_647;
export const MAX_STREAM_ID = 2_147_483_647;

/** Writes a frame header at `at` of `target`. */
export function writeFrameHeader(
  target: Buffer,
  at: number,
  length: number,
  type: number,
  flags: number,
  streamId: number,
): void {
  target[at] = (length >>> 16) & 0xff;
  target[at + 1] = (length >>> 8) & 0xff;
  target[at + 2] = length & 0xff;
  target[at + 3] = type;
  target[at + 4] = flags;
  target.writeUInt32BE(streamId & 0x7fffffff, at + 5);
}

/** A frame whose payload is built in place: the header, then `payloadBytes` the caller fills. */
function frame(type: number, flags: number, streamId: number, payloadBytes: number): Buffer {
  const out = Buffer.allocUnsafe(FRAME_HEADER_BYTES + payloadBytes);
  writeFrameHeader(out, 0, payloadBytes, type, flags, streamId);
  return out;
}

/** A DATA frame's header alone: its payload follows as its own buffer(s). */
export function dataFrameHeader(streamId: number, length: number, endStream: boolean): Buffer {
  const out = Buffer.allocUnsafe(FRAME_HEADER_BYTES);
  writeFrameHeader(out, 0, length, FRAME.DATA, endStream ? FLAG.END_STREAM : 0, streamId);
  return out;
}

/** SETTINGS with the given (identifier, value) pairs. */
export function settingsFrame(settings: ReadonlyArray<readonly [number, number]>): Buffer {
  const out = frame(FRAME.SETTINGS, 0, 0, settings.length * 6);
  let at = FRAME_HEADER_BYTES;
  for (const [id, value] of settings) {
    out.writeUInt16BE(id, at);
    out.writeUInt32BE(value, at + 2);
    at += 6;
  }
  return out;
}

export function settingsAckFrame(): Buffer {
  return frame(FRAME.SETTINGS, FLAG.ACK, 0, 0);
}

export function windowUpdateFrame(streamId: number, increment: number): Buffer {
  const out = frame(FRAME.WINDOW_UPDATE, 0, streamId, 4);
  out.writeUInt32BE(increment & 0x7fffffff, FRAME_HEADER_BYTES);
  return out;
}

export function rstStreamFrame(streamId: number, errorCode: number): Buffer {
  const out = frame(FRAME.RST_STREAM, 0, streamId, 4);
  out.writeUInt32BE(errorCode, FRAME_HEADER_BYTES);
  return out;
}

/** GOAWAY naming the last stream the sender started processing, its error code and a short debug text. */
export function goawayFrame(lastStreamId: number, errorCode: number, debug = ''): Buffer {
  const text = Buffer.from(debug, 'utf8');
  const out = frame(FRAME.GOAWAY, 0, 0, 8 + text.length);
  out.writeUInt32BE(lastStreamId & 0x7fffffff, FRAME_HEADER_BYTES);
  out.writeUInt32BE(errorCode, FRAME_HEADER_BYTES + 4);
  text.copy(out, FRAME_HEADER_BYTES + 8);
  return out;
}

/** A PING (or its acknowledgement, with the 8 bytes it answers). */
export function pingFrame(opaque: Uint8Array, ack: boolean): Buffer {
  const out = frame(FRAME.PING, ack ? FLAG.ACK : 0, 0, 8);
  out.set(opaque.subarray(0, 8), FRAME_HEADER_BYTES);
  return out;
}

/**
 * A header block as HEADERS and as many CONTINUATION frames as `maxFrameBytes` (the peer's
 * SETTINGS_MAX_FRAME_SIZE) requires, in one buffer: the frames of one block must not be
 * interleaved with any other frame on the connection.
 */
export function headerFrames(
  streamId: number,
  block: Buffer,
  endStream: boolean,
  maxFrameBytes: number,
): Buffer {
  const count = Math.max(1, Math.ceil(block.length / maxFrameBytes));
  const out = Buffer.allocUnsafe(count * FRAME_HEADER_BYTES + block.length);
  let at = 0;
  for (let i = 0, from = 0; i < count; i++) {
    const length = Math.min(maxFrameBytes, block.length - from);
    const last = i === count - 1;
    const type = i === 0 ? FRAME.HEADERS : FRAME.CONTINUATION;
    const flags = (last ? FLAG.END_HEADERS : 0) | (i === 0 && endStream ? FLAG.END_STREAM : 0);
    writeFrameHeader(out, at, length, type, flags, streamId);
    block.copy(out, at + FRAME_HEADER_BYTES, from, from + length);
    at += FRAME_HEADER_BYTES + length;
    from += length;
  }
  return out;
}
