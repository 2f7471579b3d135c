import { checkInteger } from '@fastpath/core';

const imul = Math.imul;

/**
 * The bytes Ozone's Java writer of this fixture puts in a key (`KeyPattern.java`, what
 * `writeKeys` writes for `size` and `seed`): little-endian 32-bit words, word `w` =
 * fmix32(w + seed × 0x9E3779B9), MurmurHash3's finaliser, all arithmetic mod 2^32. The same
 * pattern as the Ozone client contract suite's `contractKeyBytes` (a unit test holds them equal),
 * here so that a caller of the fixture can say what a key holds without the client's test entry.
 *
 * @param sizeBytes - How many bytes.
 * @param seed - The key's seed (a signed 32-bit integer).
 * @param offset - Offset in the key of the first byte. Default 0.
 * @example
 * ```ts
 * const [key] = await cluster.writeKeys([{ volume: 'v1', bucket: 'b1', key: 'k', size: 100, seed: 7 }]);
 * keyPatternBytes(10, 7, 90); // the key's last ten bytes
 * ```
 */
export function keyPatternBytes(sizeBytes: number, seed: number, offset = 0): Buffer {
  checkInteger('sizeBytes', sizeBytes, 0);
  checkInteger('seed', seed, -(2 ** 31), 2 ** 31 - 1);
  checkInteger('offset', offset, 0);
  const firstWord = Math.floor(offset / 4);
  const words = Math.floor((offset + sizeBytes + 3) / 4) - firstWord;
  const out = Buffer.alloc(words * 4);
  const mixedSeed = imul(seed, 0x9e3779b9);
  for (let i = 0; i < words; i++) {
    let h = (firstWord + i + mixedSeed) >>> 0;
    h ^= h >>> 16;
    h = imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    h = imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
    out.writeUInt32LE(h >>> 0, i * 4);
  }
  const skip = offset - firstWord * 4;
  return out.subarray(skip, skip + sizeBytes);
}
