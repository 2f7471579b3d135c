import { createHmac, getHashes } from 'node:crypto';
import { InvalidOptionError, checkNonEmptyString } from '@fastpath/core';
import { TokenManagerStateError } from '../token-errors.js';
import type { DelegationKey } from '@fastpath/hadoop-common';

const JAVA_HMAC_NAMES: Record<string, string> = {
  hmacsha1: 'sha1',
  hmacsha256: 'sha256',
  hmacsha512: 'sha512',
};

/** HMAC of `bytes` under `key` (Hadoop's `createPassword`). */
export function computeTokenPassword(algorithm: string, bytes: Uint8Array, key: DelegationKey): Buffer {
  if (key.key === null) throw new TokenManagerStateError(`master key ${key.keyId} has no material`);
  return createHmac(algorithm, key.key.unwrap()).update(bytes).digest();
}

/** A Node hash name for a Node or Java HMAC name (`'sha1'`, `'HmacSHA256'`); throws for an unknown one. */
export function resolveHmacAlgorithm(value: unknown): string {
  const name = checkNonEmptyString('hmacAlgorithm', value);
  const resolved = JAVA_HMAC_NAMES[name.toLowerCase()] ?? name.toLowerCase();
  if (!getHashes().includes(resolved)) {
    throw new InvalidOptionError('hmacAlgorithm', `unknown hash "${name}"`);
  }
  return resolved;
}
