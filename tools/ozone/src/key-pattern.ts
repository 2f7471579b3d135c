import { createHash } from 'node:crypto';

// The content of every key the fixture writes with Ozone's Java client, so a reader can check any
// byte range without holding the whole key: byte i of a key with seed s is byte (i & 3) (little-
// endian) of mix(s, floor(i / 4)), mix being MurmurHash3's 32-bit finaliser over
// wordIndex + s * 0x9E3779B9 (mod 2^32), the pattern the Ozone client's contract suite reads back.
// The Java twin is java/fastpath/ozonefixture/KeyPattern.java; the integration test compares
// their SHA-256. A hash rather than a counter: a read from a wrong offset never returns the
// expected bytes, whatever the chunk or checksum alignment.

function word(seed: number, wordIndex: number): number {
  let h = ((wordIndex >>> 0) + Math.imul(seed | 0, 0x9e3779b9)) | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The bytes `[offset, offset + length)` of a key written with `seed`. */
export function keyPatternBytes(seed: number, offset: number, length: number): Buffer {
  if (!Number.isSafeInteger(offset) || offset < 0)
    throw new RangeError(`offset must be a safe integer >= 0, got ${offset}`);
  if (!Number.isSafeInteger(length) || length < 0)
    throw new RangeError(`length must be a safe integer >= 0, got ${length}`);
  const out = Buffer.allocUnsafe(length);
  let i = 0;
  // A partial first word, then whole words, then a partial last one.
  for (; i < length && (offset + i) % 4 !== 0; i++) {
    const position = offset + i;
    out[i] = (word(seed, Math.floor(position / 4)) >>> (8 * (position % 4))) & 0xff;
  }
  let wordIndex = (offset + i) / 4;
  for (; i + 4 <= length; i += 4, wordIndex++) out.writeUInt32LE(word(seed, wordIndex), i);
  for (; i < length; i++) {
    const position = offset + i;
    out[i] = (word(seed, Math.floor(position / 4)) >>> (8 * (position % 4))) & 0xff;
  }
  return out;
}

/** SHA-256 (hex) of a whole key of `size` bytes written with `seed`, computed in 1 MiB pieces. */
export function keyPatternSha256(seed: number, size: number): string {
  const hash = createHash('sha256');
  const step = 1 << 20;
  for (let offset = 0; offset < size; offset += step) {
    hash.update(keyPatternBytes(seed, offset, Math.min(step, size - offset)));
  }
  return hash.digest('hex');
}
