import type { KmsAcls, KeyOpType, KmsAclType } from '../acl/kms-acls.js';
import { KEY_ACL_NAME_ATTRIBUTE } from '../acl/kms-acls.js';
import type { KmsUser } from '../acl/kms-user.js';
import type { KmsAudit, KmsOp } from '../audit/kms-audit.js';
import { KmsRequestError } from '../../kms-errors.js';
import type { KeyProvider, KeyVersion } from '../keys/key-provider.js';
import type { KmsInput } from './kms-input.js';
import {
  eekJson,
  keyVersionJson,
  metadataJson,
  type EekJson,
  type KeyVersionJson,
  type MetadataJson,
} from './kms-json.js';

/** A key created: its name (for its address) and its first version. */
export interface CreatedKey {
  readonly name: string;
  readonly version: KeyVersionJson;
}

/** What a decrypt or reencrypt answers: a key version (the DEK) or the re-encrypted EEK. */
export type EekAnswer =
  | { readonly kind: 'decrypt'; readonly value: KeyVersionJson }
  | { readonly kind: 'reencrypt'; readonly value: EekJson };

/** What {@link KmsOperations} works with. */
export interface KmsOperationsOptions {
  keys: KeyProvider;
  /** The ACLs in force (they change on reload). */
  acls: () => KmsAcls;
  audit: KmsAudit;
  /** Hadoop's `hadoop.kms.key.authorization.enable`. */
  keyAuthorization: boolean;
  /** Most EEKs one generate request may ask for. */
  maxEekPerRequest: number;
  /** The checks of names and bodies, run before any ACL check, audit line or store access. */
  input: KmsInput;
  /** Cipher and length of keys created without them, for checking a create body in full. */
  keyDefaults: { cipher: string; bitLength: number };
}

const EEK_GENERATE = 'generate';
const EEK_DECRYPT = 'decrypt';
const EEK_REENCRYPT = 'reencrypt';

/**
 * The KMS REST operations with Hadoop's checks in Hadoop's order: parameters, the operation ACL
 * (`hadoop.kms.acl.*` minus blacklists), then the key ACL of the key's ACL name, then the key
 * operation, then the audit line. Every parameter and the whole body are checked first (through
 * {@link KmsInput}), so a refused request writes no audit line of success and changes no key.
 * Independent of HTTP: each returns Hadoop's JSON value (or nothing) and fails with a typed
 * `KmsRequestError`, whose code the HTTP layer answers through the error catalogue.
 */
export class KmsOperations {
  readonly #o: KmsOperationsOptions;

  constructor(options: KmsOperationsOptions) {
    this.#o = options;
  }

