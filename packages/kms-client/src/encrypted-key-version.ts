import type { KeyVersion } from './key-version.js';

/**
 * An encrypted data key (EEK JSON): a fresh data key encrypted under a version of a key. Store it
 * beside the data; hand it to {@link KmsClient.decryptEncryptedKey} to get the data key back.
 *
 * @example
 * ```ts
 * const [eek] = await kms.generateEncryptedKeys('k1', 1);
 * const dek = await kms.decryptEncryptedKey(eek);
 * ```
 */
export interface EncryptedKeyVersion {
  /** Name of the key whose version encrypted the data key. */
  readonly encryptionKeyName: string;
  /** The key version that encrypted the data key, `<key>@<n>`. */
  readonly encryptionKeyVersionName: string;
  /** The 16-byte IV as sent by the server (not the flipped IV used for encryption). */
  readonly iv: Buffer;
  /** The encrypted data key: `versionName` `EEK`, `material` the encrypted bytes. */
  readonly encryptedKeyVersion: KeyVersion;
}
