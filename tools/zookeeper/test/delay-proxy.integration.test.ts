import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  closeZooKeeperClient,
  connectZooKeeper,
  DelayProxyExitedError,
  startDelayProxy,
  startDelayProxyProcess,
  startZooKeeper,
  zkCreate,
  zkGetData,
} from '@fastpath/zookeeper-fixture';
import { isAlive, within } from './support.js';

jest.setTimeout(60_000);

/** A real TCP server on 127.0.0.1:0 that hands each accepted socket to the test. */
async function startTarget(): Promise<{
  server: Server;
  port: number;
  accepted: Socket[];
  next(): Promise<Socket>;
}> {
  const accepted: Socket[] = [];
  const waiters: Array<(s: Socket) => void> = [];
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    accepted.push(socket);
    waiters.shift()?.(socket);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  let taken = 0;
  return {
    server,
    port,
    accepted,
    next: () =>
      new Promise<Socket>((resolve) => {
        const ready = accepted[taken];
        if (ready !== undefined) {
          taken++;
          resolve(ready);
        } else
          waiters.push((s) => {
            taken++;
            resolve(s);
          });
      }),
  };
}

function closeTarget(target: { server: Server; accepted: Socket[] }): void {
  for (const socket of target.accepted) socket.destroy();
  target.server.close();
}

/** Collects what a socket receives until it has `bytes`. */
function receive(socket: Socket, bytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let have = 0;
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      chunks.push(chunk);
      have += chunk.length;
      if (have >= bytes) {
        socket.off('data', onData);
        resolve(Buffer.concat(chunks));
      }
    };
    socket.on('data', onData);
    socket.once('error', reject);
  });
}

async function dial(connectString: string): Promise<Socket> {
  const [host, port] = connectString.split(',')[0]!.split(':');
  const socket = connect({ host: host!, port: Number(port), allowHalfOpen: true });
  await once(socket, 'connect');
  return socket;
}

