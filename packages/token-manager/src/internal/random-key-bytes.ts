import { randomBytes } from 'node:crypto';

/** Fresh master-key material: `n` bytes from a cryptographically secure generator. */
export function randomKeyBytes(n: number): Buffer {
  return randomBytes(n);
}
