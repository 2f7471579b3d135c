/** The implementations {@link createSecureRandom} can build, by name. */
export const SECURE_RANDOM_IMPLS = Object.freeze(['pooled', 'node-crypto', 'device'] as const);

/**
 * An implementation name: `'pooled'` ({@link PooledSecureRandom}, the default), `'node-crypto'`
 * ({@link NodeCryptoSecureRandom}) or `'device'` ({@link DeviceSecureRandom}).
 */
export type SecureRandomImpl = (typeof SECURE_RANDOM_IMPLS)[number];

/**
 * The largest single draw, in bytes: the per-call limit of `crypto.randomFillSync` (2^31 - 1).
 * Larger amounts are drawn in several calls.
 */
export const MAX_DRAW_BYTES = 2 ** 31 - 1;

/**
 * A cryptographically secure random byte source.
 *
 * Every draw either returns completely fresh random bytes or throws a `FastpathError`
 * (see the package README for the codes): never zeros, never a partly filled buffer.
 *
 * @example
 * ```ts
 * const random = createSecureRandom();
 * const iv = random.bytes(16);           // a new Buffer
 * random.fill(new Uint8Array(32));       // fills the caller's memory
 * ```
 */
export interface SecureRandom extends Disposable {
  /** Which implementation this is. */
  readonly impl: SecureRandomImpl;
  /**
   * Fills every byte of `target` (a Buffer, typed array or DataView; to fill a part, pass a
   * `subarray`) and returns it. On error the target is zeroed and the error thrown.
   */
  fill<T extends ArrayBufferView>(target: T): T;
  /**
   * Returns a new Buffer of `size` random bytes. The Buffer owns its memory: it is neither a view
   * into an internal pool nor a slice of Node's shared small-Buffer slab.
   */
  bytes(size: number): Buffer;
  /**
   * Releases the generator's resources (a device file descriptor, a pool) after wiping buffered
   * bytes. Idempotent. Later draws throw `ERR_SECURE_RANDOM_CLOSED`.
   */
  close(): void;
}
