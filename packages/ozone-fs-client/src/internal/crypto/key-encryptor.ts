import type { Cipher } from 'node:crypto';
import { OzoneClosedError } from '../../ozone-errors.js';
import type { DataKey } from './data-key.js';

/**
 * Encrypts one key's bytes in the order they are written, from offset 0 (Hadoop's
 * CryptoOutputStream around the key's output stream). The stream beneath sees only ciphertext,
 * so its checksums cover ciphertext and a block re-sent after a failover is re-sent as it was.
 */
export class KeyEncryptor {
  readonly #key: DataKey;
  #cipher: Cipher | undefined;

  constructor(key: DataKey) {
    this.#key = key;
    this.#cipher = key.cipherAt(0);
  }

  /** The ciphertext of the next `data.length` bytes of the key, in a new buffer. */
  update(data: Uint8Array): Buffer {
    if (!this.#cipher) throw new OzoneClosedError('the key output stream');
    return this.#cipher.update(data);
  }

  /** Zeroes the data key and drops the cipher. */
  destroy(): void {
    this.#cipher = undefined;
    this.#key.destroy();
  }
}
