// The counter block of AES/CTR for any byte offset of a file, as Hadoop's transparent encryption
// computes it (JceCtrCryptoCodec.calculateIV, CryptoInputStream.getCounter/getPadding).

/** AES's block size: CipherSuite.AES_CTR_NOPADDING's algorithm block size. */
export const AES_BLOCK_BYTES = 16;

const MASK_64 = (1n << 64n) - 1n;

/**
 * `initIv + counter` as Hadoop's `calculateIV` adds them: the unsigned 64-bit counter added to the
 * low 8 bytes of the 16-byte IV, big-endian, with the carry running through all 16 bytes (so the
 * sum wraps at 2^128, not 2^64).
 */
export function calculateIv(initIv: Uint8Array, counter: bigint): Buffer {
  if (initIv.length !== AES_BLOCK_BYTES)
    throw new RangeError(`an AES/CTR IV has 16 bytes, not ${initIv.length}`);
  if (counter < 0n || counter > MASK_64) throw new RangeError('the counter is an unsigned 64-bit value');
  const out = Buffer.allocUnsafe(AES_BLOCK_BYTES);
  let sum = 0;
  let rest = counter;
  for (let i = AES_BLOCK_BYTES - 1, j = 0; i >= 0; i--, j++) {
    // (sum >>> 8) is the carry out of the byte below.
    sum = (initIv[i] as number) + (sum >>> 8);
    if (j < 8) {
      sum += Number(rest & 0xffn);
      rest >>= 8n;
    }
    out[i] = sum & 0xff;
  }
  return out;
}

/**
 * Where the keystream for file offset `position` starts: the counter block (`iv` + floor(position /
 * 16)) and how many keystream bytes of that block to skip (position mod 16).
 */
export function ctrPositionOf(initIv: Uint8Array, position: number): { iv: Buffer; padding: number } {
  if (!Number.isSafeInteger(position) || position < 0)
    throw new RangeError(`a file offset is a non-negative integer, got ${position}`);
  return {
    iv: calculateIv(initIv, BigInt(Math.floor(position / AES_BLOCK_BYTES))),
    padding: position % AES_BLOCK_BYTES,
  };
}
