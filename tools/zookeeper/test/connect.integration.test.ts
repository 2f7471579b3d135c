import { createServer, type Server, type Socket } from 'node:net';
import { connectZooKeeper, ZooKeeperConnectTimeoutError } from '@fastpath/zookeeper-fixture';
import { pickFreePorts } from '../src/internal/free-ports.js';
import { eventually } from './support.js';

describe('connectZooKeeper', () => {
  it('gives up after its attempts when nothing listens', async () => {
    const [port] = await pickFreePorts(1);
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
      await eventually(async () => {
        const open = await new Promise<number>((resolve, reject) =>
          silent.getConnections((err, count) => (err ? reject(err) : resolve(count))),
        );
        if (open !== 0) throw new Error(`${open} connection(s) still open`);
      }, 10_000);
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
  });
});
