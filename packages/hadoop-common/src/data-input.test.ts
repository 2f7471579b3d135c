import fc from 'fast-check';
import { DataInput, TEXT_DEFAULT_MAX_LEN } from './data-input.js';
import { DataOutput } from './data-output.js';
import { WireFormatError } from './wire-format-error.js';
import { expectError } from '@fastpath/test-support';

const input = (h: string): DataInput => new DataInput(Buffer.from(h.replace(/ /g, ''), 'hex'));

const wireError = (fn: () => unknown): WireFormatError =>
  expectError(fn, WireFormatError, { code: 'ERR_WIRE_FORMAT', retriable: false });

describe('DataInput.readVLong', () => {
  it('accepts the non-minimal forms Hadoop accepts', () => {
    expect(input('8F 00').readVLong()).toBe(0n);
    expect(input('8E 00 05').readVLong()).toBe(5n);
    expect(input('87 00').readVLong()).toBe(-1n);
  });

  it('wraps eight magnitude bytes into the sign bit, as a Java long does', () => {
    expect(input('88 FFFFFFFFFFFFFFFF').readVLong()).toBe(-1n);
    expect(input('80 FFFFFFFFFFFFFFFF').readVLong()).toBe(0n);
    expect(input('88 8000000000000000').readVLong()).toBe(-(1n << 63n));
  });

  it('reports truncation instead of reading past the end', () => {
    expect(wireError(() => input('').readVLong()).message).toMatch(/truncated/);
    expect(wireError(() => input('8E 03').readVLong()).message).toMatch(/truncated/);
    expect(wireError(() => input('88 7FFFFFFFFFFFFF').readVLong()).message).toMatch(/truncated/);
  });
});

describe('DataInput.readVInt', () => {
  it('refuses values outside 32 bits', () => {
    expect(input('8C 7FFFFFFF').readVInt()).toBe(2 ** 31 - 1);
    expect(input('84 7FFFFFFF').readVInt()).toBe(-(2 ** 31));
    expect(wireError(() => input('8C 80000000').readVInt()).message).toBe(
      'value too long to fit in integer: 2147483648',
    );
    expect(wireError(() => input('84 80000000').readVInt()).message).toMatch(
      /value too long to fit in integer/,
    );
  });
});

describe('DataInput.readText', () => {
  it('reads UTF-8 of the given byte length', () => {
    const bytes = new DataOutput().writeText('').writeText('bjørn').writeText('日本😀').toBuffer();
    const reader = new DataInput(bytes);
    expect(reader.readText()).toBe('');
    expect(reader.readText()).toBe('bjørn');
    expect(reader.readText()).toBe('日本😀');
    reader.expectEnd();
  });

  it('refuses a length equal to or above the maximum, and negative lengths', () => {
    expect(input('09 414141414141414141').readText(10)).toBe('AAAAAAAAA');
    expect(wireError(() => input('0A 41414141414141414141').readText(10)).message).toBe(
      'text length 10 is not below the maximum 10',
    );
    expect(wireError(() => input('FF').readText()).message).toBe('text length -1 is negative');
    expect(wireError(() => input('8C 80000000').readText()).message).toMatch(/too long to fit/);
  });

  it('applies Text.DEFAULT_MAX_LEN by default', () => {
    const atLimit = new DataOutput()
      .writeVInt(TEXT_DEFAULT_MAX_LEN)
      .writeRaw(Buffer.alloc(TEXT_DEFAULT_MAX_LEN, 0x61));
    wireError(() => new DataInput(atLimit.toBuffer()).readText());
    const below = new DataOutput().writeText('a'.repeat(TEXT_DEFAULT_MAX_LEN - 1)).toBuffer();
    expect(new DataInput(below).readText()).toHaveLength(TEXT_DEFAULT_MAX_LEN - 1);
  });

  it('checks a huge claimed length against the bytes present before reading', () => {
    // 2^31-2 claimed, nothing follows: fails on the length, without allocating for it.
    const err = wireError(() => input('8C 7FFFFFFE').readText(Number.MAX_SAFE_INTEGER));
    expect(err.message).toMatch(/truncated input: a text needs 2147483646 bytes at offset 5, 0 left/);
  });

  it('decodes malformed UTF-8 to U+FFFD as Hadoop does', () => {
    expect(input('02 C328').readText()).toBe('\uFFFD(');
  });
});

describe('DataInput fixed-size and raw reads', () => {
  it('reads ints, bytes and optional byte arrays', () => {
    const reader = input('FFFFFFFE 0000018BCFE56800 80 FF 02 0908 00 0102');
    expect(reader.readInt32()).toBe(-2);
    expect(reader.readInt64()).toBe(1_700_000_000_000n);
    expect(reader.readByte()).toBe(-128);
    expect(reader.readVIntBytes()).toBeNull();
    expect(reader.readVIntBytes()?.toString('hex')).toBe('0908');
    expect(reader.readVIntBytes()?.length).toBe(0);
    expect(reader.offset).toBe(18);
    expect(reader.remaining).toBe(2);
    wireError(() => reader.expectEnd());
    expect(reader.readRaw(2).toString('hex')).toBe('0102');
    reader.expectEnd();
  });

  it('refuses impossible lengths and truncated fixed-size values', () => {
    expect(wireError(() => input('FE').readVIntBytes()).message).toBe('byte array length -2 is negative');
    expect(wireError(() => input('05 0102030405').readVIntBytes(4)).message).toBe(
      'byte array length 5 is more than the maximum 4',
    );
    expect(input('04 01020304').readVIntBytes(4)?.length).toBe(4);
    wireError(() => input('8C 7FFFFFFF').readVIntBytes());
    wireError(() => input('000000').readInt32());
    wireError(() => input('00000000000000').readInt64());
    wireError(() => input('00').readRaw(2));
    wireError(() => input('00').readRaw(-1));
    wireError(() => input('00').readRaw(0.5));
  });

  it('copies what it returns, so the input can be reused', () => {
    const source = Buffer.from('0102', 'hex');
    const raw = new DataInput(source).readRaw(2);
    source[0] = 0xff;
    expect(raw.toString('hex')).toBe('0102');
  });

  it('reads a view into a larger buffer at its own offset', () => {
    const big = Buffer.from('AAAA 01 BBBB'.replace(/ /g, ''), 'hex');
    const reader = new DataInput(big.subarray(2, 3));
    expect(reader.readByte()).toBe(1);
    reader.expectEnd();
  });

  it('refuses what is not a byte array', () => {
    wireError(() => new DataInput('00' as unknown as Uint8Array));
  });

  it('never throws anything but WireFormatError on arbitrary bytes and reads', () => {
    const read = fc.constantFrom<(r: DataInput) => unknown>(
      (r) => r.readByte(),
      (r) => r.readVLong(),
      (r) => r.readVInt(),
      (r) => r.readText(),
      (r) => r.readText(8),
      (r) => r.readInt32(),
      (r) => r.readInt64(),
      (r) => r.readVIntBytes(),
      (r) => r.readVIntBytes(16),
      (r) => r.readRaw(3),
      (r) => r.expectEnd(),
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.array(read, { maxLength: 12 }), (bytes, reads) => {
        const reader = new DataInput(bytes);
        try {
          for (const r of reads) r(reader);
        } catch (err) {
          expect(err).toBeInstanceOf(WireFormatError);
        }
        expect(reader.offset).toBeLessThanOrEqual(bytes.length);
      }),
      { numRuns: 2000 },
    );
  });
});
