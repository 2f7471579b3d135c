import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { calculateIv, ctrPositionOf } from './ctr-iv.js';

const hex = (s: string) => Buffer.from(s, 'hex');

/** IV + counter as one 128-bit big-endian sum, computed another way: with bigint arithmetic. */
function bigintSum(iv: Uint8Array, counter: bigint): Buffer {
  const sum = (BigInt(`0x${Buffer.from(iv).toString('hex')}`) + counter) % (1n << 128n);
  return Buffer.from(sum.toString(16).padStart(32, '0'), 'hex');
}

describe('calculateIv', () => {
  it('carries out of the low 8 bytes into the high 8 (the spec vector)', () => {
    expect(calculateIv(hex('0000000000000000ffffffffffffffff'), 2n).toString('hex')).toBe(
      '00000000000000010000000000000001',
    );
  });

  it('wraps at 2^128, not 2^64', () => {
    expect(calculateIv(hex('ffffffffffffffffffffffffffffffff'), 1n).toString('hex')).toBe(
      '00000000000000000000000000000000',
    );
    expect(calculateIv(hex('00000000000000000000000000000000'), (1n << 64n) - 1n).toString('hex')).toBe(
      '0000000000000000ffffffffffffffff',
    );
  });

  it('is the 128-bit sum of IV and counter for any IV and counter', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 16, maxLength: 16 }),
        fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
        (iv, c) => {
          expect(calculateIv(iv, c).equals(bigintSum(iv, c))).toBe(true);
        },
      ),
    );
  });

  it('refuses an IV that is not 16 bytes and a counter outside 64 bits', () => {
    expect(() => calculateIv(Buffer.alloc(15), 0n)).toThrow(RangeError);
    expect(() => calculateIv(Buffer.alloc(16), 1n << 64n)).toThrow(RangeError);
    expect(() => calculateIv(Buffer.alloc(16), -1n)).toThrow(RangeError);
  });
});

describe('ctrPositionOf', () => {
  it('splits an offset into the block counter and the bytes to skip in that block', () => {
    const iv = hex('0000000000000000ffffffffffffffff');
    const at21 = ctrPositionOf(iv, 21);
    expect(at21.padding).toBe(5);
    expect(at21.iv.toString('hex')).toBe('00000000000000010000000000000000');
    expect(ctrPositionOf(iv, 32).padding).toBe(0);
    expect(() => ctrPositionOf(iv, -1)).toThrow(RangeError);
    expect(() => ctrPositionOf(iv, 1.5)).toThrow(RangeError);
  });
});
