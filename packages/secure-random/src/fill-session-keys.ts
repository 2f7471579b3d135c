import { InvalidOptionError } from '@fastpath/core';
import { defaultSecureRandom } from './generate-secure-random.js';
import { SESSION_IV_BYTES, type SessionKeyBytes } from './generate-session-keys.js';
import { fillFourIfPooled } from './pooled-secure-random.js';
import { InvalidDrawTargetError } from './secure-random-errors.js';
import type { SecureRandom } from './secure-random.js';

/**
 * Caller-owned memory for one connection's key material, filled by {@link fillSessionKeys}: two
 * keys of the same AES size (16, 24 or 32 bytes) and two 16-byte IVs. Buffers or Uint8Arrays, four
 * distinct views that must not overlap.
 */
export interface SessionKeyBuffers {
  /** Filled with the inbound direction's key; its length is the key size (16, 24 or 32). */
  readonly inKey: Uint8Array;
  /** Filled with the inbound direction's IV (16 bytes). */
  readonly inIv: Uint8Array;
  /** Filled with the outbound direction's key; its length is the key size (16, 24 or 32). */
  readonly outKey: Uint8Array;
  /** Filled with the outbound direction's IV (16 bytes). */
  readonly outIv: Uint8Array;
}

/**
 * Fills the caller's two keys and two IVs with fresh random bytes, in Hadoop's order (in-key,
 * in-IV, out-key, out-IV), and returns `target`. The allocation-free form of
 * {@link generateSessionKeys} for hot paths: nothing is allocated, and from a
 * {@link PooledSecureRandom} (the default source) all four come from one pass over the pool, which
 * erases what it serves.
 *
 * The key size is taken from `inKey` (16, 24 or 32 bytes; `outKey` must match), IVs are 16 bytes;
 * anything else throws `ERR_SECURE_RANDOM_INVALID_TARGET` before a byte is written. When drawing
 * fails, all four are zeroed before the error is thrown. The buffers are overwritten on every call:
 * consume the keys (for example by `createCipheriv`, which copies them) before the next fill, and
 * do not share one set between connections that interleave across `await`s.
 *
 * @example
 * ```ts
 * const keys = allocSessionKeyBuffers(32);       // once, reused for every connection
 * fillSessionKeys(keys);
 * const cipher = createCipheriv('aes-256-ctr', keys.outKey, keys.outIv);
 * ```
 */
export function fillSessionKeys<T extends SessionKeyBuffers>(
  target: T,
  source: SecureRandom = defaultSecureRandom,
): T {
  const { inKey, inIv, outKey, outIv } = target;
  checkParts(inKey, inIv, outKey, outIv);
  if (fillFourIfPooled(source, inKey, inIv, outKey, outIv)) return target;
  try {
    source.fill(inKey);
    source.fill(inIv);
    source.fill(outKey);
    source.fill(outIv);
  } catch (err) {
    // Half a key set is useless to the caller; do not leave its parts lying around.
    inKey.fill(0);
    inIv.fill(0);
    outKey.fill(0);
    outIv.fill(0);
    throw err;
  }
  return target;
}

/**
 * Allocates the memory {@link fillSessionKeys} fills: four Buffers over one private `ArrayBuffer`
 * of `2 * keyBytes + 32` bytes, zeroed. One backing store outside V8's heap means the garbage
 * collector never moves (and so never copies) the key bytes, and `fill(0)` on the parts reaches the
 * only copy. Allocate once per connection handler and reuse.
 *
 * @example
 * ```ts
 * const keys = allocSessionKeyBuffers();          // AES-128: 16-byte keys
 * fillSessionKeys(keys);
 * ```
 */
export function allocSessionKeyBuffers(keyBytes: SessionKeyBytes = 16): SessionKeyBuffers {
  if (keyBytes !== 16 && keyBytes !== 24 && keyBytes !== 32) {
    throw new InvalidOptionError('keyBytes', `expected 16, 24 or 32, got ${String(keyBytes)}`);
  }
  const memory = new ArrayBuffer(2 * keyBytes + 2 * SESSION_IV_BYTES);
  return {
    inKey: Buffer.from(memory, 0, keyBytes),
    inIv: Buffer.from(memory, keyBytes, SESSION_IV_BYTES),
    outKey: Buffer.from(memory, keyBytes + SESSION_IV_BYTES, keyBytes),
    outIv: Buffer.from(memory, 2 * keyBytes + SESSION_IV_BYTES, SESSION_IV_BYTES),
  };
}

// Checks only what is cheap: overlap of distinct views would need `.buffer`, which costs more than
// the whole draw for small typed arrays, so it is documented instead of checked.
function checkParts(inKey: unknown, inIv: unknown, outKey: unknown, outIv: unknown): void {
  if (!(inKey instanceof Uint8Array) || !isKeySize(inKey.length)) {
    throw new InvalidDrawTargetError(
      inKey,
      'fillSessionKeys needs inKey as a Uint8Array of 16, 24 or 32 bytes',
    );
  }
  if (!(outKey instanceof Uint8Array) || outKey.length !== inKey.length) {
    throw new InvalidDrawTargetError(
      outKey,
      `fillSessionKeys needs outKey as a Uint8Array of ${inKey.length} bytes, like inKey`,
    );
  }
  if (!(inIv instanceof Uint8Array) || inIv.length !== SESSION_IV_BYTES) {
    throw new InvalidDrawTargetError(
      inIv,
      `fillSessionKeys needs inIv as a Uint8Array of ${SESSION_IV_BYTES} bytes`,
    );
  }
  if (!(outIv instanceof Uint8Array) || outIv.length !== SESSION_IV_BYTES) {
    throw new InvalidDrawTargetError(
      outIv,
      `fillSessionKeys needs outIv as a Uint8Array of ${SESSION_IV_BYTES} bytes`,
    );
  }
  if (
    inKey === outKey ||
    inIv === outIv ||
    inKey === inIv ||
    inKey === outIv ||
    outKey === inIv ||
    outKey === outIv
  ) {
    throw new InvalidDrawTargetError(inKey, 'fillSessionKeys needs four distinct views, one per part');
  }
}

function isKeySize(n: number): boolean {
  return n === 16 || n === 24 || n === 32;
}
