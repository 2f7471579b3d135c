import { checkInteger } from '@fastpath/core';
import type { ZkTokenStoreOptions } from './internal/zk/zk-token-store.js';
import { ZkDelegationTokenSecretManager } from './zk-delegation-token-secret-manager.js';
import type { ZkDelegationTokenSecretManagerOptions } from './zk-delegation-token-secret-manager-options.js';

/** Options of {@link RouterZkDelegationTokenSecretManager}: the ZooKeeper options, watchers off. */
export interface RouterZkDelegationTokenSecretManagerOptions extends Omit<
  ZkDelegationTokenSecretManagerOptions,
  'tokenWatcherEnabled'
> {
  /**
   * How often the local token cache is rebuilt from ZooKeeper (ms); Hadoop's
   * `router.token.sync.interval`. Default: 5000.
   */
  tokenSyncIntervalMs?: number;
}

/** Defaults of the Router-specific options. */
export const DEFAULT_ROUTER_ZK_DELEGATION_TOKEN_SECRET_MANAGER_OPTIONS = Object.freeze({
  /** 5 s in ms between cache rebuilds (`router.token.sync.interval`, 5 s). */
  tokenSyncIntervalMs: 5000,
});

/**
 * The HDFS Router's ZooKeeper secret manager (`ZKDelegationTokenSecretManagerImpl`): no token
 * watches (thousands of routers would flood ZooKeeper with them); instead the local cache is
 * loaded at start and rebuilt from `ZKDTSMTokensRoot` every `tokenSyncIntervalMs` and after each
 * reconnection, dropping tokens that are gone. A token created or renewed elsewhere is found by
 * the cache-miss read meanwhile. It is the manager composed with the ZooKeeper token store in
 * its Router configuration.
 *
 * As required by HADOOP-20045, creation publishes no cache entry, neither before persistence
 * (Hadoop's Router did, leaving an entry behind when the write failed) nor unconditionally after it
 * (which could bring back a token cancelled meanwhile); verification of a just-created token
 * takes the cache-miss path.
 *
 * @example
 * ```ts
 * import { RouterZkDelegationTokenSecretManager } from '@fastpath/token-manager/zookeeper';
 *
 * const router = new RouterZkDelegationTokenSecretManager({ connectionString, tokenSyncIntervalMs: 5000 });
 * await router.start();
 * const token = await router.createToken({ owner: 'alice', renewer: 'router' });
 * await router.verify(token); // read from ZooKeeper on the cache miss
 * ```
 */
export class RouterZkDelegationTokenSecretManager extends ZkDelegationTokenSecretManager {
  constructor(options: RouterZkDelegationTokenSecretManagerOptions) {
    const storeOptions: ZkTokenStoreOptions = {
      ...options,
      tokenWatcherEnabled: false,
      rebuildIntervalMs: checkInteger(
        'tokenSyncIntervalMs',
        options?.tokenSyncIntervalMs ??
          DEFAULT_ROUTER_ZK_DELEGATION_TOKEN_SECRET_MANAGER_OPTIONS.tokenSyncIntervalMs,
        1,
        86_400_000,
      ),
    };
    super(storeOptions);
  }

  /**
   * Rebuilds the local token cache from ZooKeeper now (the scheduled task does the same): loads
   * every token node and drops cached tokens whose node is gone.
   */
  rebuildTokenCache(): Promise<void> {
    return this.store.rebuildTokenCache();
  }
}
