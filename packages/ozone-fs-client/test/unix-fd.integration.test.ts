// The native addon against real Unix domain sockets: a Node `net` server on one side, the addon
// on the other; bytes and a file descriptor passed with SCM_RIGHTS; the errors a client meets.
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  loadUnixFd,
  loadUnixFdFrom,
  socketFd,
  UnixFdCallError,
  type UnixFd,
} from '../src/internal/unix-fd/unix-fd.js';

let dir: string;
let unixFd: UnixFd;
let server: Server;
let socketPath: string;
const accepted: Socket[] = [];

beforeAll(async () => {
  const load = loadUnixFd();
  if (!load.available) throw new Error(`the addon must be built for these tests: ${load.reason}`);
  unixFd = load.unixFd;
  dir = mkdtempSync(join(tmpdir(), 'fastpath-unix-fd-'));
  socketPath = join(dir, 'server.sock');
  server = createServer((socket) => {
    accepted.push(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
});

afterAll(async () => {
  for (const s of accepted) s.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

async function connected(): Promise<{ fd: number; peer: Socket }> {
  const before = accepted.length;
  const fd = unixFd.connect(socketPath);
  for (let i = 0; accepted.length === before; i++) {
    if (i > 1000) throw new Error('the server never accepted the connection');
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return { fd, peer: accepted[accepted.length - 1] as Socket };
}

describe('unix-fd addon', () => {
  it('sends bytes to a net server and receives bytes with a file descriptor attached', async () => {
    const { fd, peer } = await connected();
    const got = new Promise<Buffer>((resolve) => peer.once('data', resolve));
    expect(unixFd.send(fd, Buffer.from('ping'), [])).toBe(4);
    expect((await got).toString()).toBe('ping');

    const file = join(dir, 'block');
    writeFileSync(file, 'the block file');
    const fileFd = openSync(file, 'r');
    expect(unixFd.send(socketFd(peer), Buffer.from([99]), [fileFd])).toBe(1);
    closeSync(fileFd); // the receiver holds its own copy from here on

    const received = await unixFd.receive(fd, 16, 5000);
    expect([...received.data]).toEqual([99]);
    expect(received.fds).toHaveLength(1);
    // Our copy is closed: what reads below is the receiver's own descriptor of the file.
    const passed = received.fds[0] as number;
    const buf = Buffer.alloc(32);
    const n = readSync(passed, buf, 0, 32, 4);
    expect(buf.subarray(0, n).toString()).toBe('block file');
    closeSync(passed);
    unixFd.close(fd);
  });

  it('receives bytes written before a descriptor without losing the descriptor', async () => {
    const { fd, peer } = await connected();
    const fileFd = openSync(__filename, 'r');
    unixFd.send(socketFd(peer), Buffer.from('response'), []);
    unixFd.send(socketFd(peer), Buffer.from([99]), [fileFd]);
    closeSync(fileFd);
    const bytes: number[] = [];
    const fds: number[] = [];
    while (bytes.length < 9) {
      const r = await unixFd.receive(fd, 64, 5000);
      bytes.push(...r.data);
      fds.push(...r.fds);
    }
    expect(Buffer.from(bytes).toString('latin1')).toBe('response\x63');
    expect(fds).toHaveLength(1);
    for (const f of fds) closeSync(f);
    unixFd.close(fd);
  });

  it('returns no bytes at the end of the stream', async () => {
    const { fd, peer } = await connected();
    peer.end();
    const r = await unixFd.receive(fd, 64, 5000);
    expect(r.data).toHaveLength(0);
    expect(r.fds).toEqual([]);
    unixFd.close(fd);
  });

  it('rejects a wait past its deadline with ETIMEDOUT', async () => {
    const { fd } = await connected();
    await expect(unixFd.receive(fd, 64, 20)).rejects.toMatchObject({ code: 'ETIMEDOUT' });
    unixFd.close(fd);
  });

  it('names the errno of a failed connect', () => {
    const thrown = (path: string): unknown => {
      try {
        unixFd.close(unixFd.connect(path));
      } catch (err) {
        return err;
      }
      throw new Error(`connect(${path}) succeeded`);
    };
    const missing = thrown(join(dir, 'nothing-here.sock'));
    expect(missing).toBeInstanceOf(UnixFdCallError);
    expect(missing).toMatchObject({ code: 'ENOENT', syscall: 'connect' });
    const plain = join(dir, 'plain-file');
    writeFileSync(plain, '');
    expect(thrown(plain)).toMatchObject({ code: 'ECONNREFUSED' });
    expect(thrown(join(dir, 'x'.repeat(200)))).toMatchObject({ code: 'ENAMETOOLONG' });
  });

  it('refuses arguments that are not descriptors', () => {
    expect(() => unixFd.send(-1, Buffer.alloc(1), [])).toThrow(/non-negative integer/);
    expect(() => unixFd.send(0, Buffer.alloc(1), [-3])).toThrow(/non-negative integer/);
    expect(() => unixFd.close(-1)).toThrow(/non-negative integer/);
  });

  it('reports an addon that cannot be loaded instead of throwing', () => {
    const r = loadUnixFdFrom(join(dir, 'missing.node'));
    expect(r.available).toBe(false);
    if (!r.available) expect(r.reason).toMatch(/cannot load .*missing\.node/);
  });
});
