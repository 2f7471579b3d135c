import fc from 'fast-check';
import { GrpcFramingError, GrpcMessageReader, grpcMessagePrefix } from './grpc-framing.js';

function framed(messages: Buffer[]): Buffer {
  return Buffer.concat(messages.flatMap((m) => [grpcMessagePrefix(m.length), m]));
}

/** Cuts `bytes` at the given points. */
function cut(bytes: Buffer, points: number[]): Buffer[] {
  const at = [...new Set(points.map((p) => p % (bytes.length + 1)))].sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let from = 0;
  for (const p of [...at, bytes.length]) {
    pieces.push(bytes.subarray(from, p));
    from = p;
  }
  return pieces;
}

describe('GrpcMessageReader', () => {
  it('gives back every message whole, however the stream is cut', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        (messages, points) => {
          const want = messages.map((m) => Buffer.from(m));
          const got: Buffer[] = [];
          const reader = new GrpcMessageReader(1 << 20, (m) => got.push(Buffer.from(m)));
          for (const piece of cut(framed(want), points)) reader.push(piece);
          expect(got).toEqual(want);
          expect(reader.atBoundary).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('hands on a message whole in one piece as a view of it, and copies a cut one once', () => {
    const a = Buffer.alloc(10_000, 1);
    const b = Buffer.alloc(10_000, 2);
    const bytes = framed([a, b]);
    const got: Buffer[] = [];
    const reader = new GrpcMessageReader(1 << 20, (m) => got.push(m));
    reader.push(bytes.subarray(0, 15_000));
    reader.push(bytes.subarray(15_000));
    // Whether two buffers share an ArrayBuffer says nothing (Node 24 pools allocations up to
    // 32 KiB in one 64 KiB slab): writing into the received bytes shows which message is a view.
    bytes.fill(9);
    expect(got[0]!.every((x) => x === 9)).toBe(true);
    expect(got[1]!.equals(b)).toBe(true);
  });

  it('assembles a cut message in the buffer its allocate gives, and only a cut one', () => {
    const a = Buffer.alloc(10_000, 1);
    const b = Buffer.alloc(10_000, 2);
    const bytes = framed([a, b]);
    const given: Buffer[] = [];
    const got: Buffer[] = [];
    const reader = new GrpcMessageReader(
      1 << 20,
      (m) => got.push(m),
      (length) => {
        const buffer = Buffer.alloc(length);
        given.push(buffer);
        return buffer;
      },
    );
    reader.push(bytes.subarray(0, 15_000));
    reader.push(bytes.subarray(15_000));
    expect(given).toHaveLength(1);
    expect(got[1]).toBe(given[0]);
    expect(got[0]!.equals(a)).toBe(true);
    expect(got[1]!.equals(b)).toBe(true);
  });

  it('says when the stream stops inside a message', () => {
    const reader = new GrpcMessageReader(1 << 20, () => {});
    reader.push(framed([Buffer.alloc(10)]).subarray(0, 8));
    expect(reader.atBoundary).toBe(false);
  });

  it('refuses a message over the bound (RESOURCE_EXHAUSTED) and a compressed one (INTERNAL)', () => {
    const reader = new GrpcMessageReader(100, () => {});
    expect(() => reader.push(framed([Buffer.alloc(101)]))).toThrow(GrpcFramingError);
    try {
      new GrpcMessageReader(100, () => {}).push(framed([Buffer.alloc(101)]));
    } catch (err) {
      expect((err as GrpcFramingError).grpcCode).toBe(8);
    }
    const compressed = framed([Buffer.alloc(3)]);
    compressed[0] = 1;
    expect(() => new GrpcMessageReader(100, () => {}).push(compressed)).toThrow(/compressed/);
  });
});
