import { InvalidOptionError } from '@fastpath/core';
import {
  DEFAULT_ROUTER_ZK_DELEGATION_TOKEN_SECRET_MANAGER_OPTIONS,
  DEFAULT_ZK_DELEGATION_TOKEN_SECRET_MANAGER_OPTIONS,
  RouterZkDelegationTokenSecretManager,
  ZkDelegationTokenSecretManager,
  zkDtsmPaths,
  type ZkDelegationTokenSecretManagerOptions,
} from './zookeeper.js';

// Construction only: nothing here connects. Behaviour against a real ZooKeeper is in test/.
describe('ZkDelegationTokenSecretManager options', () => {
  const base = { connectionString: '127.0.0.1:2181' };

  it("has Hadoop's defaults", () => {
    expect(DEFAULT_ZK_DELEGATION_TOKEN_SECRET_MANAGER_OPTIONS).toMatchObject({
      znodeWorkingPath: 'zkdtsm',
      sessionTimeoutMs: 10_000,
      connectionTimeoutMs: 10_000,
      connectRetries: 3,
      seqNumBatchSize: 100,
      tokenWatcherEnabled: true,
      authType: 'none',
    });
    expect(DEFAULT_ROUTER_ZK_DELEGATION_TOKEN_SECRET_MANAGER_OPTIONS.tokenSyncIntervalMs).toBe(5000);
    expect(new ZkDelegationTokenSecretManager(base).paths).toEqual(zkDtsmPaths('zkdtsm'));
  });

  it("lays out Hadoop's paths under the working path", () => {
    expect(zkDtsmPaths('/a/b/')).toEqual({
      workingPath: '/a/b',
      root: '/a/b/ZKDTSMRoot',
      seqNumRoot: '/a/b/ZKDTSMRoot/ZKDTSMSeqNumRoot',
      keyIdRoot: '/a/b/ZKDTSMRoot/ZKDTSMKeyIdRoot',
      masterKeyRoot: '/a/b/ZKDTSMRoot/ZKDTSMMasterKeyRoot',
      tokensRoot: '/a/b/ZKDTSMRoot/ZKDTSMTokensRoot',
    });
  });

  it.each<[string, Partial<ZkDelegationTokenSecretManagerOptions>]>([
    ['connectionString', { connectionString: '' }],
    ['znodeWorkingPath', { znodeWorkingPath: 'a//b' }],
    ['seqNumBatchSize', { seqNumBatchSize: 0 }],
    ['sessionTimeoutMs', { sessionTimeoutMs: -5 }],
    ['authType', { authType: 'kerberos' as never }],
    ['sasl', { authType: 'sasl' }],
    ['sasl.mechanism', { authType: 'sasl', sasl: { principal: 'kms@R' } as never }],
    ['sasl.principal', { authType: 'sasl', sasl: { mechanism: { start: () => never() }, principal: '' } }],
    ['digest', { authType: 'digest' }],
    ['digest.username', { authType: 'digest', digest: { username: 'a:b', password: 'p' } }],
    ['digest.password', { authType: 'digest', digest: { username: 'a', password: '' } }],
    ['tokenWatcherEnabled', { tokenWatcherEnabled: 'yes' as never }],
    ['persistMaxBatchSize', { persistMaxBatchSize: 0 }],
    ['tokenKind', { tokenKind: '' }],
  ])('rejects a bad %s at construction', (field, options) => {
    const make = (): unknown => new ZkDelegationTokenSecretManager({ ...base, ...options });
    expect(make).toThrow(InvalidOptionError);
    expect(make).toThrow(`"${field}"`);
  });

  it('keeps digest credentials out of its printed form', () => {
    const m = new ZkDelegationTokenSecretManager({
      ...base,
      authType: 'digest',
      digest: { username: 'kms', password: 'hunter2' },
    });
    expect(JSON.stringify(m.acl)).not.toContain('hunter2');
    expect(() => new RouterZkDelegationTokenSecretManager({ ...base, tokenSyncIntervalMs: 0 })).toThrow(
      '"tokenSyncIntervalMs"',
    );
  });
});

function never(): never {
  throw new Error('not started in these tests');
}
