import { createCipheriv, type Cipher } from 'node:crypto';
import { OzoneClosedError } from '../../ozone-errors.js';
import { AES_BLOCK_BYTES, ctrPositionOf } from './ctr-iv.js';

/**
 * The data key (DEK) of one encrypted key and its IV, held by one open stream only. AES-128-CTR or
 * AES-256-CTR by the key's length, as Hadoop's KMS makes it as long as the bucket key. The bytes
 * live in private fields, which no printing, inspection or JSON shows (as in `Redacted`);
 * {@link destroy} zeroes them (OpenSSL's copy inside a cipher object lives only as long as that
 * object, which is per call or per write stream).
 */
export class DataKey {
  readonly #material: Buffer;
  readonly #iv: Buffer;
  readonly #cipher: 'aes-128-ctr' | 'aes-256-ctr';
  #destroyed = false;

  /** Copies `material` and `iv`; the caller zeroes its own copies. */
  constructor(material: Uint8Array, iv: Uint8Array) {
    if (material.length !== 16 && material.length !== 32)
      throw new RangeError(`an AES data key has 16 or 32 bytes, not ${material.length}`);
    if (iv.length !== AES_BLOCK_BYTES) throw new RangeError(`an AES/CTR IV has 16 bytes, not ${iv.length}`);
    this.#material = Buffer.alloc(material.length);
    this.#material.set(material);
    this.#iv = Buffer.from(iv);
    this.#cipher = material.length === 16 ? 'aes-128-ctr' : 'aes-256-ctr';
  }

  /** Bits of the key: 128 or 256. */
  get bits(): number {
    return this.#material.length * 8;
  }

  get destroyed(): boolean {
    return this.#destroyed;
  }

  /**
   * A cipher whose keystream starts at file offset `position` (the counter for that offset, and
   * the keystream bytes before it within its block consumed). Encryption and decryption are the
   * same XOR; feed it contiguous bytes from `position` on.
   */
  cipherAt(position: number): Cipher {
    if (this.#destroyed) throw new OzoneClosedError('the data key');
    const { iv, padding } = ctrPositionOf(this.#iv, position);
    const cipher = createCipheriv(this.#cipher, this.#material, iv);
    if (padding > 0) cipher.update(Buffer.alloc(padding));
    return cipher;
  }

  /** Encrypts or decrypts `data`, which sits at file offset `position`, into a new buffer. */
  transformAt(position: number, data: Uint8Array): Buffer {
    return this.cipherAt(position).update(data);
  }

  /** Zeroes the key; later use throws `ERR_OZONE_CLOSED`. */
  destroy(): void {
    this.#destroyed = true;
    this.#material.fill(0);
  }
}
