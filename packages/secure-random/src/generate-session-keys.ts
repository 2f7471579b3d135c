import { InvalidOptionError, Redacted } from '@fastpath/core';
import { defaultSecureRandom } from './generate-secure-random.js';
import type { SecureRandom } from './secure-random.js';

/** AES key sizes in bytes. */
export type SessionKeyBytes = 16 | 24 | 32;

/** Options of {@link generateSessionKeys}. */
export interface SessionKeyOptions {
  /**
   * Key length in bytes: 16, 24 or 32 (Hadoop: `dfs.encrypt.data.transfer.cipher.key.bitlength`
   * / 8). Default: `16`.
   */
  keyBytes?: SessionKeyBytes;
  /** Where the bytes come from. Default: {@link defaultSecureRandom}. */
  source?: SecureRandom;
}

/** Defaults of {@link SessionKeyOptions} (the source defaults to {@link defaultSecureRandom}). */
export const DEFAULT_SESSION_KEY_OPTIONS: Readonly<{
  /** Key length in bytes when `keyBytes` is not given: `16` (AES-128). */
  keyBytes: SessionKeyBytes;
}> = Object.freeze({
  keyBytes: 16,
});

/** Size of each IV in bytes: one AES block, as AES/CTR needs. */
export const SESSION_IV_BYTES = 16;

/** The key material of one encrypted data-transfer connection: one key and IV per direction. */
export interface SessionKeys {
  /** Key of the inbound direction (what this side decrypts), `keyBytes` long. */
  readonly inKey: Redacted<Buffer>;
  /** IV of the inbound direction, {@link SESSION_IV_BYTES} long. */
  readonly inIv: Redacted<Buffer>;
  /** Key of the outbound direction (what this side encrypts), `keyBytes` long. */
  readonly outKey: Redacted<Buffer>;
  /** IV of the outbound direction, {@link SESSION_IV_BYTES} long. */
  readonly outIv: Redacted<Buffer>;
}

/**
 * Draws two keys and two IVs, the randomness one encrypted data-transfer connection needs (what
 * Hadoop's SASL cipher negotiation draws per connection, in the same order: in-key, in-IV,
 * out-key, out-IV). Each is a separate Buffer owning its memory, boxed in `Redacted` so it never
 * reaches a log by accident.
 *
 * @example
 * ```ts
 * const { inKey, inIv } = generateSessionKeys({ keyBytes: 32 });
 * const decipher = createDecipheriv('aes-256-ctr', inKey.unwrap(), inIv.unwrap());
 * ```
 */
export function generateSessionKeys(options: SessionKeyOptions = {}): SessionKeys {
  const keyBytes = options.keyBytes ?? DEFAULT_SESSION_KEY_OPTIONS.keyBytes;
  if (keyBytes !== 16 && keyBytes !== 24 && keyBytes !== 32) {
    throw new InvalidOptionError('keyBytes', `expected 16, 24 or 32, got ${String(keyBytes)}`);
  }
  const source = options.source ?? defaultSecureRandom;
  let inKey: Buffer | undefined;
  let inIv: Buffer | undefined;
  let outKey: Buffer | undefined;
  try {
    inKey = source.bytes(keyBytes);
    inIv = source.bytes(SESSION_IV_BYTES);
    outKey = source.bytes(keyBytes);
    const outIv = source.bytes(SESSION_IV_BYTES);
    return {
      inKey: new Redacted(inKey),
      inIv: new Redacted(inIv),
      outKey: new Redacted(outKey),
      outIv: new Redacted(outIv),
    };
  } catch (err) {
    // Half a key set is useless to the caller; do not leave its parts lying around.
    inKey?.fill(0);
    inIv?.fill(0);
    outKey?.fill(0);
    throw err;
  }
}
