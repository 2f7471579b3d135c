import { Redacted, systemClock, type Clock } from '@fastpath/core';
import { createSecureRandom, type SecureRandom } from '@fastpath/secure-random';
import type { KeyStore } from '../keystore/file-key-store.js';
import type { StoredKey } from '../keystore/keystore-state.js';
import { KmsRequestError } from '../../kms-errors.js';
import { EEK_IV_BYTES, decryptDek, encryptDek } from './eek-crypto.js';
import { buildVersionName, parseVersionName } from './key-version-name.js';

/** Inner version name of an encrypted key version (Hadoop's `EEK`). */
export const EEK_VERSION_NAME = 'EEK';
/** Version name of a decrypted key version (Hadoop's `EK`). */
export const EK_VERSION_NAME = 'EK';

/** A key version: Hadoop's `KeyVersion`. `material` is `null` when withheld from the caller. */
export interface KeyVersion {
  readonly name: string;
  readonly versionName: string;
  readonly material: Redacted<Buffer> | null;
}

/** A key's metadata: Hadoop's `KeyProvider.Metadata`. */
export interface KeyMetadata {
  readonly name: string;
  readonly cipher: string;
  /** Bits. */
  readonly length: number;
  readonly description: string | null;
  readonly attributes: Readonly<Record<string, string>>;
  /** Epoch ms. */
  readonly created: number;
  /** Number of versions. */
  readonly versions: number;
}

/**
 * An encrypted DEK: Hadoop's `EncryptedKeyVersion`. `iv` is the IV as drawn (the DEK was
 * encrypted under its flipped form); the inner version is `EEK`.
 */
export interface EncryptedKeyVersion {
  readonly keyName: string;
  readonly encryptionKeyVersionName: string;
  readonly iv: Buffer;
  readonly encryptedKey: Buffer;
}

/** Options of {@link KeyProvider}. */
export interface KeyProviderOptions {
  /** Source of key material, DEKs and IVs. Default: a new pooled generator of @fastpath/secure-random. */
  random?: SecureRandom;
  /** Cipher of keys created without one. Default: `AES/CTR/NoPadding`. */
  defaultCipher?: string;
  /** Bit length of keys created without one. Default: 128. */
  defaultBitLength?: number;
  clock?: Clock;
}

/** What {@link KeyProvider.createKey} takes besides the name. */
export interface CreateKeyOptions {
  cipher?: string | undefined;
  bitLength?: number | undefined;
  description?: string | null | undefined;
  attributes?: Readonly<Record<string, string>> | undefined;
  /** The first version's material; random when absent. */
  material?: Redacted<Buffer> | undefined;
}

const AES_BIT_LENGTHS = [128, 192, 256];

/**
 * Keys, their versions and the EEK operations of Hadoop's `KeyProviderCryptoExtension` over a
 * {@link KeyStore}: versions are `name@N` from 0; a DEK is as long as the key version's material;
 * its IV is 16 random bytes; the DEK is encrypted with AES-CTR under the flipped IV.
 *
 * @example
 * ```ts
 * const keys = new KeyProvider(store);
 * await keys.createKey('k1');
 * const eek = keys.generateEncryptedKey('k1');
 * const dek = keys.decryptEncryptedKey(eek); // { versionName: 'EK', material: <16 bytes> }
 * ```
 */
export class KeyProvider {
  readonly #store: KeyStore;
  readonly #random: SecureRandom;
  readonly #defaultCipher: string;
  readonly #defaultBitLength: number;
  readonly #clock: Clock;

  constructor(store: KeyStore, options: KeyProviderOptions = {}) {
    this.#store = store;
    this.#random = options.random ?? createSecureRandom();
    this.#defaultCipher = options.defaultCipher ?? 'AES/CTR/NoPadding';
    this.#defaultBitLength = options.defaultBitLength ?? 128;
    this.#clock = options.clock ?? systemClock;
  }

  /** The generator this provider draws from. */
  get random(): SecureRandom {
    return this.#random;
  }

