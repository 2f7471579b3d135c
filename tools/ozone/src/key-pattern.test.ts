import { createHash } from 'node:crypto';
import { keyPatternBytes, keyPatternSha256 } from './key-pattern.js';

describe('keyPatternBytes', () => {
  it('gives the same bytes for a range whatever the offset alignment', () => {
    const whole = keyPatternBytes(11, 0, 4099);
    for (const [offset, length] of [
      [0, 1],
      [1, 3],
      [3, 9],
      [4, 4],
      [1023, 1030],
      [4096, 3],
    ] as const) {
      expect(keyPatternBytes(11, offset, length)).toEqual(whole.subarray(offset, offset + length));
    }
  });

  it('differs between seeds and between neighbouring words', () => {
    expect(keyPatternBytes(1, 0, 64)).not.toEqual(keyPatternBytes(2, 0, 64));
    const bytes = keyPatternBytes(5, 0, 1 << 16);
    // A period of 256 or of a checksum window would hide reads from a wrong offset.
    for (const period of [256, 512, 4096, 16_384]) {
      expect(bytes.subarray(0, 64)).not.toEqual(bytes.subarray(period, period + 64));
    }
  });

  it('matches digests of keys written by the Java twin through a real Ozone cluster', () => {
    // Printed by the launcher (Ozone 2.2.0's Java client wrote these keys, SHA-256 over what it wrote).
    expect(keyPatternSha256(0, 1)).toBe('6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d');
    expect(keyPatternSha256(7, 5_000_000)).toBe(
      '1806eca2bfaf82d64f1487ccf64ca4ae11ab1ec787b251d0bc9c20041f94b8a2',
    );
    expect(keyPatternSha256(-3, 100_000)).toBe(
      'b53c5dab5d728bf9a07c3f91fd79edcccbd506848848eded3fd982f7f56b4020',
    );
  });

  it('hashes in pieces the same as in one go', () => {
    const size = (1 << 20) * 2 + 17;
    expect(keyPatternSha256(9, size)).toBe(
      createHash('sha256')
        .update(keyPatternBytes(9, 0, size))
        .digest('hex'),
    );
  });

  it('handles offsets beyond 2^32 (word indices wrap as Java ints do)', () => {
    const high = 2 ** 34 + 6;
    expect(keyPatternBytes(3, high, 10)).toEqual(keyPatternBytes(3, high - 2 ** 34, 10));
    expect(keyPatternBytes(3, 2 ** 33 + 1, 7)).toEqual(keyPatternBytes(3, 2 ** 33, 8).subarray(1));
  });

  it('refuses negative or fractional ranges', () => {
    expect(() => keyPatternBytes(0, -1, 1)).toThrow(RangeError);
    expect(() => keyPatternBytes(0, 0, 1.5)).toThrow(RangeError);
  });
});
