import { decodeSaslReply, encodeSaslRequest, OP_SASL, splitFrames } from './sasl-frames.js';

/** A SASL answer frame as ZooKeeper's server writes it: length, ReplyHeader, SetSASLResponse. */
function answerFrame(xid: number, err: number, token: Buffer | null): Buffer {
  const tokenBytes = token === null ? 4 : 4 + token.length;
  const frame = Buffer.alloc(4 + 16 + tokenBytes);
  frame.writeInt32BE(16 + tokenBytes, 0);
  frame.writeInt32BE(xid, 4);
  frame.writeBigInt64BE(7n, 8);
  frame.writeInt32BE(err, 16);
  frame.writeInt32BE(token === null ? -1 : token.length, 20);
  token?.copy(frame, 24);
  return frame;
}

describe('SASL frames', () => {
  it('writes a request as length, RequestHeader { xid, 102 } and GetSASLRequest { token }', () => {
    const frame = encodeSaslRequest(5, Uint8Array.of(0xaa, 0xbb, 0xcc));
    expect([...frame]).toEqual([0, 0, 0, 15, 0, 0, 0, 5, 0, 0, 0, OP_SASL, 0, 0, 0, 3, 0xaa, 0xbb, 0xcc]);
    expect([...encodeSaslRequest(0, new Uint8Array(0))]).toEqual([
      0, 0, 0, 12, 0, 0, 0, 0, 0, 0, 0, 102, 0, 0, 0, 0,
    ]);
  });

  it('reads an answer with a token, with a null token, and an error answer without a body', () => {
    const withToken = splitFrames(answerFrame(3, 0, Buffer.from('tok'))).frames[0] as Buffer;
    expect(decodeSaslReply(withToken)).toEqual({ xid: 3, err: 0, token: Buffer.from('tok') });
    const last = splitFrames(answerFrame(4, 0, null)).frames[0] as Buffer;
    expect(decodeSaslReply(last)).toEqual({ xid: 4, err: 0, token: null });
    const bare = Buffer.alloc(16);
    bare.writeInt32BE(9, 0);
    bare.writeInt32BE(-124, 12);
    expect(decodeSaslReply(bare)).toEqual({ xid: 9, err: -124, token: null });
  });

  it('refuses a token longer than its frame', () => {
    const body = splitFrames(answerFrame(3, 0, Buffer.from('tok'))).frames[0] as Buffer;
    expect(() => decodeSaslReply(body.subarray(0, body.length - 1))).toThrow(RangeError);
  });

  it('splits bytes into whole frames and keeps a partial one', () => {
    const a = answerFrame(1, 0, Buffer.from('a'));
    const b = answerFrame(2, 0, null);
    const joined = Buffer.concat([a, b]);
    const { frames, rest } = splitFrames(joined.subarray(0, joined.length - 2));
    expect(frames.map((f) => f.readInt32BE(0))).toEqual([1]);
    expect(rest.length).toBe(b.length - 2);
    expect(splitFrames(Buffer.concat([rest, joined.subarray(joined.length - 2)])).frames).toHaveLength(1);
  });
});
