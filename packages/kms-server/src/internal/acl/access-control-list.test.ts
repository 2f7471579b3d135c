import { AccessControlList } from './access-control-list.js';
import type { KmsUser } from './kms-user.js';

const user = (name: string, groups: string[] = []): KmsUser => ({
  name,
  shortName: name,
  realUser: undefined,
  groups: () => groups,
});

describe('AccessControlList', () => {
  it.each([
    ['*', true, true],
    [' * ', true, true],
    ['alice,bob', true, false],
    ['alice, bob ', true, false],
    [' admins', false, true],
    ['bob admins,ops', false, true],
    [' ', false, false],
    ['', false, false],
    ['nobody *', true, true],
  ])('%j: alice allowed %s, carol (in admins) allowed %s', (acl, alice, carol) => {
    const list = new AccessControlList(acl);
    expect(list.isUserAllowed(user('alice'))).toBe(alice);
    expect(list.isUserAllowed(user('carol', ['admins']))).toBe(carol);
  });

  it('matches short names and resolves groups only when needed', () => {
    let asked = 0;
    const lazy: KmsUser = {
      name: 'alice@EXAMPLE.COM',
      shortName: 'alice',
      realUser: undefined,
      groups: () => {
        asked++;
        return [];
      },
    };
    expect(new AccessControlList('alice').isUserAllowed(lazy)).toBe(true);
    expect(new AccessControlList('bob').isUserAllowed(lazy)).toBe(false);
    expect(asked).toBe(0);
    expect(new AccessControlList('bob admins').isUserAllowed(lazy)).toBe(false);
    expect(asked).toBe(1);
    expect(String(new AccessControlList('a,b g'))).toBe('a,b g');
  });
});
