import type { Redacted } from '@fastpath/core';

/**
 * One version of a key (`KeyVersion` JSON): `versionName` is `<key>@<n>`, or `EK` for a decrypted
 * data key. `material` is `null` when the server withholds it (the caller lacks the GET ACL).
 *
 * @example
 * ```ts
 * const current = await kms.getCurrentVersion('k1');
 * if (current?.material) encrypt(current.material.unwrap());
 * ```
 */
export interface KeyVersion {
  /** Name of the key this version belongs to. */
  readonly name: string;
  /** `<key>@<n>` (n from 0), `EEK` inside an encrypted key, `EK` for a decrypted one. */
  readonly versionName: string;
  /** The key bytes, or `null` when the server did not send them. */
  readonly material: Redacted<Buffer> | null;
}

/** What {@link KmsClient.createKey} returns: the first version and where the key now lives. */
export interface CreatedKeyVersion extends KeyVersion {
  /** The `Location` header of the 201 answer (`…/kms/v1/key/<name>`), if the server sent one. */
  readonly location: string | undefined;
}
