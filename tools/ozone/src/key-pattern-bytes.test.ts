import { contractKeyBytes } from '@fastpath/ozone-fs-client/testing/contract';
import { keyPatternBytes } from './key-pattern-bytes.js';

describe('keyPatternBytes', () => {
  it("equals the client contract suite's contractKeyBytes at any offset and seed", () => {
    for (const seed of [0, 1, -5, 2 ** 31 - 1, -(2 ** 31)])
      for (const [size, offset] of [
        [0, 0],
        [1, 0],
        [7, 3],
        [70_000, 0],
        [1000, 4_194_301],
        [13, 2 ** 40 + 1],
      ] as const)
        expect(keyPatternBytes(size, seed, offset).equals(contractKeyBytes(size, seed, offset))).toBe(true);
  });

  it('refuses a bad size, seed or offset', () => {
    expect(() => keyPatternBytes(-1, 0)).toThrow(/sizeBytes/);
    expect(() => keyPatternBytes(1, 2 ** 31)).toThrow(/seed/);
    expect(() => keyPatternBytes(1, 0, 0.5)).toThrow(/offset/);
  });
});
