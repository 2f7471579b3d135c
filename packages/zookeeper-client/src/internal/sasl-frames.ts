// The two records of ZooKeeper's SASL exchange on the wire (jute, big-endian, length-prefixed
// frames): the request `RequestHeader { int xid; int type = 102 }` + `GetSASLRequest { buffer
// token }`, and the answer `ReplyHeader { int xid; long zxid; int err }` + `SetSASLResponse {
// buffer token }`. A jute buffer is an int length then the bytes; length -1 is a null buffer,
// which the server sends when its side is done (and along with an error code).

/** ZooKeeper's `OpCode.sasl`. */
export const OP_SASL = 102;

/** One SASL request frame, length prefix included. */
export function encodeSaslRequest(xid: number, token: Uint8Array): Buffer {
  const body = 4 + 4 + 4 + token.length;
  const frame = Buffer.alloc(4 + body);
  let offset = frame.writeInt32BE(body, 0);
  offset = frame.writeInt32BE(xid, offset);
  offset = frame.writeInt32BE(OP_SASL, offset);
  offset = frame.writeInt32BE(token.length, offset);
  Buffer.from(token.buffer, token.byteOffset, token.length).copy(frame, offset);
  return frame;
}

/** A decoded SASL answer. */
export interface SaslReply {
  readonly xid: number;
  /** ZooKeeper's error code; 0 for OK. */
  readonly err: number;
  /** The server's token; `null` when it sent none (its side is done, or it refused). */
  readonly token: Buffer | null;
}

/** The xid of a frame body (the frame without its length prefix). */
export function frameXid(body: Buffer): number {
  return body.readInt32BE(0);
}

/**
 * Decodes a SASL answer from a frame body (without its length prefix). Throws a RangeError when
 * the body is shorter than its fields say.
 */
export function decodeSaslReply(body: Buffer): SaslReply {
  const xid = body.readInt32BE(0);
  const err = body.readInt32BE(12);
  // An error answer may carry no body at all.
  if (body.length === 16) return { xid, err, token: null };
  const length = body.readInt32BE(16);
  if (length < 0) return { xid, err, token: null };
  if (20 + length > body.length) {
    throw new RangeError(`SASL answer token of ${length} bytes in a frame of ${body.length}`);
  }
  return { xid, err, token: Buffer.from(body.subarray(20, 20 + length)) };
}

/**
 * Splits `data` into complete frame bodies; `rest` holds the bytes of a frame not complete yet.
 */
export function splitFrames(data: Buffer): { frames: Buffer[]; rest: Buffer } {
  const frames: Buffer[] = [];
  let offset = 0;
  while (data.length - offset >= 4) {
    const size = data.readInt32BE(offset);
    if (size < 0) throw new RangeError(`negative frame length ${size}`);
    if (data.length - offset - 4 < size) break;
    frames.push(data.subarray(offset + 4, offset + 4 + size));
    offset += 4 + size;
  }
  return { frames, rest: data.subarray(offset) };
}
