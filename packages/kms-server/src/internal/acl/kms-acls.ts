import type { HadoopConfiguration } from '@fastpath/hadoop-common';
import { toKmsConfigError } from '../config/kms-config-errors.js';
import { AccessControlList } from './access-control-list.js';
import type { KmsUser } from './kms-user.js';

/** The operation ACL types of `kms-acls.xml` (`hadoop.kms.acl.<TYPE>`, `hadoop.kms.blacklist.<TYPE>`). */
export const KMS_ACL_TYPES = Object.freeze([
  'CREATE',
  'DELETE',
  'ROLLOVER',
  'GET',
  'GET_KEYS',
  'GET_METADATA',
  'SET_KEY_MATERIAL',
  'GENERATE_EEK',
  'DECRYPT_EEK',
] as const);
export type KmsAclType = (typeof KMS_ACL_TYPES)[number];

/** The key operation types of key ACLs (`key.acl.<key>.<OP>`). */
export const KEY_OP_TYPES = Object.freeze([
  'MANAGEMENT',
  'GENERATE_EEK',
  'DECRYPT_EEK',
  'READ',
  'ALL',
] as const);
export type KeyOpType = (typeof KEY_OP_TYPES)[number];

export const KEY_ACL_PREFIX = 'key.acl.';
export const DEFAULT_KEY_ACL_PREFIX = 'default.key.acl.';
export const WHITELIST_KEY_ACL_PREFIX = 'whitelist.key.acl.';
/** The key attribute naming the key ACL that governs a key. */
export const KEY_ACL_NAME_ATTRIBUTE = 'key.acl.name';

/**
 * The `kms-acls.xml` properties that apply when there is no such file: Hadoop's shipped file
 * (every operation to everyone, and default key ACLs for every key operation to everyone).
 */
export const DEFAULT_KMS_ACLS: Readonly<Record<string, string>> = Object.freeze({
  ...Object.fromEntries(KMS_ACL_TYPES.map((t) => [`hadoop.kms.acl.${t}`, '*'])),
  'default.key.acl.MANAGEMENT': '*',
  'default.key.acl.GENERATE_EEK': '*',
  'default.key.acl.DECRYPT_EEK': '*',
  'default.key.acl.READ': '*',
});

type KeyAclMap = ReadonlyMap<KeyOpType, AccessControlList>;

/**
 * Hadoop's `KMSACLs`: operation ACLs with blacklists, and key ACLs (per key, default, whitelist),
 * read from `kms-acls.xml` properties. Immutable: a reload builds a new one.
 *
 * @example
 * ```ts
 * const acls = KmsAcls.fromConfiguration(conf);
 * acls.hasAccess('CREATE', user);
 * acls.hasAccessToKey('k1', user, 'DECRYPT_EEK');
 * ```
 */
export class KmsAcls {
  readonly #acls: ReadonlyMap<KmsAclType, AccessControlList>;
  readonly #blacklists: ReadonlyMap<KmsAclType, AccessControlList>;
  readonly #keyAcls: ReadonlyMap<string, KeyAclMap>;
  readonly #defaultKeyAcls: KeyAclMap;
  readonly #whitelistKeyAcls: KeyAclMap;
  /** Properties that were ignored, with the reason (logged at load). */
  readonly warnings: readonly string[];

  private constructor(parts: {
    acls: Map<KmsAclType, AccessControlList>;
    blacklists: Map<KmsAclType, AccessControlList>;
    keyAcls: Map<string, Map<KeyOpType, AccessControlList>>;
    defaultKeyAcls: Map<KeyOpType, AccessControlList>;
    whitelistKeyAcls: Map<KeyOpType, AccessControlList>;
    warnings: string[];
  }) {
    this.#acls = parts.acls;
    this.#blacklists = parts.blacklists;
    this.#keyAcls = parts.keyAcls;
    this.#defaultKeyAcls = parts.defaultKeyAcls;
    this.#whitelistKeyAcls = parts.whitelistKeyAcls;
    this.warnings = Object.freeze(parts.warnings);
  }