  getKeyNames(): string[] {
    return [...this.#store.state.keys.keys()];
  }

  getMetadata(name: string): KeyMetadata | undefined {
    const key = this.#store.state.keys.get(name);
    return key === undefined ? undefined : metadataOf(key);
  }

  getCurrentKey(name: string): KeyVersion | undefined {
    const key = this.#store.state.keys.get(name);
    if (key === undefined) return undefined;
    return versionOf(key, key.versions.length - 1);
  }

  getKeyVersion(versionName: string): KeyVersion | undefined {
    const parsed = parseVersionName(versionName);
    if (parsed === undefined) return undefined;
    const key = this.#store.state.keys.get(parsed.name);
    if (key === undefined || parsed.version >= key.versions.length) return undefined;
    return versionOf(key, parsed.version);
  }

  /** Every version of a key, oldest first; `undefined` for a missing key. */
  getKeyVersions(name: string): KeyVersion[] | undefined {
    const key = this.#store.state.keys.get(name);
    return key === undefined ? undefined : key.versions.map((_, i) => versionOf(key, i));
  }

  /**
   * Creates a key with version `name@0`. Refuses an existing name (`ERR_KMS_KEY_EXISTS`), a
   * cipher other than AES (`ERR_KMS_UNSUPPORTED_CIPHER`), a length other than 128/192/256 and
   * material of the wrong length (`ERR_KMS_INVALID_KEY_MATERIAL`).
   */
  async createKey(name: string, options: CreateKeyOptions = {}): Promise<KeyVersion> {
    const cipher = options.cipher ?? this.#defaultCipher;
    const bitLength = options.bitLength ?? this.#defaultBitLength;
    checkCipher(cipher, bitLength);
    if (this.#store.state.keys.has(name))
      throw new KmsRequestError('ERR_KMS_KEY_EXISTS', `Key ${name} already exists`);
    const material = options.material ?? new Redacted(this.#random.bytes(bitLength / 8));
    checkMaterialLength(bitLength, material);
    const state = await this.#store.apply({
      op: 'create',
      name,
      cipher,
      bitLength,
      description: options.description ?? null,
      attributes: { ...options.attributes },
      created: this.#clock.now(),
      material,
    });
    return versionOf(state.keys.get(name) as StoredKey, 0);
  }

  /** Adds a version (random material unless given) and makes it current. */
  async rollNewVersion(name: string, material?: Redacted<Buffer>): Promise<KeyVersion> {
    const key = this.#store.state.keys.get(name);
    if (key === undefined) throw new KmsRequestError('ERR_KMS_KEY_NOT_FOUND', `Key ${name} not found`);
    const next = material ?? new Redacted(this.#random.bytes(key.bitLength / 8));
    checkMaterialLength(key.bitLength, next);
    const state = await this.#store.apply({ op: 'roll', name, material: next });
    const rolled = state.keys.get(name) as StoredKey;
    return versionOf(rolled, rolled.versions.length - 1);
  }

  /** Deletes a key and all its versions. */
  async deleteKey(name: string): Promise<void> {
    if (!this.#store.state.keys.has(name)) {
      throw new KmsRequestError('ERR_KMS_KEY_NOT_FOUND', `Key ${name} does not exist`);
    }
    await this.#store.apply({ op: 'delete', name });
  }

  /** A new DEK encrypted under the key's current version. */
  generateEncryptedKey(name: string): EncryptedKeyVersion {
    const current = this.#currentOrThrow(name);
    const material = (current.material as Redacted<Buffer>).unwrap();
    const dek = this.#random.bytes(material.length);
    try {
      return this.#encrypt(name, current.versionName, material, dek, this.#random.bytes(EEK_IV_BYTES));
    } finally {
      dek.fill(0);
    }
  }

  /**
   * Decrypts an EEK: checks that its version exists and belongs to its key (Hadoop's messages),
   * and returns the DEK as version `EK`.
   */
  decryptEncryptedKey(eek: EncryptedKeyVersion): KeyVersion {
    const version = this.#belongingVersion(eek);
    checkIv(eek.iv);
    const dek = decryptDek((version.material as Redacted<Buffer>).unwrap(), eek.iv, eek.encryptedKey);
    return { name: eek.keyName, versionName: EK_VERSION_NAME, material: new Redacted(dek) };
  }

  /** Re-encrypts an EEK's DEK under the key's current version, with the same IV. */
  reencryptEncryptedKey(eek: EncryptedKeyVersion): EncryptedKeyVersion {
    const dek = this.decryptEncryptedKey(eek).material as Redacted<Buffer>;
    const current = this.#currentOrThrow(eek.keyName);
    try {
      return this.#encrypt(
        eek.keyName,
        current.versionName,
        (current.material as Redacted<Buffer>).unwrap(),
        dek.unwrap(),
        eek.iv,
      );
    } finally {
      dek.unwrap().fill(0);
    }
  }

  /**
   * Re-encrypts many EEKs of one key under its current version. All must belong to `name`;
   * EEKs already on the current version are returned as they are.
   */
  reencryptEncryptedKeys(name: string, eeks: readonly EncryptedKeyVersion[]): EncryptedKeyVersion[] {
    for (const eek of eeks) {
      if (eek.keyName !== name) {
        throw new KmsRequestError(
          'ERR_KMS_BAD_REQUEST',
          `All keys must have the same key name. Expected '${name}' but found '${eek.keyName}'`,
        );
      }
      this.#belongingVersion(eek);
      checkIv(eek.iv);
    }
    const current = this.#currentOrThrow(name);
    return eeks.map((eek) =>
      eek.encryptionKeyVersionName === current.versionName ? eek : this.reencryptEncryptedKey(eek),
    );
  }

  #encrypt(
    keyName: string,
    versionName: string,
    material: Buffer,
    dek: Buffer,
    iv: Buffer,
  ): EncryptedKeyVersion {
    return {
      keyName,
      encryptionKeyVersionName: versionName,
      iv,
      encryptedKey: encryptDek(material, iv, dek),
    };
  }

