import type { Client } from 'node-zookeeper-client';
import {
  addPersistentRecursiveWatch,
  ZK_EVENT_NODE_CREATED,
  ZK_EVENT_NODE_DATA_CHANGED,
  ZK_EVENT_NODE_DELETED,
  watchReconnectStall,
} from '@fastpath/zookeeper-client';
import {
  closeZooKeeperClient,
  connectZooKeeper,
  startZooKeeper,
  zkCreate,
  zkExists,
  zkGetData,
  zkRemove,
  zkSetData,
  ZooKeeperConnectTimeoutError,
  type ZooKeeperFixture,
} from '@fastpath/zookeeper-fixture';
import { eventually } from '@fastpath/test-support';
import { within } from './support.js';
import { TcpProxy } from './tcp-proxy.js';

// Each workaround of @fastpath/zookeeper-client against a real ZooKeeper, with a relay in front
// of it for the faults. Each test fails when its workaround is taken out (checked once by
// removing it): the client then hangs, crashes the process, or keeps its socket.

const nextEvent = (client: Client, name: 'connected' | 'disconnected', what: string): Promise<void> =>
  within(new Promise<void>((resolve) => client.once(name, () => resolve())), 15_000, what);

describe('@fastpath/zookeeper-client workarounds, against a real ZooKeeper', () => {
  let zk: ZooKeeperFixture;
  let admin: Client;
  const big = Buffer.alloc(200_000, 7);

  beforeAll(async () => {
    zk = await startZooKeeper();
    admin = await connectZooKeeper(zk.connectString, { sessionTimeoutMs: 30_000 });
    await zkCreate(admin, '/wa');
    await zkCreate(admin, '/wa/big', big);
  });
  afterAll(async () => {
    if (admin !== undefined) await closeZooKeeperClient(admin);
    await zk?.close();
  });

  it('socket guard: a frame cut by a lost connection does not poison the next connection', async () => {
    await using proxy = await TcpProxy.start(zk.nodes[0]!.clientPort);
    const client = await connectZooKeeper(proxy.connectString, { sessionTimeoutMs: 30_000 });
    try {
      const reconnected = nextEvent(client, 'connected', 'the reconnection');
      // The answer (200 kB) is cut after 10 bytes: its header says more is coming. The library
      // keeps those bytes and, unguarded, reads the next connection's handshake answer as their
      // continuation, so it never sees itself connected again.
      proxy.cutNextAnswerAfter(10);
      await expect(zkGetData(client, '/wa/big')).rejects.toMatchObject({ zkName: 'CONNECTION_LOSS' });
      await reconnected;
      expect((await zkGetData(client, '/wa/big')).data.equals(big)).toBe(true);
    } finally {
      await closeZooKeeperClient(client, { timeoutMs: 500 });
    }
  });

  it('socket guard: a frame the library cannot parse ends the connection instead of the process', async () => {
    await using proxy = await TcpProxy.start(zk.nodes[0]!.clientPort);
    const client = await connectZooKeeper(proxy.connectString, { sessionTimeoutMs: 30_000 });
    try {
      await zkExists(client, '/wa');
      const lost = nextEvent(client, 'disconnected', 'the disconnection');
      const back = nextEvent(client, 'connected', 'the reconnection');
      // A watch notification (xid -1) whose event is missing: the library's parser reads past
      // the frame and throws, out of the socket's data handler (an uncaught exception) unguarded.
      const frame = Buffer.alloc(4 + 16);
      frame.writeInt32BE(16, 0);
      frame.writeInt32BE(-1, 4);
      proxy.inject(frame);
      await lost;
      await back;
      expect((await zkGetData(client, '/wa/big')).data.length).toBe(big.length);
    } finally {
      await closeZooKeeperClient(client, { timeoutMs: 500 });
    }
  });

  it('bounded connect: a server that accepts and never answers fails the connect, leaving no socket', async () => {
    await using proxy = await TcpProxy.start(zk.nodes[0]!.clientPort);
    proxy.freeze();
    const connect = connectZooKeeper(proxy.connectString, { timeoutMs: 300, retries: 1 });
    await expect(connect).rejects.toBeInstanceOf(ZooKeeperConnectTimeoutError);
    await expect(connect).rejects.toMatchObject({ attempts: 2 });
    await eventually(async () => expect(await proxy.openConnections()).toBe(0), {
      timeoutMs: 10_000,
      intervalMs: 100,
    });
  });

  it('close: a client whose server stopped answering still lets go of its socket', async () => {
    await using proxy = await TcpProxy.start(zk.nodes[0]!.clientPort);
    const client = await connectZooKeeper(proxy.connectString, { sessionTimeoutMs: 30_000 });
    await zkExists(client, '/wa');
    expect(await proxy.openConnections()).toBe(1);
    proxy.freeze(); // the close request is never answered
    await closeZooKeeperClient(client, { timeoutMs: 300 });
    await eventually(async () => expect(await proxy.openConnections()).toBe(0), {
      timeoutMs: 10_000,
      intervalMs: 100,
    });
  });

  it('reconnect stall: a reconnection the library would wait on for ever is reported', async () => {
    await using proxy = await TcpProxy.start(zk.nodes[0]!.clientPort);
    const client = await connectZooKeeper(proxy.connectString, { sessionTimeoutMs: 30_000 });
    let stalled = 0;
    const stop = watchReconnectStall(client, 500, () => stalled++);
    try {
      proxy.freeze();
      proxy.dropAll(); // the library reconnects to a relay that never answers its handshake
      await eventually(() => expect(stalled).toBe(1), { timeoutMs: 15_000, intervalMs: 100 });
      // The library itself is still waiting: only the watch noticed.
      expect(client.getState().name).not.toBe('SYNC_CONNECTED');
    } finally {
      stop();
      await closeZooKeeperClient(client, { timeoutMs: 100 });
    }
  });

  it('persistent watch: every create, change and delete below a path, one-shot watches kept', async () => {
    const client = await connectZooKeeper(zk.connectString, { sessionTimeoutMs: 30_000 });
    try {
      await zkCreate(admin, '/pw');
      const events: Array<[number, string]> = [];
      await new Promise<void>((resolve, reject) =>
        addPersistentRecursiveWatch(
          client,
          '/pw',
          (type, path) => events.push([type, path]),
          (error) =>
            error ? reject(new Error('adding the persistent watch failed', { cause: error })) : resolve(),
        ),
      );
      // A one-shot watch on the same client still fires: the library's own dispatch is kept.
      const oneShot = new Promise<string>((resolve) =>
        client.exists(
          '/other',
          (event) => resolve(event.getName()),
          () => undefined,
        ),
      );
      await zkCreate(admin, '/pw/a');
      await zkCreate(admin, '/pw/a/b', 'x');
      await zkSetData(admin, '/pw/a/b', 'y');
      await zkRemove(admin, '/pw/a/b');
      await zkCreate(admin, '/pwx'); // beside the path, not below it
      await zkCreate(admin, '/other');
      expect(await within(oneShot, 10_000, 'the one-shot watch')).toBe('NODE_CREATED');
      await eventually(() => expect(events).toHaveLength(4), { timeoutMs: 10_000, intervalMs: 100 });
      expect(events).toEqual([
        [ZK_EVENT_NODE_CREATED, '/pw/a'],
        [ZK_EVENT_NODE_CREATED, '/pw/a/b'],
        [ZK_EVENT_NODE_DATA_CHANGED, '/pw/a/b'],
        [ZK_EVENT_NODE_DELETED, '/pw/a/b'],
      ]);
    } finally {
      await closeZooKeeperClient(client);
    }
  });
});
