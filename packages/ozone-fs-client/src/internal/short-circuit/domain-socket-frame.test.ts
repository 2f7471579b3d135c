import { describe, expect, it } from '@jest/globals';
import { decodeFrame, encodeFrame, FrameError } from './domain-socket-frame.js';

describe('domain socket frame', () => {
  it('writes the two big-endian shorts and a varint-delimited message', () => {
    const message = Buffer.alloc(300, 0xab);
    const frame = encodeFrame(7, message);
    // 28 = 0x001c, GetBlock = 7, 300 = varint ac 02
    expect([...frame.subarray(0, 6)]).toEqual([0x00, 0x1c, 0x00, 0x07, 0xac, 0x02]);
    expect(frame.length).toBe(6 + 300);
    const decoded = decodeFrame(Buffer.concat([frame, Buffer.from([1, 2, 3])]));
    expect(decoded).toMatchObject({ version: 28, cmdType: 7, frameBytes: 306 });
    expect(decoded?.message.equals(message)).toBe(true);
  });

  it('waits for more bytes at every cut of a frame', () => {
    const frame = encodeFrame(22, Buffer.alloc(200, 1));
    for (let cut = 0; cut < frame.length; cut++) expect(decodeFrame(frame.subarray(0, cut))).toBeUndefined();
    expect(decodeFrame(frame)?.frameBytes).toBe(frame.length);
  });

  it('encodes an empty message', () => {
    expect([...encodeFrame(7, new Uint8Array(0))]).toEqual([0, 28, 0, 7, 0]);
  });

  it('refuses another version and an oversized length', () => {
    expect(() => decodeFrame(Buffer.from([0, 27, 0, 7, 0]))).toThrow(FrameError);
    expect(() => decodeFrame(Buffer.from([0, 28, 0, 7, 0xff, 0xff, 0xff, 0xff, 0x0f]))).toThrow(/more than/);
  });
});
