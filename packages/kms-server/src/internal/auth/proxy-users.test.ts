import type { KmsUser } from '../acl/kms-user.js';
import { ProxyUsers, normaliseAddress } from './proxy-users.js';

const user = (name: string, groups: string[] = []): KmsUser => ({
  name,
  shortName: name.split('@')[0] as string,
  realUser: undefined,
  groups: () => groups,
});

describe('ProxyUsers', () => {
  it('allows listed users and groups from listed hosts, with Hadoop messages otherwise', async () => {
    const proxies = await ProxyUsers.fromProperties(
      new Map([
        ['hadoop.kms.proxyuser.client.users', 'foo,bar'],
        ['hadoop.kms.proxyuser.client.groups', 'staff'],
        ['hadoop.kms.proxyuser.client.hosts', '10.0.0.0/8,192.168.1.7,localhost'],
        ['hadoop.kms.proxyuser.open.users', '*'],
        ['hadoop.kms.proxyuser.open.hosts', '*'],
        ['hadoop.kms.proxyuser.nohosts.users', '*'],
      ]),
    );
    expect(() => proxies.authorize(user('client'), user('foo'), '10.1.2.3')).not.toThrow();
    expect(() => proxies.authorize(user('client@R'), user('zed', ['staff']), '192.168.1.7')).not.toThrow();
    expect(() => proxies.authorize(user('client'), user('foo'), '127.0.0.1')).not.toThrow();
    expect(() => proxies.authorize(user('client'), user('foo1'), '10.1.2.3')).toThrow(
      'User: client is not allowed to impersonate foo1',
    );
    expect(() => proxies.authorize(user('client'), user('foo'), '172.16.0.1')).toThrow(
      'Unauthorized connection for super-user: client from IP 172.16.0.1',
    );
    expect(() => proxies.authorize(user('open'), user('anyone'), '8.8.8.8')).not.toThrow();
    expect(() => proxies.authorize(user('nohosts'), user('anyone'), '127.0.0.1')).toThrow(
      /Unauthorized connection/,
    );
    expect(() => proxies.authorize(user('stranger'), user('foo'), '127.0.0.1')).toThrow(
      /not allowed to impersonate/,
    );
    try {
      proxies.authorize(user('client'), user('foo1'), '10.1.2.3');
    } catch (error) {
      expect(error).toMatchObject({ code: 'ERR_KMS_ACCESS_DENIED' });
    }
  });

  it('normalises IPv4-mapped IPv6 addresses', () => {
    expect(normaliseAddress('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(normaliseAddress('::1')).toBe('::1');
  });
});
