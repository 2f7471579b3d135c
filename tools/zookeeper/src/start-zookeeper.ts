import { startCluster } from './internal/zookeeper-cluster.js';
import type { ZooKeeperFixture } from './zookeeper-fixture.js';
import type { ZooKeeperFixtureOptions } from './zookeeper-fixture-options.js';

/**
 * Starts a real ZooKeeper on free 127.0.0.1 ports with fresh data dirs: one standalone server by
 * default, or an ensemble with `nodes: 3` (any count from 1 to 9). Resolves once every server's
 * `srvr` reports a `Mode:`. Finds ZooKeeper through `ZOOKEEPER_HOME` or Debian's jars and, when
 * allowed, installs Debian's package first (see `locateZooKeeper`).
 *
 * Dispose of the fixture (`close()` or `await using`): that kills the servers and deletes the
 * data dirs. Servers still alive when the process exits are killed then; a watchdog kills them
 * if this process dies without running exit handlers.
 *
 * @throws ZooKeeperNotFoundError, JavaNotFoundError when there is nothing to run
 * @throws ZooKeeperExitedError when a server exits during start (the message holds its log's end)
 * @throws ZooKeeperWaitTimeoutError when a server does not serve within `startTimeoutMs`
 * @throws InvalidOptionError for a bad option
 * @example
 * ```ts
 * await using zk = await startZooKeeper();
 * const client = await connectZooKeeper(zk.connectString);
 * await zkCreate(client, '/hello', 'world');
 * client.close();
 *
 * await using ensemble = await startZooKeeper({ nodes: 3, heapMb: 128 });
 * await ensemble.kill(await ensemble.leader());
 * ```
 */
export function startZooKeeper(options: ZooKeeperFixtureOptions = {}): Promise<ZooKeeperFixture> {
  return startCluster(options);
}
