import fc from 'fast-check';
import { decodeSharedCount, encodeSharedCount } from './shared-count.js';
import { WireFormatError } from './wire-format-error.js';

describe('shared count', () => {
  it.each<[number, string]>([
    [0, '00000000'],
    [1, '00000001'],
    [100, '00000064'],
    [65536, '00010000'],
    [-1, 'ffffffff'],
    [2 ** 31 - 1, '7fffffff'],
    [-(2 ** 31), '80000000'],
  ])('%p is 4 big-endian bytes %s', (value, hex) => {
    expect(encodeSharedCount(value).toString('hex')).toBe(hex);
    expect(decodeSharedCount(Buffer.from(hex, 'hex'))).toBe(value);
  });

  it('round-trips every int', () => {
    fc.assert(
      fc.property(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), (n) => {
        expect(decodeSharedCount(encodeSharedCount(n))).toBe(n);
      }),
    );
  });

  it('refuses values outside int range and data that is not exactly 4 bytes', () => {
    for (const n of [2 ** 31, -(2 ** 31) - 1, 0.5, Number.NaN]) {
      expect(() => encodeSharedCount(n)).toThrow(WireFormatError);
    }
    for (const len of [0, 1, 3, 5, 8]) {
      expect(() => decodeSharedCount(Buffer.alloc(len))).toThrow(
        'shared count data must be 4 bytes, got ' + len,
      );
    }
  });

  it('reads a view at its own offset', () => {
    const big = Buffer.from('aaaa0000002aaaaa', 'hex');
    expect(decodeSharedCount(big.subarray(2, 6))).toBe(42);
  });
});
