import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import zookeeper from 'node-zookeeper-client';
import type { Client } from 'node-zookeeper-client';
import {
  closeZooKeeperClient,
  connectZooKeeper,
  deleteRecursive,
  FourLetterWordError,
  fourLetterWord,
  startZooKeeper,
  zkCreate,
  zkExists,
  zkGetChildren,
  zkGetData,
  zkMkdirp,
  zkRemove,
  zkSetData,
  ZooKeeperFixtureStateError,
  ZooKeeperOperationError,
  type ZooKeeperFixture,
} from '@fastpath/zookeeper-fixture';
import { isAlive, within } from './support.js';

describe('a standalone ZooKeeper', () => {
  let zk: ZooKeeperFixture;
  let client: Client;

  beforeAll(async () => {
    zk = await startZooKeeper();
    client = await connectZooKeeper(zk.connectString, { sessionTimeoutMs: 30_000 });
  });

  afterAll(async () => {
    if (client !== undefined) await closeZooKeeperClient(client);
    await zk?.close();
  });

  it('serves on a loopback port with the configured settings', async () => {
    expect(zk.nodes).toHaveLength(1);
    const node = zk.nodes[0]!;
    expect(zk.connectString).toBe(`127.0.0.1:${node.clientPort}`);
    expect(node.state).toBe('running');
    expect(node.peerPort).toBeUndefined();
    expect(isAlive(node.pid!)).toBe(true);
    expect(await zk.mode()).toBe('standalone');
    expect(await zk.fourLetter('ruok')).toBe('imok');
    expect(await zk.leader()).toBe(0);
    const config = readFileSync(node.configFile, 'utf8');
    expect(config).toContain('clientPortAddress=127.0.0.1');
    expect(config).toContain('admin.enableServer=false');
    expect(config).toContain('maxClientCnxns=0');
    expect(await zk.fourLetter('conf')).toContain(`dataDir=${node.dataDir}`);
    expect(readFileSync(node.logFile, 'utf8')).toContain('ZooKeeperServer');
  });

  it('creates, reads, updates and lists znodes through the promise helpers', async () => {
    expect(await zkCreate(client, '/app', 'hello')).toBe('/app');
    const { data, stat } = await zkGetData(client, '/app');
    expect(data.toString()).toBe('hello');
    expect(stat.version).toBe(0);

    const updated = await zkSetData(client, '/app', Buffer.from('world'), stat.version);
    expect(updated.version).toBe(1);
    expect((await zkGetData(client, '/app')).data.toString()).toBe('world');

    const stale = zkSetData(client, '/app', 'lost', stat.version);
    await expect(stale).rejects.toBeInstanceOf(ZooKeeperOperationError);
    await expect(stale).rejects.toMatchObject({
      code: 'ERR_ZOOKEEPER_OPERATION',
      zkName: 'BAD_VERSION',
      zkCode: zookeeper.Exception.BAD_VERSION,
      path: '/app',
      retriable: false,
    });
    await expect(zkCreate(client, '/app')).rejects.toMatchObject({ zkName: 'NODE_EXISTS' });

    const sequential = await zkCreate(client, '/app/item-', null, zookeeper.CreateMode.PERSISTENT_SEQUENTIAL);
    expect(sequential).toMatch(/^\/app\/item-\d{10}$/);
    expect(await zkGetChildren(client, '/app')).toEqual([sequential.slice('/app/'.length)]);
    expect((await zkGetData(client, sequential)).data).toHaveLength(0);

    expect(await zkExists(client, '/missing')).toBeNull();
    expect((await zkExists(client, '/app'))?.numChildren).toBe(1);
    await expect(zkGetData(client, '/missing')).rejects.toMatchObject({ zkName: 'NO_NODE' });

    await zkMkdirp(client, '/deep/er/path');
    expect(await zkExists(client, '/deep/er/path')).not.toBeNull();
    await zkRemove(client, '/deep/er/path');
    expect(await zkExists(client, '/deep/er/path')).toBeNull();
  });

  it('reports mntr as numbers and strings', async () => {
    const before = await zk.mntr();
    expect(before['zk_server_state']).toBe('standalone');
    expect(typeof before['zk_version']).toBe('string');
    expect(typeof before['zk_znode_count']).toBe('number');
    await zkCreate(client, '/counted');
    const after = await zk.mntr();
    expect(after['zk_znode_count']).toBe((before['zk_znode_count'] as number) + 1);
  });

  it('deletes a tree four levels deep with deleteRecursive', async () => {
    const paths: string[] = [];
    for (const a of ['a0', 'a1', 'a2']) {
      for (const b of ['b0', 'b1']) {
        for (const c of ['c0', 'c1']) paths.push(`/tree/${a}/${b}/${c}/d`);
      }
    }
    for (const path of paths) await zkMkdirp(client, path);
    await zkCreate(client, '/treehouse', 'a sibling that must stay');
    expect(await zkExists(client, '/tree/a2/b1/c1/d')).not.toBeNull();

    await deleteRecursive(client, '/tree');

    expect(await zkExists(client, '/tree')).toBeNull();
    expect((await zkGetData(client, '/treehouse')).data.toString()).toBe('a sibling that must stay');
    await deleteRecursive(client, '/tree'); // already gone: no error
    await expect(deleteRecursive(client, '/')).rejects.toMatchObject({ code: 'ERR_INVALID_OPTION' });
  });

  it('holds a request while paused and completes it after resume', async () => {
    await zk.pause(0);
    try {
      expect(zk.nodes[0]!.state).toBe('paused');
      let completed = false;
      const pending = zkCreate(client, '/during-pause', 'x').finally(() => {
        completed = true;
      });
      // A paused server answers nothing, not even a four-letter word.
      await expect(
        fourLetterWord(zk.nodes[0]!.clientPort, 'ruok', { timeoutMs: 500 }),
      ).rejects.toBeInstanceOf(FourLetterWordError);
      expect(completed).toBe(false);
      await zk.resume(0);
      expect(zk.nodes[0]!.state).toBe('running');
      await expect(within(pending, 15_000, 'the create after resume')).resolves.toBe('/during-pause');
    } finally {
      await zk.resume(0);
    }
    expect((await zkGetData(client, '/during-pause')).data.toString()).toBe('x');
  });

  it('restarts on the same port and data dir', async () => {
    const node = zk.nodes[0]!;
    const before = { clientPort: node.clientPort, dataDir: node.dataDir, pid: node.pid };
    await zkCreate(client, '/survives-restart', 'kept');
    await zk.restart(0);
    const after = zk.nodes[0]!;
    expect(after.clientPort).toBe(before.clientPort);
    expect(after.dataDir).toBe(before.dataDir);
    expect(after.pid).not.toBe(before.pid);
    expect(isAlive(before.pid!)).toBe(false);
    expect(await zk.mode()).toBe('standalone');
    const fresh = await connectZooKeeper(zk.connectString);
    try {
      expect((await zkGetData(fresh, '/survives-restart')).data.toString()).toBe('kept');
    } finally {
      await closeZooKeeperClient(fresh);
    }
  });

  it('stops a node and refuses to pause a stopped one', async () => {
    const pid = zk.nodes[0]!.pid!;
    await zk.stop(0);
    expect(zk.nodes[0]!.state).toBe('stopped');
    expect(zk.nodes[0]!.pid).toBeUndefined();
    expect(isAlive(pid)).toBe(false);
    expect(existsSync(join(zk.nodes[0]!.dataDir, 'version-2'))).toBe(true);
    await expect(zk.pause(0)).rejects.toBeInstanceOf(ZooKeeperFixtureStateError);
    await zk.restart(0);
    expect(zk.nodes[0]!.state).toBe('running');
  });

  it('connects a client while the server is still starting', async () => {
    await zk.stop(0);
    await zk.restart(0, { waitForMode: false });
    const early = await connectZooKeeper(zk.connectString, { timeoutMs: 2000, retries: 15 });
    try {
      expect(await zkCreate(early, '/early', 'bird')).toBe('/early');
    } finally {
      await closeZooKeeperClient(early);
    }
    expect(await zk.mode()).toBe('standalone');
  });

  it('rejects unknown node indexes and words outside the whitelist', async () => {
    await expect(zk.kill(1)).rejects.toBeInstanceOf(ZooKeeperFixtureStateError);
    await expect(zk.fourLetter('envi')).rejects.toMatchObject({ code: 'ERR_ZOOKEEPER_FOUR_LETTER' });
    await expect(zk.fourLetter('bogus')).rejects.toMatchObject({ code: 'ERR_INVALID_OPTION' });
  });
});