describe('startDelayProxy', () => {
  it('passes bytes intact and in order both ways, many chunks in flight', async () => {
    const target = await startTarget();
    await using proxy = await startDelayProxy({ target: `127.0.0.1:${target.port}`, delayMs: 1 });
    const client = await dial(proxy.connectString);
    const upstream = await target.next();
    // Many small writes, each numbered, so that a reordering or a lost chunk shows.
    const up = Buffer.concat(Array.from({ length: 2000 }, (_, i) => Buffer.from(`${i};`)));
    const down = randomBytes(1 << 20);
    const gotUp = receive(upstream, up.length);
    const gotDown = receive(client, down.length);
    for (let i = 0; i < 2000; i++) client.write(`${i};`);
    for (let off = 0; off < down.length; off += 4096) upstream.write(down.subarray(off, off + 4096));
    expect((await within(gotUp, 20_000, 'bytes to the target')).equals(up)).toBe(true);
    expect((await within(gotDown, 20_000, 'bytes to the client')).equals(down)).toBe(true);
    const stats = proxy.stats();
    expect(stats.bytesToTarget).toBe(up.length);
    expect(stats.bytesToClient).toBe(down.length);
    expect(stats.connections).toBe(1);
    client.destroy();
    closeTarget(target);
  });

  it('holds every chunk at least the delay in each direction', async () => {
    const delayMs = 25;
    const target = await startTarget();
    await using proxy = await startDelayProxy({ target: `127.0.0.1:${target.port}`, delayMs });
    const client = await dial(proxy.connectString);
    const upstream = await target.next();
    for (let round = 0; round < 5; round++) {
      const sentUp = performance.now();
      client.write('ping');
      await receive(upstream, 4);
      const oneWay = performance.now() - sentUp;
      const sentRound = performance.now();
      upstream.write('pong');
      await receive(client, 4);
      const back = performance.now() - sentRound;
      expect(oneWay).toBeGreaterThanOrEqual(delayMs);
      expect(back).toBeGreaterThanOrEqual(delayMs);
    }
    expect(proxy.stats().heldMinMs).toBeGreaterThanOrEqual(delayMs);
    client.destroy();
    closeTarget(target);
  });

  it('passes a close on in each direction, and close() drops what is open', async () => {
    const target = await startTarget();
    await using proxy = await startDelayProxy({ target: `127.0.0.1:${target.port}`, delayMs: 2 });

    // The client's end reaches the target (after the bytes before it), and the target's close the client.
    const client = await dial(proxy.connectString);
    const upstream = await target.next();
    const upstreamEnded = once(upstream, 'end');
    const last = receive(upstream, 5);
    client.end('last!');
    expect((await within(last, 10_000, 'the last bytes')).toString()).toBe('last!');
    await within(upstreamEnded, 10_000, 'the end at the target');
    const clientClosed = once(client, 'close');
    upstream.end();
    await within(clientClosed, 10_000, 'the close at the client');

    // A target that closes first ends the client's side.
    const second = await dial(proxy.connectString);
    const secondUpstream = await target.next();
    const secondEnded = once(second, 'end');
    secondUpstream.destroy();
    await within(secondEnded, 10_000, 'the end at the client');
    second.destroy();

    // close() drops a connection still open.
    const third = await dial(proxy.connectString);
    await target.next();
    const thirdEnded = once(third, 'end');
    await proxy.close();
    await within(thirdEnded, 10_000, 'the end after proxy.close()');
    third.destroy();
    closeTarget(target);
  });

  it('starts again on the ports it had, for clients that know its address', async () => {
    const target = await startTarget();
    const first = await startDelayProxy({ target: `127.0.0.1:${target.port}` });
    const port = Number(first.connectString.split(':')[1]);
    await first.close();
    await expect(dial(first.connectString)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await using again = await startDelayProxy({ target: `127.0.0.1:${target.port}`, ports: [port] });
    expect(again.connectString).toBe(first.connectString);
    const client = await dial(again.connectString);
    const upstream = await target.next();
    const arrived = receive(upstream, 5);
    client.write('again');
    expect((await within(arrived, 10_000, 'bytes through the restarted proxy')).toString()).toBe('again');
    client.destroy();
    closeTarget(target);
  });

  it('rejects a bad target, delay or ports', async () => {
    await expect(startDelayProxy({ target: 'nowhere' })).rejects.toMatchObject({
      code: 'ERR_INVALID_OPTION',
      option: 'target',
    });
    await expect(startDelayProxy({ target: '127.0.0.1:1', delayMs: -1 })).rejects.toMatchObject({
      code: 'ERR_INVALID_OPTION',
      option: 'delayMs',
    });
    await expect(startDelayProxy({ target: '127.0.0.1:1', ports: [0, 0] })).rejects.toMatchObject({
      code: 'ERR_INVALID_OPTION',
      option: 'ports',
    });
    await expect(startDelayProxy({ target: '127.0.0.1:1', ports: [70_000] })).rejects.toMatchObject({
      code: 'ERR_INVALID_OPTION',
      option: 'ports[0]',
    });
  });
});

describe('startDelayProxyProcess', () => {
  it('runs in its own process in front of a real ZooKeeper ensemble, one listener per server', async () => {
    await using zk = await startZooKeeper({ nodes: 3, heapMb: 128 });
    await using proxy = await startDelayProxyProcess({ target: zk.connectString, delayMs: 0.5 });
    expect(proxy.pid).not.toBe(process.pid);
    expect(isAlive(proxy.pid)).toBe(true);
    expect(proxy.connectString.split(',')).toHaveLength(3);
    for (const address of proxy.connectString.split(',')) expect(address).toMatch(/^127\.0\.0\.1:\d+$/);
    const client = await connectZooKeeper(proxy.connectString);
    try {
      await zkCreate(client, '/through-the-proxy', 'hello');
      expect((await zkGetData(client, '/through-the-proxy')).data.toString()).toBe('hello');
    } finally {
      await closeZooKeeperClient(client);
    }
    const stats = await proxy.stats();
    expect(stats.delayMs).toBe(0.5);
    expect(stats.bytesToTarget).toBeGreaterThan(0);
    expect(stats.bytesToClient).toBeGreaterThan(0);
    expect(stats.heldMinMs).toBeGreaterThanOrEqual(0.5);
    const pid = proxy.pid;
    await proxy.close();
    expect(isAlive(pid)).toBe(false);
  });

  it('fails with the end of its log when the process cannot start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'delay-proxy-test-'));
    try {
      const failed = startDelayProxyProcess({ target: 'not-a-target', logFile: join(dir, 'proxy.log') });
      await expect(failed).rejects.toBeInstanceOf(DelayProxyExitedError);
      await expect(failed).rejects.toThrow(/expected host:port/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
