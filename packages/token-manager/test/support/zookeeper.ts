import type {
  TestZooKeeper,
  TestZooKeeperClient,
  UseZooKeeperOptions,
} from '@fastpath/zookeeper-fixture/jest';
import type { DelegationTokenSecretManagerOptions } from '../../src/index.js';
import {
  RouterZkDelegationTokenSecretManager,
  ZkDelegationTokenSecretManager,
  type RouterZkDelegationTokenSecretManagerOptions,
  type ZkDelegationTokenSecretManagerOptions,
} from '../../src/zookeeper.js';

/**
 * The ZooKeeper of token-manager tests (`useZooKeeper(TOKEN_MANAGER_ZOOKEEPER)`): ticks of 250 ms
 * so sessions may be as short as 500 ms (tests of session loss stay quick), small heap.
 */
export const TOKEN_MANAGER_ZOOKEEPER: UseZooKeeperOptions = Object.freeze({
  fixture: { tickTimeMs: 250, heapMb: 128, maxSessionTimeoutMs: 30_000 },
});

/** Settings that keep tests quick: short sessions, short operation bounds, no background timers. */
export const QUICK_ZK_OPTIONS = Object.freeze({
  sessionTimeoutMs: 3000,
  connectionTimeoutMs: 2000,
  operationTimeoutMs: 2000,
  taskIntervalMs: 0,
});

/** Makes managers on one fresh working path of `zk` and stops them all at the end. */
export class ManagerPool {
  readonly managers: ZkDelegationTokenSecretManager[] = [];
  readonly warnings: unknown[] = [];
  readonly connectionString: string;
  readonly workingPath: string;

  constructor(readonly zk: TestZooKeeper) {
    this.connectionString = zk.connectString;
    this.workingPath = zk.uniquePath();
  }

  options(
    options: Partial<ZkDelegationTokenSecretManagerOptions> = {},
  ): ZkDelegationTokenSecretManagerOptions {
    return {
      connectionString: this.connectionString,
      znodeWorkingPath: this.workingPath,
      ...QUICK_ZK_OPTIONS,
      onBackgroundError: (error) => this.warnings.push(error),
      ...options,
    };
  }

  async make(
    options: Partial<ZkDelegationTokenSecretManagerOptions> & DelegationTokenSecretManagerOptions = {},
  ): Promise<ZkDelegationTokenSecretManager> {
    const m = new ZkDelegationTokenSecretManager(this.options(options));
    this.managers.push(m);
    await m.start();
    return m;
  }

  async makeRouter(
    options: Partial<RouterZkDelegationTokenSecretManagerOptions> = {},
  ): Promise<RouterZkDelegationTokenSecretManager> {
    const m = new RouterZkDelegationTokenSecretManager({ ...this.options(), ...options });
    this.managers.push(m);
    await m.start();
    return m;
  }

  /** A plain client for looking at the tree (closed after the test, by `useZooKeeper`). */
  client(): Promise<TestZooKeeperClient> {
    return this.zk.client({ sessionTimeoutMs: 10_000 });
  }

  async close(): Promise<void> {
    await Promise.all(this.managers.splice(0).map((m) => m.stop()));
  }
}
