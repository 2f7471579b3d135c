import type { ACL } from 'node-zookeeper-client';
import { DelegationTokenSecretManager } from './delegation-token-secret-manager.js';
import { ZkTokenStore } from './internal/zk/zk-token-store.js';
import type {
  ZkDelegationTokenSecretManagerOptions,
  ZkDtsmPaths,
} from './zk-delegation-token-secret-manager-options.js';

/**
 * Hadoop's `ZKDelegationTokenSecretManager`: delegation tokens shared by several managers
 * (processes, hosts) through ZooKeeper, in Hadoop's znode layout and payloads, so a tree is
 * interchangeable with Hadoop's. It is the manager composed with the ZooKeeper token store.
 * Creation is staged (HADOOP-20045): sequence numbers come from ranges reserved by
 * compare-and-set under a dedicated allocator mutex, identifiers and passwords are made under a
 * short write lock, and `DT_<seq>` is written outside the lock, the creation resolving only once
 * ZooKeeper confirmed it.
 *
 * Master keys are cached through watches; tokens too, unless `tokenWatcherEnabled` is off, and a
 * verification that misses the cache reads `DT_<seq>`. While ZooKeeper cannot be reached, calls
 * that need it fail with `ERR_TOKEN_STORE_UNAVAILABLE` (retriable) and cached tokens keep
 * verifying; when the session comes back (or a new one is made) the caches are reloaded.
 *
 * @example
 * ```ts
 * import { ZkDelegationTokenSecretManager } from '@fastpath/token-manager/zookeeper';
 *
 * const manager = new ZkDelegationTokenSecretManager({ connectionString: 'zk1:2181,zk2:2181,zk3:2181' });
 * await manager.start();
 * const token = await manager.createToken({ owner: 'alice', renewer: 'yarn' });
 * await manager.verify(token); // on this or any other manager sharing the tree
 * await manager.stop();
 * ```
 */
export class ZkDelegationTokenSecretManager extends DelegationTokenSecretManager {
  readonly #store: ZkTokenStore;

  constructor(options: ZkDelegationTokenSecretManagerOptions) {
    // The options may carry the Router variant's rebuild interval (ZkTokenStoreOptions).
    const store = new ZkTokenStore(options);
    super({ ...options, store });
    this.#store = store;
  }

  /** The store this manager is composed with (the Router variant drives its rebuild). */
  protected get store(): ZkTokenStore {
    return this.#store;
  }

  /** The znode paths this manager works under. */
  get paths(): ZkDtsmPaths {
    return this.#store.paths;
  }

  /** The ACL put on every znode this manager creates. */
  get acl(): readonly ACL[] {
    return this.#store.acl;
  }

  /** Whether the ZooKeeper session is connected now. */
  get connected(): boolean {
    return this.#store.connected;
  }

  /** The sequence range this manager hands numbers from: `(current, max]` is still unused. */
  get sequenceRange(): {
    /** The last number handed out (or the range's start when none was yet). */
    current: number;
    /**
     * The last number of the reserved range; at `current === max` the next creation reserves a
     * new range first.
     */
    max: number;
  } {
    return this.#store.sequenceRange;
  }

  /** Sequence numbers of failed creations whose node may still appear; they are never cached. */
  get pendingOrphanCleanups(): number {
    return this.#store.pendingOrphanCleanups;
  }
}
