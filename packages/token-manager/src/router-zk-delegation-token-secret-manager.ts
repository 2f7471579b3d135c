import { checkInteger } from '@fastpath/core';
import type { ConnectionChange } from './internal/zk/zk-session.js';
import { TokenStoreUnavailableError } from './token-errors.js';
import {
  ZkDelegationTokenSecretManager,
  type ZkDelegationTokenSecretManagerOptions,
} from './zk-delegation-token-secret-manager.js';

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
  tokenSyncIntervalMs: 5000,
});

/**
 * The HDFS Router's ZooKeeper secret manager (`ZKDelegationTokenSecretManagerImpl`): no token
 * watches (thousands of routers would flood ZooKeeper with them); instead the local cache is
 * loaded at start and rebuilt from `ZKDTSMTokensRoot` every `tokenSyncIntervalMs`, dropping tokens
 * that are gone. A token created or renewed elsewhere is found by the cache-miss read meanwhile.
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
  readonly #syncIntervalMs: number;
  #timer: ReturnType<typeof setInterval> | undefined;
  #rebuilding: Promise<void> | undefined;

  constructor(options: RouterZkDelegationTokenSecretManagerOptions) {
    super({ ...options, tokenWatcherEnabled: false });
    this.#syncIntervalMs = checkInteger(
      'tokenSyncIntervalMs',
      options.tokenSyncIntervalMs ??
        DEFAULT_ROUTER_ZK_DELEGATION_TOKEN_SECRET_MANAGER_OPTIONS.tokenSyncIntervalMs,
      1,
      86_400_000,
    );
  }

  /**
   * Rebuilds the local token cache from ZooKeeper now (the scheduled task does the same): loads
   * every token node and drops cached tokens whose node is gone.
   */
  rebuildTokenCache(): Promise<void> {
    if (!this.#rebuilding) {
      this.#rebuilding = this.syncTokensFromStore({ reloadAll: true, removeMissing: true }).finally(() => {
        this.#rebuilding = undefined;
      });
    }
    return this.#rebuilding;
  }

  protected override async startStorage(): Promise<void> {
    await super.startStorage();
    await this.syncTokensFromStore({ reloadAll: true, removeMissing: false });
    this.#timer = setInterval(() => {
      this.rebuildTokenCache().catch((error: unknown) => this.#report(error));
    }, this.#syncIntervalMs);
    this.#timer.unref();
  }

  protected override async stopStorage(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    await super.stopStorage();
  }

  protected override onConnectionChange(change: ConnectionChange): void {
    super.onConnectionChange(change);
    this.rebuildTokenCache().catch((error: unknown) => this.#report(error));
  }

  #report(error: unknown): void {
    if (!(error instanceof TokenStoreUnavailableError)) this.reportBackgroundError(error);
  }
}
