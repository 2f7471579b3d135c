import { useZooKeeper } from '@fastpath/zookeeper-fixture/jest';
import { buildInfoOf, renewalOf, tokenUrlOf } from './support/kms-json.js';
import { startTestKms, remote, type TestKms } from './support/test-kms.js';
import { waitFor } from '@fastpath/test-support';

const ZK = 'hadoop.kms.authentication.zk-dt-secret-manager.';
const zk = useZooKeeper();

function zkSite(workingPath: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    [`${ZK}enable`]: 'true',
    [`${ZK}zkConnectionString`]: zk.connectString,
    [`${ZK}znodeWorkingPath`]: workingPath,
    [`${ZK}zkAuthType`]: 'none',
    ...extra,
  };
}

describe('ZooKeeper token store', () => {
  const servers: TestKms[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await s[Symbol.asyncDispose]();
  });

  it('reports itself in build-info, and a token issued by one KMS works through another sharing the tree', async () => {
    const path = zk.uniquePath('kms');
    const a = await startTestKms({ site: zkSite(path) });
    servers.push(a);
    const b = await startTestKms({ site: zkSite(path, { 'fastpath.kms.token.creation.locking': 'global' }) });
    servers.push(b);
    const info = buildInfoOf((await a.call('GET', '/build-info')).json());
    expect(info.tokenManager).toEqual({
      implementation: 'zookeeper',
      creationLocking: 'staged',
      persistCoalescing: true,
      kind: 'kms-dt',
      zookeeper: { connectionString: zk.connectString, znodeWorkingPath: path },
    });
    expect(buildInfoOf((await b.call('GET', '/build-info')).json()).tokenManager['creationLocking']).toBe(
      'global',
    );

    const got = await a.call('GET', '/kms/v1/?op=GETDELEGATIONTOKEN&renewer=client', { user: 'client' });
    expect(got.statusCode).toBe(200);
    const urlString = tokenUrlOf(got.json());
    // B has its own keystore: the token authenticates there; the key set is B's.
    expect((await b.call('GET', `/kms/v1/keys/names?delegation=${urlString}`)).json()).toEqual([]);
    const renewed = await b.call('PUT', `/kms/v1/?op=RENEWDELEGATIONTOKEN&token=${urlString}`, {
      user: 'client',
    });
    expect(renewed.statusCode).toBe(200);
    expect(renewalOf(renewed.json())).toBeGreaterThan(Date.now());
    expect(
      (await a.call('PUT', `/kms/v1/?op=CANCELDELEGATIONTOKEN&token=${urlString}`, { user: 'client' }))
        .statusCode,
    ).toBe(200);
    await waitFor(
      'the cancellation to reach the second KMS',
      async () => (await b.call('GET', `/kms/v1/keys/names?delegation=${urlString}`)).statusCode === 403,
    );
    const afterCancel = await b.call('GET', `/kms/v1/keys/names?delegation=${urlString}`);
    expect(remote(afterCancel).exception).toBe('AuthenticationException');
    // ZooKeeper latency and the persist stage are in the metrics.
    const metrics = (await a.call('GET', '/metrics')).body;
    expect(metrics).toMatch(/token_manager_zookeeper_operation_seconds_count\{[^}]*\} [1-9]/);
    expect(metrics).toMatch(/token_manager_create_persist_seconds_count [1-9]/);
  }, 60_000);

  it('answers 503 (retriable) while ZooKeeper cannot be reached, instead of hanging', async () => {
    const path = zk.uniquePath('kms-down');
    const kms = await startTestKms({
      site: zkSite(path, { [`${ZK}zkSessionTimeout`]: '4000', [`${ZK}zkConnectionTimeout`]: '2000' }),
    });
    servers.push(kms);
    expect((await kms.call('GET', '/kms/v1/?op=GETDELEGATIONTOKEN', { user: 'client' })).statusCode).toBe(
      200,
    );
    await zk.fixture.stop(0);
    try {
      const res = await kms.call('GET', '/kms/v1/?op=GETDELEGATIONTOKEN', { user: 'client' });
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('1');
      expect(remote(res).exception).toBe('IOException');
    } finally {
      await zk.fixture.restart(0);
    }
  }, 60_000);
});
