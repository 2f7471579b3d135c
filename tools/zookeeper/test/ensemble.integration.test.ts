import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  closeZooKeeperClient,
  connectZooKeeper,
  startZooKeeper,
  zkCreate,
  zkGetData,
  ZooKeeperFixtureStateError,
  ZooKeeperOperationError,
  type ZooKeeperFixture,
} from '@fastpath/zookeeper-fixture';
import { eventually } from '@fastpath/test-support';
import { isAlive } from './support.js';

jest.setTimeout(60_000);

describe('a three-node ZooKeeper ensemble', () => {
  let zk: ZooKeeperFixture;

  beforeAll(async () => {
    zk = await startZooKeeper({ nodes: 3, heapMb: 128 });
  });

  afterAll(async () => {
    await zk?.close();
  });

  it('starts three quorum peers with one leader', async () => {
    expect(zk.nodes).toHaveLength(3);
    expect(zk.connectString.split(',')).toEqual(zk.nodes.map((node) => `127.0.0.1:${node.clientPort}`));
    const ports = zk.nodes.flatMap((node) => [node.clientPort, node.peerPort, node.electionPort]);
    expect(new Set(ports).size).toBe(9);
    for (const node of zk.nodes) {
      expect(readFileSync(join(node.dataDir, 'myid'), 'utf8').trim()).toBe(String(node.myid));
      const config = readFileSync(node.configFile, 'utf8');
      for (const peer of zk.nodes) {
        expect(config).toContain(`server.${peer.myid}=127.0.0.1:${peer.peerPort}:${peer.electionPort}`);
      }
    }
    const modes = await Promise.all(zk.nodes.map((node) => zk.mode(node.index)));
    expect(modes.filter((mode) => mode === 'leader')).toHaveLength(1);
    expect(modes.filter((mode) => mode === 'follower')).toHaveLength(2);
    expect(modes[await zk.leader()]).toBe('leader');
  });

  it('keeps a client working after the leader is killed, and the old leader rejoins', async () => {
    const client = await connectZooKeeper(zk.connectString, { sessionTimeoutMs: 30_000 });
    try {
      await zkCreate(client, '/before', 'x');
      const oldLeader = await zk.leader();
      const oldPid = zk.nodes[oldLeader]!.pid!;

      await zk.kill(oldLeader);
      expect(zk.nodes[oldLeader]!.state).toBe('stopped');
      expect(isAlive(oldPid)).toBe(false);

      // Writes fail while the survivors elect a leader; retry until one succeeds (bounded).
      await eventually(
        async () => {
          try {
            await zkCreate(client, '/after', 'y');
          } catch (err) {
            // A create retried after a lost connection may already have been applied.
            if (!(err instanceof ZooKeeperOperationError && err.zkName === 'NODE_EXISTS')) throw err;
          }
        },
        { timeoutMs: 30_000, intervalMs: 100 },
      );
      const newLeader = await zk.leader();
      expect(newLeader).not.toBe(oldLeader);
      expect((await zkGetData(client, '/before')).data.toString()).toBe('x');
      expect((await zkGetData(client, '/after')).data.toString()).toBe('y');

      await zk.restart(oldLeader);
      expect(zk.nodes[oldLeader]!.state).toBe('running');
      expect(await zk.mode(oldLeader)).toBe('follower');
      const direct = await connectZooKeeper(zk.nodes[oldLeader]!.connectString);
      try {
        expect((await zkGetData(direct, '/after')).data.toString()).toBe('y');
      } finally {
        await closeZooKeeperClient(direct);
      }
    } finally {
      await closeZooKeeperClient(client);
    }
  });

  it('leaves no process and no data behind after close', async () => {
    const pids = zk.nodes.map((node) => node.pid!);
    const dataDirs = zk.nodes.map((node) => node.dataDir);
    expect(pids.every(isAlive)).toBe(true);
    await zk.pause(1); // a stopped process must be cleaned up too

    await zk.close();

    expect(zk.closed).toBe(true);
    for (const pid of pids) expect(isAlive(pid)).toBe(false); // kill(pid, 0) fails with ESRCH
    for (const dir of dataDirs) expect(existsSync(dir)).toBe(false);
    expect(existsSync(zk.rootDir)).toBe(false);
    await expect(zk.leader()).rejects.toBeInstanceOf(ZooKeeperFixtureStateError);
    await zk.close(); // idempotent
  });
});
