import {
  closeZooKeeperClient,
  connectZooKeeper,
  startZooKeeper,
  type ZooKeeperFixture,
} from '@fastpath/zookeeper-fixture';
import type { Client } from 'node-zookeeper-client';
import type { DelegationTokenSecretManagerOptions } from '../../src/index.js';
import {
  RouterZkDelegationTokenSecretManager,
  ZkDelegationTokenSecretManager,
  type RouterZkDelegationTokenSecretManagerOptions,
  type ZkDelegationTokenSecretManagerOptions,
} from '../../src/zookeeper.js';

/**
 * A ZooKeeper for token-manager tests: ticks of 250 ms so sessions may be as short as 500 ms
 * (tests of session loss stay quick), small heap.
 */
export function startTestZooKeeper(nodes = 1): Promise<ZooKeeperFixture> {
  return startZooKeeper({ nodes, tickTimeMs: 250, heapMb: 128, maxSessionTimeoutMs: 30_000 });
}

let nextPath = 0;

/** A working path no other test uses. */
export function uniqueWorkingPath(label = 'test'): string {
  return `fastpath-${label}-${process.pid}-${++nextPath}`;
}

/** Settings that keep tests quick: short sessions, short operation bounds, no background timers. */
export const QUICK_ZK_OPTIONS = Object.freeze({
  sessionTimeoutMs: 3000,
  connectionTimeoutMs: 2000,
  operationTimeoutMs: 2000,
  taskIntervalMs: 0,
});

/** Makes managers on one working path and stops them all at the end. */
export class ManagerPool {
  readonly managers: ZkDelegationTokenSecretManager[] = [];
  readonly warnings: unknown[] = [];
  readonly #clients: Client[] = [];

  constructor(
    readonly connectionString: string,
    readonly workingPath: string = uniqueWorkingPath(),
  ) {}

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

  /** A plain client for looking at the tree (closed with the pool). */
  async client(): Promise<Client> {
    const c = await connectZooKeeper(this.connectionString, { sessionTimeoutMs: 10_000 });
    this.#clients.push(c);
    return c;
  }

  async close(): Promise<void> {
    await Promise.all(this.managers.splice(0).map((m) => m.stop()));
    await Promise.all(this.#clients.splice(0).map((c) => closeZooKeeperClient(c)));
  }
}
