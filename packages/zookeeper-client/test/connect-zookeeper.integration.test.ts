import { createServer, type Server, type Socket } from 'node:net';
import type { Redacted } from '@fastpath/core';
import { connectZooKeeper, ZooKeeperConnectTimeoutError } from '@fastpath/zookeeper-client';
import { waitFor } from '@fastpath/test-support';

// connectZooKeeper without a ZooKeeper: what it does when nothing or something silent listens.
// Its workarounds against a real server are tested with the ZooKeeper fixture, in tools/zookeeper.

/** A loopback port nothing listens on (taken from a server that is closed again). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('connectZooKeeper', () => {
  it('gives up after its attempts when nothing listens', async () => {
    const port = await closedPort();
    const connect = connectZooKeeper(`127.0.0.1:${port}`, { timeoutMs: 300, retries: 1 });
    await expect(connect).rejects.toBeInstanceOf(ZooKeeperConnectTimeoutError);
    await expect(connect).rejects.toMatchObject({
      code: 'ERR_ZOOKEEPER_CONNECT_TIMEOUT',
      attempts: 2,
      retriable: true,
    });
  });

  it('abandons a server that accepts but never answers, leaving no socket open', async () => {
    const accepted: Socket[] = [];
    const silent: Server = createServer((socket) => {
      accepted.push(socket);
      socket.resume(); // read (and ignore) the handshake, so a hang-up is noticed
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    try {
      const connect = connectZooKeeper(`127.0.0.1:${port}`, { timeoutMs: 300, retries: 2 });
      await expect(connect).rejects.toMatchObject({ code: 'ERR_ZOOKEEPER_CONNECT_TIMEOUT', attempts: 3 });
      expect(accepted.length).toBeGreaterThanOrEqual(3);
      // Every abandoned client destroyed its socket: the server sees no connection left.
      await waitFor(
        'the server to see no connection left',
        async () =>
          (await new Promise<number>((resolve, reject) =>
            silent.getConnections((err, count) => (err ? reject(err) : resolve(count))),
          )) === 0,
        { timeoutMs: 10_000, intervalMs: 100 },
      );
    } finally {
      for (const socket of accepted) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('checks its options', async () => {
    await expect(connectZooKeeper('')).rejects.toMatchObject({
      code: 'ERR_INVALID_OPTION',
      option: 'connectString',
    });
    await expect(connectZooKeeper('127.0.0.1:1', { retries: -1 })).rejects.toMatchObject({
      option: 'retries',
    });
    const notRedacted = [{ scheme: 'digest', auth: Buffer.from('u:p') }] as unknown as Array<{
      scheme: string;
      auth: Redacted<Buffer>;
    }>;
    await expect(connectZooKeeper('127.0.0.1:1', { authInfo: notRedacted })).rejects.toMatchObject({
      option: 'authInfo[0].auth',
    });
  });
});
