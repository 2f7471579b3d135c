import { FrameLengthRefused, FrameReader } from './frame-reader.js';

const be32 = (n: number): Buffer => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
};

describe('FrameReader', () => {
  it('splits frames across and within chunks, byte by byte', () => {
    const stream = Buffer.concat([
      be32(3),
      Buffer.from('abc'),
      be32(1),
      Buffer.from('d'),
      be32(2),
      Buffer.from('ef'),
    ]);
    const reader = new FrameReader(1024);
    const frames: string[] = [];
    for (const byte of stream) frames.push(...reader.push(Buffer.from([byte])).map((f) => f.toString()));
    expect(frames).toEqual(['abc', 'd', 'ef']);
    expect(reader.pendingBytes).toBe(0);
    expect(new FrameReader(1024).push(stream).map((f) => f.toString())).toEqual(['abc', 'd', 'ef']);
  });

  it('refuses a length above the maximum from its 4 bytes alone (a 2 GiB prefix allocates nothing)', () => {
    const reader = new FrameReader(128 * 1024 * 1024);
    const problem = (() => {
      try {
        reader.push(be32(0x7fffffff));
      } catch (e) {
        return (e as FrameLengthRefused).problem;
      }
      return undefined;
    })();
    expect(problem).toEqual({ kind: 'too-large', length: 0x7fffffff, max: 128 * 1024 * 1024 });
  });

  it('refuses a length prefix split across chunks', () => {
    const reader = new FrameReader(100);
    expect(reader.push(Buffer.from([0x00, 0x00]))).toEqual([]);
    expect(() => reader.push(Buffer.from([0x01, 0x00]))).toThrow(FrameLengthRefused);
  });

  it('refuses zero and negative lengths (2^31 reads as negative), and −1 first as a pre-v9 server', () => {
    const problemOf = (bytes: Buffer, reader = new FrameReader(100)): unknown => {
      try {
        reader.push(bytes);
      } catch (e) {
        return (e as FrameLengthRefused).problem;
      }
      return undefined;
    };
    expect(problemOf(be32(0))).toEqual({ kind: 'invalid', length: 0 });
    expect(problemOf(be32(0x80000000))).toEqual({ kind: 'invalid', length: -2147483648 });
    expect(problemOf(be32(0xffffffff))).toEqual({ kind: 'pre-v9' });
    const afterOne = new FrameReader(100);
    afterOne.push(Buffer.concat([be32(1), Buffer.from('x')]));
    expect(problemOf(be32(0xffffffff), afterOne)).toEqual({ kind: 'invalid', length: -1 });
  });
});
