import { SecureRandomClosedError } from './secure-random-errors.js';
import type { SecureRandom } from './secure-random.js';
import { byteView, checkDrawSize, ownedBuffer } from './internal/draw-checks.js';
import { systemRandomFill } from './internal/system-random-fill.js';

/**
 * One `crypto.randomFillSync` call per draw: the analogue of Hadoop's `OpensslSecureRandom`
 * (OpenSSL `RAND_bytes` per call). Nothing is buffered, so nothing drawn for later sits in memory;
 * use it for long-term keys, or where a pool is not wanted. Each call costs about 2 µs regardless
 * of size for small draws (Node builds a job object and OpenSSL re-keys its DRBG per request).
 *
 * @example
 * ```ts
 * const random = new NodeCryptoSecureRandom();
 * const masterKey = random.bytes(32);
 * ```
 */
export class NodeCryptoSecureRandom implements SecureRandom {
  readonly impl = 'node-crypto' as const;
  #closed = false;

  fill<T extends ArrayBufferView>(target: T): T {
    const view = byteView(target);
    if (this.#closed) {
      view.fill(0);
      throw new SecureRandomClosedError(this.impl);
    }
    systemRandomFill(view);
    return target;
  }

  bytes(size: number): Buffer {
    checkDrawSize(size);
    if (this.#closed) throw new SecureRandomClosedError(this.impl);
    const out = ownedBuffer(size);
    systemRandomFill(out);
    return out;
  }

  close(): void {
    this.#closed = true;
  }

  /** Same as `close()`, for `using`: later draws throw `ERR_SECURE_RANDOM_CLOSED`; idempotent. */
  [Symbol.dispose](): void {
    this.close();
  }
}
