import { InvalidDrawSizeError, InvalidDrawTargetError } from '../secure-random-errors.js';
import { MAX_DRAW_BYTES } from '../secure-random.js';

/** Returns `size` when it is a valid draw size, throws otherwise. */
export function checkDrawSize(size: unknown): number {
  if (typeof size !== 'number' || !Number.isInteger(size) || size < 0 || size > MAX_DRAW_BYTES) {
    throw new InvalidDrawSizeError(size, MAX_DRAW_BYTES);
  }
  return size;
}

/** The bytes of `target` as a Uint8Array over the same memory (the target itself when it is one). */
export function byteView(target: unknown): Uint8Array {
  if (target instanceof Uint8Array) return target;
  if (!ArrayBuffer.isView(target)) throw new InvalidDrawTargetError(target);
  return new Uint8Array(target.buffer, target.byteOffset, target.byteLength);
}

/**
 * A new Buffer that owns its memory. `allocUnsafe` would hand out a slice of Node's shared 8 KiB
 * slab, whose `.buffer` exposes unrelated neighbours (and them the key); the slow variant gets a
 * private backing store. Not zeroed: every caller overwrites it completely before returning it.
 */
export function ownedBuffer(size: number): Buffer {
  return Buffer.allocUnsafeSlow(size);
}
