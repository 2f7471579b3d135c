import { DEFAULT_ZOOKEEPER_FIXTURE_OPTIONS, resolveFixtureOptions } from './zookeeper-fixture-options.js';

describe('resolveFixtureOptions', () => {
  it('fills in the defaults', () => {
    const resolved = resolveFixtureOptions({});
    expect(resolved).toMatchObject({
      nodes: 1,
      heapMb: 256,
      tickTimeMs: 2000,
      minSessionTimeoutMs: undefined,
      maxSessionTimeoutMs: undefined,
      startTimeoutMs: 30_000,
      portRetries: 3,
    });
    expect(Object.isFrozen(DEFAULT_ZOOKEEPER_FIXTURE_OPTIONS)).toBe(true);
  });

  it('names the bad field', () => {
    expect(() => resolveFixtureOptions({ nodes: 10 })).toThrow(/invalid option "nodes"/);
    expect(() => resolveFixtureOptions({ tickTimeMs: 0 })).toThrow(/invalid option "tickTimeMs"/);
    expect(() => resolveFixtureOptions({ baseDir: '' })).toThrow(/invalid option "baseDir"/);
    expect(() => resolveFixtureOptions({ extraConfig: { 'bad key': 1 } })).toThrow(
      /invalid option "extraConfig"/,
    );
    expect(() => resolveFixtureOptions({ extraConfig: { ok: 'line\nbreak' } })).toThrow(
      /invalid option "extraConfig"/,
    );
  });

  it('checks session timeouts against ZooKeeper defaults derived from tickTime', () => {
    expect(() => resolveFixtureOptions({ tickTimeMs: 1000, minSessionTimeoutMs: 30_000 })).toThrow(
      /invalid option "minSessionTimeoutMs".*must not exceed maxSessionTimeout \(20000 ms\)/,
    );
    expect(resolveFixtureOptions({ tickTimeMs: 1000, maxSessionTimeoutMs: 60_000 }).maxSessionTimeoutMs).toBe(
      60_000,
    );
  });

  it('takes a Kerberos setup, requiring client SASL by default, and refuses what a JAAS file cannot quote', () => {
    const kerberos = {
      krb5ConfigPath: '/r/krb5.conf',
      keytab: '/r/zk.keytab',
      principal: 'zookeeper/localhost@R',
    };
    expect(resolveFixtureOptions({}).kerberos).toBeUndefined();
    expect(resolveFixtureOptions({ kerberos }).kerberos).toEqual({ ...kerberos, requireClientAuth: true });
    expect(
      resolveFixtureOptions({ kerberos: { ...kerberos, requireClientAuth: false } }).kerberos
        ?.requireClientAuth,
    ).toBe(false);
    expect(() => resolveFixtureOptions({ kerberos: { ...kerberos, keytab: '' } })).toThrow(
      /invalid option "kerberos.keytab"/,
    );
    expect(() => resolveFixtureOptions({ kerberos: { ...kerberos, principal: 'a"b' } })).toThrow(
      /invalid option "kerberos.principal"/,
    );
  });
});
