import { endianness } from 'node:os';

const LITTLE_ENDIAN = endianness() === 'LE';
// Bound once: a global looked up per word is slow where tests run in a vm context (jest).
const imul = Math.imul;

/**
 * The content of the contract suite's keys, a function of the offset that another writer (Ozone's
 * Java client on a real cluster) can reproduce: little-endian 32-bit words, word `w` =
 * fmix32(w + seed × 0x9E3779B9) (MurmurHash3's finalizer, all arithmetic modulo 2^32). No two
 * chunks or checksum windows of a key hold the same bytes, so a misplaced range fails a compare.
 *
 * @param sizeBytes - How many bytes to return.
 * @param seed - The key's seed (a 32-bit integer).
 * @param offset - Offset in the key of the first byte, any alignment. Default: 0.
 * @returns The key's bytes `[offset, offset + sizeBytes)`, in a new buffer.
 */
export function contractKeyBytes(sizeBytes: number, seed: number, offset = 0): Buffer {
  const firstWord = Math.floor(offset / 4);
  const words = Math.floor((offset + sizeBytes + 3) / 4) - firstWord;
  const aligned = Buffer.from(new ArrayBuffer(words * 4));
  const view = LITTLE_ENDIAN ? new Uint32Array(aligned.buffer, 0, words) : undefined;
  const mixedSeed = imul(seed, 0x9e3779b9);
  for (let i = 0; i < words; i++) {
    let h = (firstWord + i + mixedSeed) >>> 0;
    h ^= h >>> 16;
    h = imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    h = imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
    if (view) view[i] = h >>> 0;
    else aligned.writeUInt32LE(h >>> 0, i * 4);
  }
  const skip = offset - firstWord * 4;
  return aligned.subarray(skip, skip + sizeBytes);
}
