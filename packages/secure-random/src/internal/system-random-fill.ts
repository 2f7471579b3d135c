import { randomFillSync } from 'node:crypto';
import { RandomSourceError } from '../secure-random-errors.js';

// randomFillSync takes at most 2^31 - 1 bytes per call; bigger views are filled in pieces.
const MAX_CALL_BYTES = 2 ** 30;

/**
 * Fills `view` from Node's CSPRNG (OpenSSL's per-thread DRBG, seeded by the OS). A failure is
 * rethrown as a typed error after the view is zeroed, so nothing half-filled looks usable.
 */
export function systemRandomFill(view: Uint8Array): void {
  try {
    if (view.length <= MAX_CALL_BYTES) {
      randomFillSync(view);
    } else {
      for (let off = 0; off < view.length; off += MAX_CALL_BYTES) {
        randomFillSync(view.subarray(off, off + MAX_CALL_BYTES));
      }
    }
  } catch (err) {
    view.fill(0);
    throw new RandomSourceError(err);
  }
}
