import { PooledSecureRandom } from './pooled-secure-random.js';

/**
 * This thread's shared generator, with the default pool options. Each worker thread has its own
 * (module state is per thread). Closing it makes every later module-level draw in this thread fail.
 */
export const defaultSecureRandom: PooledSecureRandom = new PooledSecureRandom();

/**
 * Returns a new Buffer of `size` random bytes from {@link defaultSecureRandom}: the analogue of
 * Hadoop's `CryptoCodec.generateSecureRandom`, without a generator per caller.
 *
 * @example
 * ```ts
 * const iv = generateSecureRandom(16);
 * ```
 */
export function generateSecureRandom(size: number): Buffer {
  return defaultSecureRandom.bytes(size);
}
