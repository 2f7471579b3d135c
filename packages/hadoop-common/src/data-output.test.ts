import fc from 'fast-check';
import { DataInput } from './data-input.js';
import { DataOutput } from './data-output.js';
import { WireFormatError } from './wire-format-error.js';

const hex = (b: Buffer): string => b.toString('hex').toUpperCase();
const vlong = (v: bigint | number): string => hex(new DataOutput().writeVLong(v).toBuffer());

describe('DataOutput.writeVLong', () => {
  // Expected bytes written out by hand from WritableUtils' rules, not produced by this code.
  it.each<[bigint | number, string]>([
    [0, '00'],
    [127, '7F'],
    [-112, '90'],
    [128, '8F80'],
    [1000, '8E03E8'],
    [-113, '8770'],
    [1_700_000_000_000, '8A018BCFE56800'], // epoch ms 2023-11-14: 41 bits, 6 magnitude bytes
    [-1, 'FF'],
    [1, '01'],
    [-111, '91'],
    [-128, '877F'],
    [-129, '8780'],
    [255, '8FFF'],
    [256, '8E0100'],
    [65535, '8EFFFF'],
    [65536, '8D010000'],
    [2 ** 31 - 1, '8C7FFFFFFF'],
    [2 ** 31, '8C80000000'],
    [-(2 ** 31), '847FFFFFFF'],
    [-(2 ** 31) - 1, '8480000000'],
    [2 ** 32, '8B0100000000'],
    [Number.MAX_SAFE_INTEGER, '891FFFFFFFFFFFFF'],
    [Number.MIN_SAFE_INTEGER, '811FFFFFFFFFFFFE'],
    [(1n << 63n) - 1n, '887FFFFFFFFFFFFFFF'],
    [1n << 62n, '884000000000000000'],
    [-(1n << 63n), '807FFFFFFFFFFFFFFF'],
    [-(1n << 63n) + 1n, '807FFFFFFFFFFFFFFE'],
  ])('%p → %s', (value, expected) => {
    expect(vlong(value)).toBe(expected);
    expect(new DataInput(Buffer.from(expected, 'hex')).readVLong()).toBe(BigInt(value));
  });

  it.each<[bigint | number]>([[1n << 63n], [-(1n << 63n) - 1n], [1.5], [Number.NaN], [2 ** 53], [Infinity]])(
    'refuses %p',
    (value) => {
      expect(() => new DataOutput().writeVLong(value)).toThrow(WireFormatError);
    },
  );

  it('round-trips every 64-bit value in the fewest bytes the format allows', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n }), (value) => {
        const bytes = new DataOutput().writeVLong(value).toBuffer();
        const input = new DataInput(bytes);
        expect(input.readVLong()).toBe(value);
        input.expectEnd();
        let magnitude = value < 0n ? ~value : value;
        let size = 0;
        while (magnitude !== 0n) {
          magnitude >>= 8n;
          size++;
        }
        expect(bytes.length).toBe(value >= -112n && value <= 127n ? 1 : 1 + size);
      }),
    );
  });
});

describe('DataOutput.writeVInt', () => {
  it('uses the VLong encoding', () => {
    fc.assert(
      fc.property(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), (value) => {
        expect(new DataOutput().writeVInt(value).toBuffer()).toEqual(
          new DataOutput().writeVLong(value).toBuffer(),
        );
        expect(new DataInput(new DataOutput().writeVInt(value).toBuffer()).readVInt()).toBe(value);
      }),
    );
  });

  it.each([2 ** 31, -(2 ** 31) - 1, 0.5])('refuses %p, which does not fit an int', (value) => {
    expect(() => new DataOutput().writeVInt(value)).toThrow(WireFormatError);
  });
});

describe('DataOutput other writes', () => {
  it('writes Text as VInt byte length and UTF-8', () => {
    expect(hex(new DataOutput().writeText('').toBuffer())).toBe('00');
    expect(hex(new DataOutput().writeText('kms-dt').toBuffer())).toBe('066B6D732D6474');
    // ø is two UTF-8 bytes, 😀 four: the length counts bytes, not UTF-16 units.
    expect(hex(new DataOutput().writeText('ø😀').toBuffer())).toBe('06C3B8F09F9880');
    const long = 'x'.repeat(200);
    expect(hex(new DataOutput().writeText(long).toBuffer().subarray(0, 3))).toBe('8FC878');
  });

  it('refuses a string with a lone surrogate instead of replacing it', () => {
    expect(() => new DataOutput().writeText('a\uD800b')).toThrow(WireFormatError);
    expect(() => new DataOutput().writeText('\uDC00')).toThrow(WireFormatError);
  });

  it('writes fixed-size big-endian ints', () => {
    const out = new DataOutput()
      .writeInt32(-2)
      .writeInt32(0x01020304)
      .writeInt64(1_700_000_000_000)
      .writeInt64(-1n);
    expect(hex(out.toBuffer())).toBe('FFFFFFFE' + '01020304' + '0000018BCFE56800' + 'FFFFFFFFFFFFFFFF');
    expect(() => new DataOutput().writeInt32(2 ** 31)).toThrow(WireFormatError);
    expect(() => new DataOutput().writeInt64(1n << 63n)).toThrow(WireFormatError);
  });

  it('writes bytes, optional byte arrays and signed or unsigned bytes', () => {
    const out = new DataOutput()
      .writeByte(-1)
      .writeByte(255)
      .writeByte(0x7f)
      .writeVIntBytes(null)
      .writeVIntBytes(Buffer.from([9, 8]))
      .writeRaw(Uint8Array.of(1, 2));
    expect(hex(out.toBuffer())).toBe('FFFF7F' + 'FF' + '020908' + '0102');
    expect(out.length).toBe(9);
    expect(() => new DataOutput().writeByte(256)).toThrow(WireFormatError);
    expect(() => new DataOutput().writeByte(-129)).toThrow(WireFormatError);
  });

  it('grows past its initial capacity and keeps earlier bytes', () => {
    const out = new DataOutput(1);
    const chunk = Buffer.alloc(1000, 0xab);
    for (let i = 0; i < 50; i++) out.writeVInt(i).writeRaw(chunk);
    const input = new DataInput(out.toBuffer());
    for (let i = 0; i < 50; i++) {
      expect(input.readVInt()).toBe(i);
      expect(input.readRaw(1000).equals(chunk)).toBe(true);
    }
    input.expectEnd();
  });

  it('hands out a copy, so later writes do not change an earlier result', () => {
    const out = new DataOutput().writeByte(1);
    const first = out.toBuffer();
    out.writeByte(2);
    expect(hex(first)).toBe('01');
    expect(hex(out.toBuffer())).toBe('0102');
  });
});
