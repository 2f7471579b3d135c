import fc from 'fast-check';
import { writeVLong } from '../../test/support/token-writer.js';
import { WritableFormatError, WritableReader } from './writable-reader.js';

const read = (hex: string): bigint => new WritableReader(Buffer.from(hex.replace(/ /g, ''), 'hex')).vlong();

describe('WritableReader', () => {
  it('reads the VLong examples of WritableUtils', () => {
    expect(read('00')).toBe(0n);
    expect(read('7F')).toBe(127n);
    expect(read('90')).toBe(-112n);
    expect(read('8F 80')).toBe(128n);
    expect(read('8E 03 E8')).toBe(1000n);
    expect(read('87 70')).toBe(-113n);
    expect(read('8A 01 8B CF E5 68 00')).toBe(1_700_000_000_000n);
  });

  it('reads back every 64-bit value the writer encodes', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), (v) => {
        const reader = new WritableReader(writeVLong(v));
        expect(reader.vlong()).toBe(v);
        expect(reader.remaining).toBe(0);
      }),
    );
  });

  it('refuses a VInt outside the int range and truncated input', () => {
    expect(() => new WritableReader(writeVLong(2n ** 31n)).vint()).toThrow(WritableFormatError);
    expect(() => new WritableReader(writeVLong(-(2n ** 31n) - 1n)).vint()).toThrow(WritableFormatError);
    expect(new WritableReader(writeVLong(-(2n ** 31n))).vint()).toBe(-(2 ** 31));
    expect(() => read('8E 03')).toThrow(WritableFormatError);
    expect(() => new WritableReader(Buffer.from([5, 0x61])).text('owner', 100)).toThrow(/exceeds/);
  });

  it('refuses text longer than its limit, negative lengths and invalid UTF-8', () => {
    expect(() => new WritableReader(Buffer.from([3, 0x61, 0x62, 0x63])).text('owner', 2)).toThrow(
      /owner length 3/,
    );
    expect(() => new WritableReader(writeVLong(-1n)).text('owner', 10)).toThrow(/owner length -1/);
    expect(() => new WritableReader(Buffer.from([2, 0xc3, 0x28])).text('owner', 10)).toThrow(/UTF-8/);
    expect(new WritableReader(Buffer.from([2, 0xc3, 0xa9])).text('owner', 10)).toBe('é');
  });
});
