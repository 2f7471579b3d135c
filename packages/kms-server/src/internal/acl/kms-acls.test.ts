import { expect } from '@jest/globals';
import { HadoopConfiguration } from '@fastpath/hadoop-common';
import { DEFAULT_KMS_ACLS, KmsAcls } from './kms-acls.js';
import type { KmsUser } from './kms-user.js';

const conf = (props: Record<string, string>) =>
  new HadoopConfiguration(Object.entries(props).map(([k, v]) => [k, { value: v, source: 'test' }] as const));
const user = (name: string): KmsUser => ({ name, shortName: name, realUser: undefined, groups: () => [] });

describe('KmsAcls', () => {
  it('defaults missing operation ACLs to everyone and applies blacklists', () => {
    const acls = KmsAcls.fromConfiguration(
      conf({ 'hadoop.kms.acl.CREATE': 'alice', 'hadoop.kms.blacklist.GET': 'bob' }),
    );
    expect(acls.hasAccess('CREATE', user('alice'))).toBe(true);
    expect(acls.hasAccess('CREATE', user('bob'))).toBe(false);
    expect(acls.hasAccess('DELETE', user('bob'))).toBe(true);
    expect(acls.hasAccess('GET', user('bob'))).toBe(false);
    expect(acls.hasAccess('GET', user('alice'))).toBe(true);
  });

  it('has no key ACL at all without configuration: every key check is denied', () => {
    const acls = KmsAcls.fromConfiguration(conf({}));
    expect(acls.isAclPresent('k', 'READ')).toBe(false);
    expect(acls.checkKeyAccess('k', user('alice'), 'READ')).toBe(false);
    const shipped = KmsAcls.fromConfiguration(conf({ ...DEFAULT_KMS_ACLS }));
    expect(shipped.checkKeyAccess('k', user('alice'), 'READ')).toBe(true);
    expect(shipped.checkKeyAccess('k', user('alice'), 'ALL')).toBe(false);
  });

  it('warns about ALL in default/whitelist ACLs and unknown types, and refuses unknown key operations', () => {
    const acls = KmsAcls.fromConfiguration(
      conf({
        'default.key.acl.ALL': '*',
        'whitelist.key.acl.ALL': '*',
        'hadoop.kms.acl.FOO': '*',
        'key.acl.noop': 'x',
      }),
    );
    expect(acls.warnings).toHaveLength(4);
    expect(acls.isAclPresent('k', 'ALL')).toBe(false);
    expect(() => KmsAcls.fromConfiguration(conf({ 'default.key.acl.WRITE': '*' }))).toThrow(
      expect.objectContaining({ code: 'ERR_KMS_CONFIG', property: 'default.key.acl.WRITE' }),
    );
  });

  it('takes the key name up to the last dot, so names may contain dots', () => {
    const acls = KmsAcls.fromConfiguration(conf({ 'key.acl.my.key.READ': 'alice' }));
    expect(acls.checkKeyAccess('my.key', user('alice'), 'READ')).toBe(true);
    expect(acls.checkKeyAccess('my.key', user('bob'), 'READ')).toBe(false);
  });
});
