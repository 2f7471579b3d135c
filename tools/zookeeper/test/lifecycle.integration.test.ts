import { mkdir, mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  JavaNotFoundError,
  locateZooKeeper,
  startZooKeeper,
  ZooKeeperExitedError,
  ZooKeeperNotFoundError,
  ZooKeeperWaitTimeoutError,
} from '@fastpath/zookeeper-fixture';
import { pickFreePorts } from '@fastpath/jvm-fixture';
import { startCluster } from '../src/internal/zookeeper-cluster.js';
import { isAlive } from './support.js';

jest.setTimeout(60_000);

let scratch: string;

beforeEach(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'zookeeper-fixture-test-'));
});

afterEach(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('startZooKeeper life cycle', () => {
  it('is disposed of by await using: no process, no data dir', async () => {
    let pid: number | undefined;
    let rootDir: string | undefined;
    {
      await using zk = await startZooKeeper({ baseDir: scratch });
      pid = zk.nodes[0]!.pid;
      rootDir = zk.rootDir;
      expect(isAlive(pid!)).toBe(true);
      expect(existsSync(rootDir)).toBe(true);
    }
    expect(isAlive(pid!)).toBe(false);
    expect(existsSync(rootDir)).toBe(false);
    expect(await readdir(scratch)).toEqual([]);
  });

  it('runs a ZOOKEEPER_HOME release layout (lib/*.jar, conf/)', async () => {
    const home = join(scratch, 'apache-zookeeper-bin');
    await mkdir(join(home, 'lib'), { recursive: true });
    await mkdir(join(home, 'conf'));
    // A release made of the system package's jars (installed first when missing).
    const system = await locateZooKeeper({ zookeeperHome: '' });
    const [serverJar, loggingJar] = system.classpath;
    await symlink(serverJar!, join(home, 'lib', 'zookeeper-3.8.0.jar'));
    await symlink(loggingJar!, join(home, 'lib', 'slf4j-simple-1.7.32.jar'));

    const installation = await locateZooKeeper({ zookeeperHome: home, installIfMissing: false });
    expect(installation.source).toBe('zookeeper-home');
    expect(installation.classpath).toEqual([
      join(home, 'conf'),
      join(home, 'lib', 'slf4j-simple-1.7.32.jar'),
      join(home, 'lib', 'zookeeper-3.8.0.jar'),
    ]);
    await using zk = await startZooKeeper({ zookeeperHome: home, installIfMissing: false, baseDir: scratch });
    expect(zk.installation.source).toBe('zookeeper-home');
    expect(await zk.fourLetter('ruok')).toBe('imok');
  });

  it('fails with an install hint when ZOOKEEPER_HOME holds no ZooKeeper', async () => {
    const empty = join(scratch, 'empty-home');
    await mkdir(empty);
    const start = startZooKeeper({ zookeeperHome: empty, installIfMissing: false, baseDir: scratch });
    await expect(start).rejects.toBeInstanceOf(ZooKeeperNotFoundError);
    await expect(start).rejects.toMatchObject({ code: 'ERR_ZOOKEEPER_NOT_FOUND', retriable: false });
    await expect(start).rejects.toThrow(/ZOOKEEPER_HOME \(.*empty-home\) holds no ZooKeeper/);
    await expect(start).rejects.toThrow(/apt-get install -y zookeeper/);
    expect(await readdir(scratch)).toEqual(['empty-home']);
  });

  it('fails with an install hint when the system package is missing and installing is disabled', async () => {
    const noJars = join(scratch, 'no-jars');
    await mkdir(noJars);
    const locate = locateZooKeeper({ zookeeperHome: '', systemJarDir: noJars, installIfMissing: false });
    await expect(locate).rejects.toBeInstanceOf(ZooKeeperNotFoundError);
    await expect(locate).rejects.toThrow(
      /installation is disabled .*apt-get update && apt-get install -y zookeeper/,
    );
  });

  it('fails clearly when java is missing', async () => {
    const locate = locateZooKeeper({ javaPath: join(scratch, 'no-java'), installIfMissing: false });
    await expect(locate).rejects.toBeInstanceOf(JavaNotFoundError);
    await expect(locate).rejects.toMatchObject({ code: 'ERR_JAVA_NOT_FOUND' });
    await expect(locate).rejects.toThrow(/default-jre-headless/);
  });

  it('rejects bad options naming the field', async () => {
    await expect(startZooKeeper({ nodes: 0 })).rejects.toMatchObject({
      code: 'ERR_INVALID_OPTION',
      option: 'nodes',
    });
    await expect(startZooKeeper({ heapMb: 1.5 })).rejects.toMatchObject({ option: 'heapMb' });
    await expect(
      startZooKeeper({ minSessionTimeoutMs: 50_000, maxSessionTimeoutMs: 10_000 }),
    ).rejects.toMatchObject({
      option: 'maxSessionTimeoutMs',
    });
  });

  it('reports a server that exits during start with the end of its log, and cleans up', async () => {
    const start = startZooKeeper({ baseDir: scratch, extraConfig: { tickTime: 'not-a-number' } });
    await expect(start).rejects.toBeInstanceOf(ZooKeeperExitedError);
    const error = (await start.catch((err: unknown) => err)) as ZooKeeperExitedError;
    expect(error.code).toBe('ERR_ZOOKEEPER_EXITED');
    expect(error.logTail).toMatch(/not-a-number/);
    expect(await readdir(scratch)).toEqual([]);
  });

  it('gives up after startTimeoutMs with a timeout error, and kills the server', async () => {
    const start = startZooKeeper({ baseDir: scratch, startTimeoutMs: 1 });
    await expect(start).rejects.toBeInstanceOf(ZooKeeperWaitTimeoutError);
    await expect(start).rejects.toMatchObject({
      code: 'ERR_ZOOKEEPER_WAIT_TIMEOUT',
      retriable: true,
      timeoutMs: 1,
    });
    expect(await readdir(scratch)).toEqual([]);
  });

  it('retries on fresh ports when a picked port is taken before the server binds it', async () => {
    // It hangs up on everyone, so the fixture's `srvr` polls of the taken port fail fast.
    const squatter: Server = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
    const taken = (squatter.address() as { port: number }).port;
    const picks: number[][] = [];
    try {
      const zk = await startCluster(
        { baseDir: scratch, startTimeoutMs: 20_000 },
        {
          pickPorts: async (count) => {
            const ports = picks.length === 0 ? [taken] : await pickFreePorts(count);
            picks.push(ports);
            return ports;
          },
        },
      );
      try {
        expect(picks).toHaveLength(2);
        expect(zk.nodes[0]!.clientPort).not.toBe(taken);
        expect(zk.nodes[0]!.clientPort).toBe(picks[1]![0]);
        expect(await zk.fourLetter('ruok')).toBe('imok');
      } finally {
        await zk.close();
      }
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
  });
});
