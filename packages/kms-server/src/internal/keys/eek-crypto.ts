import { createCipheriv } from 'node:crypto';

/** The IV length of AES/CTR/NoPadding: one AES block. */
export const EEK_IV_BYTES = 16;

/**
 * Hadoop's `deriveIV`: every byte of the IV flipped (XOR 0xff). The EEK carries the IV as drawn;
 * the DEK is encrypted under the flipped one, so the same IV is never used twice under one key
 * for the DEK and for the data it will encrypt.
 */
export function flipIv(iv: Uint8Array): Buffer {
  const flipped = Buffer.allocUnsafe(iv.length);
  for (let i = 0; i < iv.length; i++) flipped[i] = (iv[i] as number) ^ 0xff;
  return flipped;
}

/**
 * AES-CTR of `data` under `key` (16, 24 or 32 bytes) starting at counter block `iv`. Node's CTR,
 * like Java's and OpenSSL's, increments the whole 128-bit block big-endian. CTR is its own
 * inverse: the same call encrypts and decrypts.
 */
export function aesCtr(key: Uint8Array, iv: Uint8Array, data: Uint8Array): Buffer {
  const cipher = createCipheriv(`aes-${key.length * 8}-ctr`, key, iv);
  return Buffer.concat([cipher.update(data), cipher.final()]);
}

/** Encrypts a DEK for an EEK: AES-CTR under the key version's material and the flipped IV. */
export function encryptDek(keyMaterial: Uint8Array, iv: Uint8Array, dek: Uint8Array): Buffer {
  return aesCtr(keyMaterial, flipIv(iv), dek);
}

/** Decrypts the DEK of an EEK (the inverse of {@link encryptDek}). */
export function decryptDek(keyMaterial: Uint8Array, iv: Uint8Array, encryptedDek: Uint8Array): Buffer {
  return aesCtr(keyMaterial, flipIv(iv), encryptedDek);
}
