import { Redacted } from '@fastpath/core';
import { DataInput } from './data-input.js';
import { DataOutput } from './data-output.js';
import { checkBytes, checkInt32, checkSafeInteger, safeIntegerFromBigInt } from './field-checks.js';
import { WireFormatError } from './wire-format-error.js';

/** Hadoop's `DelegationKey.MAX_KEY_LEN`: the longest key its reader accepts (inclusive). */
export const DELEGATION_KEY_MAX_KEY_BYTES = 1024 * 1024;

/** The fields of a {@link DelegationKey}. */
export interface DelegationKeyFields {
  /** Master key id (32-bit signed). */
  keyId: number;
  /** Time after which tokens signed with this key are no longer accepted, epoch ms. */
  expiryDate: number;
  /** Raw key bytes, or `null` for a key record without material. */
  key: Buffer | null;
}

/**
 * A master key as Hadoop stores it (`DelegationKey`): keyId VInt, expiryDate VLong, then the key
 * bytes with a VInt length (-1 for none). The material stays in a `Redacted` box. Equality is over
 * id, expiry and bytes, as Hadoop's.
 *
 * @example
 * ```ts
 * const key = new DelegationKey({ keyId: 1, expiryDate: now + 86_400_000, key: randomBytes(8) });
 * const stored = key.encode();
 * DelegationKey.decode(stored).equals(key); // true
 * ```
 */
export class DelegationKey {
  readonly keyId: number;
  readonly expiryDate: number;
  readonly key: Redacted<Buffer> | null;

  constructor(fields: DelegationKeyFields) {
    if (typeof fields !== 'object' || fields === null)
      throw new WireFormatError('key fields must be an object');
    this.keyId = checkInt32('keyId', fields.keyId);
    this.expiryDate = checkSafeInteger('expiryDate', fields.expiryDate);
    this.key =
      fields.key === null ? null : new Redacted(checkBytes('key', fields.key, DELEGATION_KEY_MAX_KEY_BYTES));
    if (new.target === DelegationKey) Object.freeze(this);
  }

  /** Hadoop's Writable serialisation of the key. */
  encode(): Buffer {
    return new DataOutput()
      .writeVInt(this.keyId)
      .writeVLong(this.expiryDate)
      .writeVIntBytes(this.key === null ? null : this.key.unwrap())
      .toBuffer();
  }

  /** Reads a key that must fill `bytes` exactly. */
  static decode(bytes: Uint8Array): DelegationKey {
    const input = new DataInput(bytes);
    const keyId = input.readVInt();
    const expiryDate = safeIntegerFromBigInt('expiryDate', input.readVLong());
    const key = input.readVIntBytes(DELEGATION_KEY_MAX_KEY_BYTES);
    input.expectEnd();
    return new DelegationKey({ keyId, expiryDate, key });
  }

  /** Equal id, expiry and key bytes (two missing keys are equal; missing and empty are not). */
  equals(other: DelegationKey): boolean {
    if (!(other instanceof DelegationKey)) return false;
    if (other.keyId !== this.keyId || other.expiryDate !== this.expiryDate) return false;
    if (this.key === null || other.key === null) return this.key === other.key;
    return this.key.unwrap().equals(other.key.unwrap());
  }

  /** A copy with another expiry date (master keys are re-stored with a new expiry when rolled). */
  withExpiry(expiryDate: number): DelegationKey {
    return new DelegationKey({
      keyId: this.keyId,
      expiryDate,
      key: this.key === null ? null : this.key.unwrap(),
    });
  }

  toString(): string {
    return `DelegationKey(keyId=${this.keyId}, expiryDate=${this.expiryDate}, key=${this.key === null ? 'null' : '<redacted>'})`;
  }
}
