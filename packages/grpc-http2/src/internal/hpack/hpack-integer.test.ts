import { describe, expect, it } from '@jest/globals';
import { HTTP2_ERROR, Http2ProtocolError } from '../../grpc-http2-errors.js';
import { decodeInteger, encodedIntegerLength, encodeInteger, HPACK_MAX_INTEGER } from './hpack-integer.js';

function encode(value: number, prefixBits: number, flags = 0): number[] {
  const out = new Uint8Array(8);
  const end = encodeInteger(out, 0, value, prefixBits, flags);
  expect(end).toBe(encodedIntegerLength(value, prefixBits));
  return [...out.subarray(0, end)];
}

function decode(bytes: number[], prefixBits: number): { value: number; pos: number } {
  const cursor = { pos: 0 };
  const value = decodeInteger(Uint8Array.from(bytes), cursor, bytes.length, prefixBits);
  return { value, pos: cursor.pos };
}

function expectCompressionError(run: () => unknown, message: RegExp): void {
  let caught: unknown;
  try {
    run();
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(Http2ProtocolError);
  expect((caught as Http2ProtocolError).http2Code).toBe(HTTP2_ERROR.COMPRESSION_ERROR);
  expect((caught as Http2ProtocolError).message).toMatch(message);
}

describe('HPACK integers (RFC 7541 §5.1)', () => {
  it('C.1.1: 10 with a 5-bit prefix is one octet', () => {
    expect(encode(10, 5)).toEqual([0x0a]);
    expect(decode([0x0a], 5)).toEqual({ value: 10, pos: 1 });
  });

  it('C.1.2: 1337 with a 5-bit prefix is 1f 9a 0a', () => {
    expect(encode(1337, 5)).toEqual([0x1f, 0x9a, 0x0a]);
    expect(decode([0x1f, 0x9a, 0x0a], 5)).toEqual({ value: 1337, pos: 3 });
  });

  it('C.1.3: 42 starting at an octet boundary (8-bit prefix) is one octet', () => {
    expect(encode(42, 8)).toEqual([0x2a]);
    expect(decode([0x2a], 8)).toEqual({ value: 42, pos: 1 });
  });

  it('keeps the flags above the prefix when encoding and ignores them when decoding', () => {
    expect(encode(10, 5, 0xe0)).toEqual([0xea]);
    expect(decode([0xea], 5)).toEqual({ value: 10, pos: 1 });
    expect(encode(1337, 5, 0x20)).toEqual([0x3f, 0x9a, 0x0a]);
  });

  it('a value of exactly 2^N - 1 takes a zero continuation octet', () => {
    expect(encode(31, 5)).toEqual([0x1f, 0x00]);
    expect(decode([0x1f, 0x00], 5)).toEqual({ value: 31, pos: 2 });
  });

  it('round-trips values up to 2^31 - 1 for every prefix', () => {
    const values = [0, 1, 126, 127, 128, 255, 256, 16_383, 16_384, 2_097_151, 268_435_455, HPACK_MAX_INTEGER];
    for (let prefix = 1; prefix <= 8; prefix++) {
      for (const value of values) {
        const bytes = encode(value, prefix);
        expect(decode(bytes, prefix)).toEqual({ value, pos: bytes.length });
      }
    }
  });

  it('refuses an integer cut off by the end of the block', () => {
    expectCompressionError(() => decode([], 5), /ends inside an integer/);
    expectCompressionError(() => decode([0x1f], 5), /ends inside an integer/);
    expectCompressionError(() => decode([0x1f, 0x9a], 5), /ends inside an integer/);
  });

  it('refuses an integer above 2^31 - 1', () => {
    expectCompressionError(() => decode([0x7f, 0xff, 0xff, 0xff, 0xff, 0x0f], 7), /exceeds 2147483647/);
    // 2^31 exactly: 2^31 - 1 is the largest accepted.
    const max = encode(HPACK_MAX_INTEGER, 8);
    const over = [...max];
    over[1] = over[1]! + 1;
    expectCompressionError(() => decode(over, 8), /exceeds/);
  });

  it('refuses an integer padded with more than 5 continuation octets', () => {
    expect(decode([0x1f, 0x80, 0x80, 0x80, 0x80, 0x00], 5)).toEqual({ value: 31, pos: 6 });
    expectCompressionError(
      () => decode([0x1f, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00], 5),
      /more than 5 continuation octets/,
    );
  });
});