  /**
   * Reads the ACL properties. A key ACL with an unknown operation is refused with
   * `ERR_KMS_CONFIG` naming it; `ALL` in default or whitelist ACLs is ignored with a warning (as
   * Hadoop does), as are unknown `hadoop.kms.acl.*` types.
   */
  static fromConfiguration(conf: HadoopConfiguration): KmsAcls {
    const warnings: string[] = [];
    const acls = new Map<KmsAclType, AccessControlList>();
    const blacklists = new Map<KmsAclType, AccessControlList>();
    for (const type of KMS_ACL_TYPES) {
      acls.set(type, new AccessControlList(conf.get(`hadoop.kms.acl.${type}`) ?? '*'));
      const blacklist = conf.get(`hadoop.kms.blacklist.${type}`);
      if (blacklist !== undefined) blacklists.set(type, new AccessControlList(blacklist));
    }
    const keyAcls = new Map<string, Map<KeyOpType, AccessControlList>>();
    const defaultKeyAcls = new Map<KeyOpType, AccessControlList>();
    const whitelistKeyAcls = new Map<KeyOpType, AccessControlList>();
    const opType = (key: string, op: string): KeyOpType => {
      if (!(KEY_OP_TYPES as readonly string[]).includes(op)) {
        throw toKmsConfigError(
          conf.invalid(key, `unknown key operation "${op}"; expected one of ${KEY_OP_TYPES.join(', ')}`),
        );
      }
      return op as KeyOpType;
    };
    for (const key of conf.keys()) {
      const value = conf.get(key) ?? '';
      if (key.startsWith('hadoop.kms.acl.') || key.startsWith('hadoop.kms.blacklist.')) {
        const type = key.slice(key.lastIndexOf('.') + 1);
        if (!(KMS_ACL_TYPES as readonly string[]).includes(type))
          warnings.push(`${key}: unknown ACL type "${type}", ignored`);
      } else if (key.startsWith(KEY_ACL_PREFIX)) {
        const rest = key.slice(KEY_ACL_PREFIX.length);
        const dot = rest.lastIndexOf('.');
        if (dot <= 0) {
          warnings.push(`${key}: expected key.acl.<key name>.<operation>, ignored`);
          continue;
        }
        const op = opType(key, rest.slice(dot + 1));
        const name = rest.slice(0, dot);
        let map = keyAcls.get(name);
        if (!map) keyAcls.set(name, (map = new Map<KeyOpType, AccessControlList>()));
        map.set(op, new AccessControlList(value));
      } else if (key.startsWith(DEFAULT_KEY_ACL_PREFIX) || key.startsWith(WHITELIST_KEY_ACL_PREFIX)) {
        const isDefault = key.startsWith(DEFAULT_KEY_ACL_PREFIX);
        const op = opType(
          key,
          key.slice((isDefault ? DEFAULT_KEY_ACL_PREFIX : WHITELIST_KEY_ACL_PREFIX).length),
        );
        if (op === 'ALL') {
          warnings.push(
            `${key}: the ALL operation is not allowed in ${isDefault ? 'default' : 'whitelist'} key ACLs, ignored`,
          );
          continue;
        }
        (isDefault ? defaultKeyAcls : whitelistKeyAcls).set(op, new AccessControlList(value));
      }
    }
    return new KmsAcls({ acls, blacklists, keyAcls, defaultKeyAcls, whitelistKeyAcls, warnings });
  }

  /** In the operation ACL and not in its blacklist. */
  hasAccess(type: KmsAclType, user: KmsUser): boolean {
    if (!(this.#acls.get(type)?.isUserAllowed(user) ?? false)) return false;
    const blacklist = this.#blacklists.get(type);
    return blacklist === undefined || !blacklist.isUserAllowed(user);
  }

  /** Whether any key ACL (for this ACL name, default, or whitelist) covers `op`. */
  isAclPresent(aclName: string, op: KeyOpType): boolean {
    return this.#keyAcls.has(aclName) || this.#defaultKeyAcls.has(op) || this.#whitelistKeyAcls.has(op);
  }

  /**
   * Hadoop's `hasAccessToKey`: the key's own ACLs (or, when the key has none at all, the
   * defaults) allow `user` for `op`, or the whitelist does.
   */
  hasAccessToKey(aclName: string, user: KmsUser, op: KeyOpType): boolean {
    const own = this.#keyAcls.get(aclName) ?? this.#defaultKeyAcls;
    return (
      (own.get(op)?.isUserAllowed(user) ?? false) ||
      (this.#whitelistKeyAcls.get(op)?.isUserAllowed(user) ?? false)
    );
  }

  /** The key-ACL decision: an ACL is present for `op`, and `op` or `ALL` allows the user. */
  checkKeyAccess(aclName: string, user: KmsUser, op: KeyOpType): boolean {
    return (
      this.isAclPresent(aclName, op) &&
      (this.hasAccessToKey(aclName, user, op) || this.hasAccessToKey(aclName, user, 'ALL'))
    );
  }
}
