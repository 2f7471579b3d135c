import { Redacted } from '@fastpath/core';
import { DataInput } from './data-input.js';
import { DataOutput } from './data-output.js';
import { checkBytes, checkInt32, checkLong } from './internal/field-checks.js';
import { WireFormatError } from './wire-format-error.js';

/** Hadoop's `DelegationKey.MAX_KEY_LEN`: the longest key its reader accepts (inclusive). */
export const DELEGATION_KEY_MAX_KEY_BYTES = 1024 * 1024;

/** The fields of a {@link DelegationKey}. */
export interface DelegationKeyFields {
  /** Master key id (32-bit signed). */
  keyId: number;
  /**
   * Time after which tokens signed with this key are no longer accepted, epoch ms: a Java `long`,
   * a safe integer or a bigint beyond 2^53.
   */
  expiryDate: number | bigint;
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
  /** Master key id (32-bit signed): what a token identifier's `masterKeyId` refers to. */
  readonly keyId: number;
  /** Expiry, epoch ms, as a number: exact up to 2^53, the nearest double beyond. */
  readonly expiryDate: number;
  /**
   * The key material (a copy of the given bytes), boxed so it never prints; `null` for a record
   * without material.
   */
  readonly key: Redacted<Buffer> | null;
  // Behind a getter, so that JSON.stringify of a key never meets a bigint.
  readonly #expiryDateLong: bigint;

  constructor(fields: DelegationKeyFields) {
    if (typeof fields !== 'object' || fields === null)
      throw new WireFormatError('key fields must be an object');
    this.keyId = checkInt32('keyId', fields.keyId);
    this.#expiryDateLong = checkLong('expiryDate', fields.expiryDate);
    this.expiryDate = Number(this.#expiryDateLong);
    this.key =
      fields.key === null ? null : new Redacted(checkBytes('key', fields.key, DELEGATION_KEY_MAX_KEY_BYTES));
    if (new.target === DelegationKey) Object.freeze(this);
  }

  /** Expiry, epoch ms, exactly as on the wire. */
  get expiryDateLong(): bigint {
    return this.#expiryDateLong;
  }

  /** Hadoop's Writable serialisation of the key. */
  encode(): Buffer {
    return new DataOutput()
      .writeVInt(this.keyId)
      .writeVLong(this.#expiryDateLong)
      .writeVIntBytes(this.key === null ? null : this.key.unwrap())
      .toBuffer();
  }

  /** Reads a key that must fill `bytes` exactly. */
  static decode(bytes: Uint8Array): DelegationKey {
    const input = new DataInput(bytes);
    const keyId = input.readVInt();
    const expiryDate = input.readVLong();
    const key = input.readVIntBytes(DELEGATION_KEY_MAX_KEY_BYTES);
    input.expectEnd();
    return new DelegationKey({ keyId, expiryDate, key });
  }

  /** Equal id, expiry and key bytes (two missing keys are equal; missing and empty are not). */
  equals(other: DelegationKey): boolean {
    if (!(other instanceof DelegationKey)) return false;
    if (other.keyId !== this.keyId || other.expiryDateLong !== this.expiryDateLong) return false;
    if (this.key === null || other.key === null) return this.key === other.key;
    return this.key.unwrap().equals(other.key.unwrap());
  }

  /** A copy with another expiry date (master keys are re-stored with a new expiry when rolled). */
  withExpiry(expiryDate: number | bigint): DelegationKey {
    return new DelegationKey({
      keyId: this.keyId,
      expiryDate,
      key: this.key === null ? null : this.key.unwrap(),
    });
  }

  /** `DelegationKey(keyId=…, expiryDate=…, key=<redacted>)` (or `key=null`): never the material. */
  toString(): string {
    return `DelegationKey(keyId=${this.keyId}, expiryDate=${this.#expiryDateLong}, key=${this.key === null ? 'null' : '<redacted>'})`;
  }
}