  #currentOrThrow(name: string): KeyVersion {
    const current = this.getCurrentKey(name);
    if (current === undefined)
      throw new KmsRequestError('ERR_KMS_KEY_NOT_FOUND', `No KeyVersion exists for key '${name}' `);
    return current;
  }

  #belongingVersion(eek: EncryptedKeyVersion): KeyVersion {
    const version = this.getKeyVersion(eek.encryptionKeyVersionName);
    if (version === undefined) {
      throw new KmsRequestError('ERR_KMS_BAD_REQUEST', `'${eek.encryptionKeyVersionName}' not found`);
    }
    if (version.name !== eek.keyName) {
      throw new KmsRequestError(
        'ERR_KMS_BAD_REQUEST',
        `KeyVersion '${eek.encryptionKeyVersionName}' does not belong to the key '${eek.keyName}'`,
      );
    }
    return version;
  }
}

function versionOf(key: StoredKey, version: number): KeyVersion {
  return {
    name: key.name,
    versionName: buildVersionName(key.name, version),
    material: key.versions[version] as Redacted<Buffer>,
  };
}

function metadataOf(key: StoredKey): KeyMetadata {
  return {
    name: key.name,
    cipher: key.cipher,
    length: key.bitLength,
    description: key.description,
    attributes: key.attributes,
    created: key.created,
    versions: key.versions.length,
  };
}

/** Refuses a cipher other than AES and a length other than 128, 192 or 256 bits. */
export function checkCipher(cipher: string, bitLength: number): void {
  const algorithm = cipher.split('/')[0] ?? '';
  if (algorithm.toUpperCase() !== 'AES') {
    throw new KmsRequestError('ERR_KMS_UNSUPPORTED_CIPHER', `${algorithm} KeyGenerator not available`);
  }
  if (!AES_BIT_LENGTHS.includes(bitLength)) {
    throw new KmsRequestError(
      'ERR_KMS_INVALID_KEY_MATERIAL',
      'Wrong keysize: must be equal to 128, 192 or 256',
    );
  }
}

/** Refuses material whose length is not the key's. */
export function checkMaterialLength(bitLength: number, material: Redacted<Buffer>): void {
  const bits = material.unwrap().length * 8;
  if (bits !== bitLength) {
    throw new KmsRequestError(
      'ERR_KMS_INVALID_KEY_MATERIAL',
      `Wrong key length. Required ${bitLength}, but got ${bits}`,
    );
  }
}

function checkIv(iv: Buffer): void {
  if (iv.length !== EEK_IV_BYTES) {
    throw new KmsRequestError(
      'ERR_KMS_BAD_REQUEST',
      `Parameter 'iv' must be ${EEK_IV_BYTES} bytes, got ${iv.length}`,
    );
  }
}
