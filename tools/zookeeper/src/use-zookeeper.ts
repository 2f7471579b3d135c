// The one ZooKeeper-backed test setup: a real server from the fixture for the suite, a fresh path
// for each test's tree and clients that are closed for the test, so that no test file starts,
// names or closes them its own way. It lives in the fixture (entry `/jest`, as it registers jest
// hooks) rather than in @fastpath/test-support: every package's tests, core's included, use
// test-support, and the fixture depends on core, so test-support depending on the fixture would
// close a cycle in Nx's task graph (core:build -> test-support -> zookeeper-fixture:build -> core).
import { afterAll, afterEach, beforeAll, beforeEach } from '@jest/globals';
import {
  closeZooKeeperClient,
  connectZooKeeper,
  type ConnectZooKeeperOptions,
} from '@fastpath/zookeeper-client';
import { startZooKeeper } from './start-zookeeper.js';
import type { ZooKeeperFixture } from './zookeeper-fixture.js';
import type { ZooKeeperFixtureOptions } from './zookeeper-fixture-options.js';

/** A node-zookeeper-client `Client`, as the fixture's `connectZooKeeper` returns it. */
export type TestZooKeeperClient = Awaited<ReturnType<typeof connectZooKeeper>>;

/** Options of {@link useZooKeeper}. */
export interface UseZooKeeperOptions {
  /** Options of the fixture (`nodes`, `tickTimeMs`, `heapMb`, …). Default: the fixture's (one server). */
  fixture?: ZooKeeperFixtureOptions;
  /** Bound of the suite's start and of its stop (the `beforeAll`/`afterAll` hooks), in ms. Default: 60 000. */
  hookTimeoutMs?: number;
}

/** Defaults of {@link UseZooKeeperOptions}. */
export const DEFAULT_USE_ZOOKEEPER_OPTIONS = Object.freeze({ hookTimeoutMs: 60_000 });

/** What {@link useZooKeeper} gives a suite. Read it inside hooks and tests, once the suite started. */
export interface TestZooKeeper {
  /** The running fixture, for faults (`pause`, `kill`, `restart`, …) and its `nodes`. */
  readonly fixture: ZooKeeperFixture;
  /** `127.0.0.1:<port>[,…]` of the fixture's servers. */
  readonly connectString: string;
  /**
   * A top-level znode name no other call in this process returns (`fastpath-<label>-<pid>-<n>`):
   * a test's working path (Hadoop's `znodeWorkingPath`), `/${path}` for a client, or a chroot
   * (`${connectString}/${path}`). Trees of different tests never meet.
   */
  uniquePath(label?: string): string;
  /**
   * A client connected to the fixture. One made in a test is closed after that test, one made in
   * a `beforeAll` after the suite, before the servers stop.
   */
  client(options?: ConnectZooKeeperOptions): Promise<TestZooKeeperClient>;
}

let nextPath = 0;

/**
 * Starts a real ZooKeeper for the enclosing `describe` (or file) in `beforeAll` and stops it in
 * `afterAll`, closing every client it handed out. Jest runs the `afterAll` hooks of one scope in
 * the order they were declared, so what uses the ZooKeeper (a server, a manager) is closed in an
 * `afterEach`, in a nested `describe`'s `afterAll`, or by the test itself, not in an `afterAll`
 * declared after this call (that one would run against a stopped server).
 *
 * @example
 * ```ts
 * import { useZooKeeper } from '@fastpath/zookeeper-fixture/jest';
 *
 * const zk = useZooKeeper();
 *
 * it('shares tokens through ZooKeeper', async () => {
 *   const site = { 'hadoop.kms.authentication.zk-dt-secret-manager.zkConnectionString': zk.connectString,
 *                  'hadoop.kms.authentication.zk-dt-secret-manager.znodeWorkingPath': zk.uniquePath('kms') };
 *   const client = await zk.client();
 * });
 * ```
 */
export function useZooKeeper(options: UseZooKeeperOptions = {}): TestZooKeeper {
  const hookTimeoutMs = options.hookTimeoutMs ?? DEFAULT_USE_ZOOKEEPER_OPTIONS.hookTimeoutMs;
  let fixture: ZooKeeperFixture | undefined;
  const suiteClients: TestZooKeeperClient[] = [];
  let testClients: TestZooKeeperClient[] | undefined;

  const closeAll = (clients: TestZooKeeperClient[]): Promise<unknown> =>
    Promise.all(clients.splice(0).map((c) => closeZooKeeperClient(c)));

  beforeAll(async () => {
    fixture = await startZooKeeper(options.fixture);
  }, hookTimeoutMs);
  beforeEach(() => {
    testClients = [];
  });
  afterEach(async () => {
    const clients = testClients ?? [];
    testClients = undefined;
    await closeAll(clients);
  });
  afterAll(async () => {
    await closeAll(suiteClients);
    await fixture?.close();
    fixture = undefined;
  }, hookTimeoutMs);

  const running = (): ZooKeeperFixture => {
    if (fixture === undefined)
      throw new Error('useZooKeeper: the fixture is read before beforeAll started it');
    return fixture;
  };
  return {
    get fixture() {
      return running();
    },
    get connectString() {
      return running().connectString;
    },
    uniquePath(label = 'test') {
      return `fastpath-${label}-${process.pid}-${++nextPath}`;
    },
    async client(clientOptions) {
      const client = await connectZooKeeper(running().connectString, clientOptions);
      (testClients ?? suiteClients).push(client);
      return client;
    },
  };
}
