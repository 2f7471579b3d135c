// ACL fixtures of the KMS tests. They live here, not in @fastpath/kms-server/testing, because
// they describe Hadoop's kms-acls.xml, which Apache Hadoop's KMS reads as well as fastpath's: the
// client's behaviour suite runs them against both servers, and a published entry of kms-server
// should not carry test data.

/**
 * The operations of `hadoop.kms.acl.<OP>` (and `hadoop.kms.blacklist.<OP>`), as Hadoop's KMSACLs
 * names them. Written out here rather than taken from kms-server's own list: the tests check the
 * server against Hadoop's names, not against themselves (and test-support depends on nothing).
 */
export const KMS_ACL_OPERATIONS: readonly string[] = Object.freeze([
  'CREATE',
  'DELETE',
  'ROLLOVER',
  'GET',
  'GET_KEYS',
  'GET_METADATA',
  'SET_KEY_MATERIAL',
  'GENERATE_EEK',
  'DECRYPT_EEK',
]);

/** Default key ACLs open to everyone: without any key ACL the KMS refuses every key operation. */
export const DEFAULT_KEY_ACLS: Readonly<Record<string, string>> = Object.freeze({
  'default.key.acl.MANAGEMENT': '*',
  'default.key.acl.GENERATE_EEK': '*',
  'default.key.acl.DECRYPT_EEK': '*',
  'default.key.acl.READ': '*',
});

/**
 * The key-ACL scenario (test 31 of the ACL list, run by kms-server's ACL test and by the client's
 * behaviour suite against both servers): key `managed` with its own MANAGEMENT and READ ACLs, key
 * `all_access` with ALL and a DECRYPT_EEK entry, a MANAGEMENT whitelist, and defaults that apply
 * only to keys without ACLs of their own. Every operation ACL is open.
 */
export function keyAclScenarioAcls(): Record<string, string> {
  return {
    ...operationAcls(() => '*'),
    'key.acl.managed.MANAGEMENT': 'alice',
    'key.acl.managed.READ': 'bob',
    'key.acl.all_access.ALL': 'carol',
    'key.acl.all_access.DECRYPT_EEK': 'dave',
    'whitelist.key.acl.MANAGEMENT': 'admin',
    'default.key.acl.MANAGEMENT': 'alice,carol',
    'default.key.acl.READ': '*',
    'default.key.acl.GENERATE_EEK': '*',
  };
}

/**
 * One `hadoop.kms.acl.<OP>` entry per operation, its value chosen by `value(op)`.
 *
 * @example
 * ```ts
 * const acls = { ...operationAcls((op) => (op === 'CREATE' ? 'creator' : '*')), ...DEFAULT_KEY_ACLS };
 * ```
 */
export function operationAcls(value: (op: string) => string): Record<string, string> {
  return Object.fromEntries(KMS_ACL_OPERATIONS.map((op) => [`hadoop.kms.acl.${op}`, value(op)]));
}

/** A kms-acls.xml (a Hadoop configuration file) holding `acls` in order, names and values escaped. */
export function kmsAclsXml(acls: Readonly<Record<string, string>>): string {
  const body = Object.entries(acls)
    .map(
      ([name, value]) =>
        `  <property><name>${escapeXml(name)}</name><value>${escapeXml(value)}</value></property>`,
    )
    .join('\n');
  return `<?xml version="1.0"?>\n<configuration>\n${body}\n</configuration>\n`;
}

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
