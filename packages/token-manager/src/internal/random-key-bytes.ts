import { generateSecureRandom } from '@fastpath/secure-random';

/** Fresh master-key material: `n` bytes from fastpath's pooled CSPRNG. */
export function randomKeyBytes(n: number): Buffer {
  return generateSecureRandom(n);
}