  /** `POST /v1/keys`. */
  async createKey(user: KmsUser, body: unknown): Promise<CreatedKey> {
    const { name, cipher, bitLength, description, attributes, material } = this.#o.input.createKey(
      body,
      this.#o.keyDefaults,
    );
    this.#assertAccess('CREATE', user, 'CREATE_KEY', name);
    if (material !== undefined) this.#assertAccess('SET_KEY_MATERIAL', user, 'CREATE_KEY', name);
    if (this.#o.keyAuthorization) this.#authorizeCreate(user, name, attributes);
    const version = await this.#o.keys.createKey(name, {
      cipher,
      bitLength,
      description,
      attributes: Object.fromEntries(attributes),
      material,
    });
    this.#o.audit.ok(
      auditNameOf(user),
      'CREATE_KEY',
      name,
      `UserProvidedMaterial:${material !== undefined} Description:${description}`,
    );
    return { name, version: this.#withheldUnlessGet(user, version) };
  }

  /** `DELETE /v1/key/<name>`. */
  async deleteKey(user: KmsUser, name: string): Promise<void> {
    this.#o.input.keyName(name);
    this.#assertAccess('DELETE', user, 'DELETE_KEY', name);
    this.#keyAccess(user, name, 'MANAGEMENT', 'DELETE_KEY');
    await this.#o.keys.deleteKey(name);
    this.#o.audit.ok(auditNameOf(user), 'DELETE_KEY', name, '');
  }

  /** `POST /v1/key/<name>`: a new version, with optional material. */
  async rolloverKey(user: KmsUser, name: string, body: unknown): Promise<KeyVersionJson> {
    this.#o.input.keyName(name);
    const material = this.#o.input.rolloverMaterial(body);
    this.#assertAccess('ROLLOVER', user, 'ROLL_NEW_VERSION', name);
    if (material !== undefined) this.#assertAccess('SET_KEY_MATERIAL', user, 'ROLL_NEW_VERSION', name);
    this.#keyAccess(user, name, 'MANAGEMENT', 'ROLL_NEW_VERSION');
    const version = await this.#o.keys.rollNewVersion(name, material);
    this.#o.audit.ok(
      auditNameOf(user),
      'ROLL_NEW_VERSION',
      name,
      `UserProvidedMaterial:${material !== undefined} NewVersion:${version.versionName}`,
    );
    return this.#withheldUnlessGet(user, version);
  }

  /** `POST /v1/key/<name>/_invalidatecache`. EEKs are never queued here, so nothing is stale. */
  invalidateCache(user: KmsUser, name: string): void {
    this.#o.input.keyName(name);
    this.#assertAccess('ROLLOVER', user, 'INVALIDATE_CACHE', name);
    this.#keyAccess(user, name, 'MANAGEMENT', 'INVALIDATE_CACHE');
    this.#o.audit.ok(auditNameOf(user), 'INVALIDATE_CACHE', name, '');
  }

  /** `GET /v1/key/<name>` and `…/_metadata`: `{}` for a missing key. */
  getMetadata(user: KmsUser, name: string): MetadataJson {
    this.#o.input.keyName(name);
    this.#assertAccess('GET_METADATA', user, 'GET_METADATA', name);
    this.#keyAccess(user, name, 'READ', 'GET_METADATA');
    const body: MetadataJson = metadataJson(this.#o.keys.getMetadata(name));
    this.#o.audit.ok(auditNameOf(user), 'GET_METADATA', name, '');
    return body;
  }

  /** `GET /v1/keys/metadata?key=…`: one entry per name, `{}` for missing keys. */
  getKeysMetadata(user: KmsUser, names: readonly string[]): MetadataJson[] {
    this.#o.input.keyNames(names);
    this.#assertAccess('GET_METADATA', user, 'GET_KEYS_METADATA', undefined);
    for (const name of names) this.#keyAccess(user, name, 'READ', 'GET_KEYS_METADATA');
    const body = names.map((name) => metadataJson(this.#o.keys.getMetadata(name)));
    this.#o.audit.ok(auditNameOf(user), 'GET_KEYS_METADATA', undefined, '');
    return body;
  }

  /** `GET /v1/keys/names`. */
  getKeyNames(user: KmsUser): string[] {
    this.#assertAccess('GET_KEYS', user, 'GET_KEYS', undefined);
    const body = this.#o.keys.getKeyNames();
    this.#o.audit.ok(auditNameOf(user), 'GET_KEYS', undefined, '');
    return body;
  }

  /** `GET /v1/key/<name>/_currentversion`: `{}` for a missing key. */
  getCurrentVersion(user: KmsUser, name: string): KeyVersionJson | Record<string, never> {
    this.#o.input.keyName(name);
    this.#assertAccess('GET', user, 'GET_CURRENT_KEY', name);
    this.#keyAccess(user, name, 'READ', 'GET_CURRENT_KEY');
    const version = this.#o.keys.getCurrentKey(name);
    this.#o.audit.ok(auditNameOf(user), 'GET_CURRENT_KEY', name, '');
    return version === undefined ? {} : keyVersionJson(version);
  }

  /** `GET /v1/key/<name>/_versions`: oldest first; `[]` for a missing key. */
  getKeyVersions(user: KmsUser, name: string): KeyVersionJson[] {
    this.#o.input.keyName(name);
    this.#assertAccess('GET', user, 'GET_KEY_VERSIONS', name);
    this.#keyAccess(user, name, 'READ', 'GET_KEY_VERSIONS');
    const body: KeyVersionJson[] = (this.#o.keys.getKeyVersions(name) ?? []).map(keyVersionJson);
    this.#o.audit.ok(auditNameOf(user), 'GET_KEY_VERSIONS', name, '');
    return body;
  }

  /** `GET /v1/keyversion/<versionName>`: `{}` for a missing version. */
  getKeyVersion(user: KmsUser, versionName: string): KeyVersionJson | Record<string, never> {
    this.#o.input.versionName(versionName);
    this.#assertAccess('GET', user, 'GET_KEY_VERSION', undefined);
    const version = this.#o.keys.getKeyVersion(versionName);
    if (version === undefined) return {};
    this.#keyAccess(user, version.name, 'READ', 'GET_KEY_VERSION');
    this.#o.audit.ok(auditNameOf(user), 'GET_KEY_VERSION', version.name, '');
    return keyVersionJson(version);
  }

  /** `GET /v1/key/<name>/_eek?eek_op=generate&num_keys=N`. */
  generateEeks(user: KmsUser, name: string, eekOp: string | null, numKeysParam: string | null): EekJson[] {
    this.#o.input.keyName(name);
    if (eekOp === null) throw new KmsRequestError('ERR_KMS_BAD_REQUEST', "Parameter 'eekOp' cannot be null");
    if (eekOp !== EEK_GENERATE) {
      throw new KmsRequestError(
        'ERR_KMS_BAD_REQUEST',
        'IllegalArgumentException Wrong eek_op value, it must be generate or decrypt',
      );
    }
    const numKeys = numKeysParam === null ? 1 : Number(numKeysParam.trim());
    if (
      numKeysParam !== null &&
      (!/^[-+]?\d+$/.test(numKeysParam.trim()) || !Number.isSafeInteger(numKeys))
    ) {
      throw new KmsRequestError('ERR_KMS_BAD_REQUEST', "Parameter 'num_keys' must be an integer");
    }
    if (numKeys > this.#o.maxEekPerRequest) {
      throw new KmsRequestError(
        'ERR_KMS_BAD_REQUEST',
        `Parameter 'num_keys' must be at most ${this.#o.maxEekPerRequest}`,
      );
    }
    this.#assertAccess('GENERATE_EEK', user, 'GENERATE_EEK', name);
    this.#keyAccess(user, name, 'GENERATE_EEK', 'GENERATE_EEK');
    const body: EekJson[] = [];
    for (let i = 0; i < numKeys; i++) body.push(eekJson(this.#o.keys.generateEncryptedKey(name)));
    this.#o.audit.ok(auditNameOf(user), 'GENERATE_EEK', name, '');
    return body;
  }

  /** `POST /v1/keyversion/<versionName>/_eek?eek_op=decrypt|reencrypt` with `{name, iv, material}`. */
  handleEek(user: KmsUser, versionName: string, eekOp: string | null, body: unknown): EekAnswer {
    this.#o.input.versionName(versionName);
    if (eekOp === null) throw new KmsRequestError('ERR_KMS_BAD_REQUEST', "Parameter 'eekOp' cannot be null");
    if (eekOp !== EEK_DECRYPT && eekOp !== EEK_REENCRYPT) {
      throw new KmsRequestError(
        'ERR_KMS_BAD_REQUEST',
        'IllegalArgumentException Wrong eek_op value, it must be decrypt or reencrypt',
      );
    }
    const eek = this.#o.input.eekBody(body, versionName);
    const decrypt = eekOp === EEK_DECRYPT;
    const op: KmsOp = decrypt ? 'DECRYPT_EEK' : 'REENCRYPT_EEK';
    this.#assertAccess(decrypt ? 'DECRYPT_EEK' : 'GENERATE_EEK', user, op, eek.keyName);
    // Hadoop checks that the version exists and belongs to the key before the key ACL.
    const version = this.#o.keys.getKeyVersion(versionName);
    if (version === undefined) throw new KmsRequestError('ERR_KMS_BAD_REQUEST', `'${versionName}' not found`);
    if (version.name !== eek.keyName) {
      throw new KmsRequestError(
        'ERR_KMS_BAD_REQUEST',
        `KeyVersion '${versionName}' does not belong to the key '${eek.keyName}'`,
      );
    }
    this.#keyAccess(user, eek.keyName, decrypt ? 'DECRYPT_EEK' : 'GENERATE_EEK', op);
    const result: EekAnswer = decrypt
      ? { kind: 'decrypt', value: keyVersionJson(this.#o.keys.decryptEncryptedKey(eek)) }
      : { kind: 'reencrypt', value: eekJson(this.#o.keys.reencryptEncryptedKey(eek)) };
    this.#o.audit.ok(auditNameOf(user), op, eek.keyName, '');
    return result;
  }

  /** `POST /v1/key/<name>/_reencryptbatch` with an array of EEKs. */
  reencryptBatch(user: KmsUser, name: string, body: unknown): EekJson[] {
    this.#o.input.keyName(name);
    if (body === undefined || body === null)
      throw new KmsRequestError('ERR_KMS_BAD_REQUEST', "Parameter 'jsonPayload' cannot be null");
    const eeks = this.#o.input.eekBatch(body, name);
    this.#assertAccess('GENERATE_EEK', user, 'REENCRYPT_EEK_BATCH', name);
    if (eeks.length > 0) this.#keyAccess(user, name, 'GENERATE_EEK', 'REENCRYPT_EEK_BATCH');
    const result = this.#o.keys.reencryptEncryptedKeys(name, eeks).map(eekJson);
    this.#o.audit.ok(auditNameOf(user), 'REENCRYPT_EEK_BATCH', name, `reencrypted ${eeks.length} keys`);
    return result;
  }

  /** Hadoop's `KMSACLs.assertAccess`: audited and refused with its message. */
  #assertAccess(type: KmsAclType, user: KmsUser, op: KmsOp, key: string | undefined): void {
    if (this.#o.acls().hasAccess(type, user)) return;
    this.#o.audit.unauthorized(auditNameOf(user), op, key);
    throw new KmsRequestError(
      'ERR_KMS_ACCESS_DENIED',
      key === undefined
        ? `User:${user.shortName} not allowed to do '${op}'`
        : `User:${user.shortName} not allowed to do '${op}' on '${key}'`,
    );
  }

  /** Hadoop's `KeyAuthorizationKeyProvider.doAccessCheck`: skipped for a key that does not exist. */
  #keyAccess(user: KmsUser, keyName: string, keyOp: KeyOpType, op: KmsOp): void {
    if (!this.#o.keyAuthorization) return;
    const metadata = this.#o.keys.getMetadata(keyName);
    if (metadata === undefined) return;
    const aclName = metadata.attributes[KEY_ACL_NAME_ATTRIBUTE] ?? keyName;
    if (this.#o.acls().checkKeyAccess(aclName, user, keyOp)) return;
    this.#o.audit.unauthorized(auditNameOf(user), op, keyName);
    throw new KmsRequestError(
      'ERR_KMS_ACCESS_DENIED',
      `User [${user.shortName}] is not authorized to perform [${keyOp}] on key with ACL name [${aclName}]!!`,
    );
  }

  /** Hadoop's `authorizeCreateKey`: names the key ACL in the attributes when one applies. */
  #authorizeCreate(user: KmsUser, name: string, attributes: Map<string, string>): void {
    const acls = this.#o.acls();
    const aclName = attributes.get(KEY_ACL_NAME_ATTRIBUTE);
    let allowed: boolean;
    if (aclName === undefined || aclName === '') {
      allowed = acls.isAclPresent(name, 'MANAGEMENT');
      if (allowed) {
        attributes.set(KEY_ACL_NAME_ATTRIBUTE, name);
        allowed = acls.hasAccessToKey(name, user, 'MANAGEMENT') || acls.hasAccessToKey(name, user, 'ALL');
      }
    } else {
      allowed =
        acls.isAclPresent(aclName, 'MANAGEMENT') &&
        (acls.hasAccessToKey(aclName, user, 'MANAGEMENT') || acls.hasAccessToKey(aclName, user, 'ALL'));
    }
    if (!allowed) {
      this.#o.audit.unauthorized(auditNameOf(user), 'CREATE_KEY', name);
      throw new KmsRequestError(
        'ERR_KMS_ACCESS_DENIED',
        `User [${user.shortName}] is not authorized to create key !!`,
      );
    }
  }

  /** Key material only for callers the GET ACL allows (Hadoop's `removeKeyMaterial`). */
  #withheldUnlessGet(user: KmsUser, version: KeyVersion): KeyVersionJson {
    return keyVersionJson(this.#o.acls().hasAccess('GET', user) ? version : { ...version, material: null });
  }
}

/** The name an audit line writes for `user`. */
function auditNameOf(user: KmsUser): string {
  return user.auditName ?? user.shortName;
}
