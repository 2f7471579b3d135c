import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { InvalidOptionError } from '@fastpath/core';
import { contractKeyBytes } from '@fastpath/ozone-fs-client/testing/contract';
import {
  OzoneFixtureStateError,
  javaColdReadCommand,
  prepareOzoneJars,
  startRealOzoneCluster,
  type JavaColdReadTimes,
  type KeyToWrite,
  type RealOzoneCluster,
  type WrittenKey,
} from '@fastpath/ozone-fixture';
import { waitFor } from '@fastpath/test-support';
import { delay } from '@fastpath/jvm-fixture';
import { isRunning, launcherJvmsUnder } from './support/processes.js';
import { canConnect } from './support/can-connect.js';

// One MiniOzoneCluster at a time (the machine is small): the suites below run in order.
jest.setTimeout(600_000);

const MiB = 1024 * 1024;

/** SHA-256 of a whole key of the contract suite's content pattern, in 1 MiB pieces. */
function patternSha256(seed: number, size: number): string {
  const hash = createHash('sha256');
  for (let at = 0; at < size; at += MiB) hash.update(contractKeyBytes(Math.min(MiB, size - at), seed, at));
  return hash.digest('hex');
}
const CHUNK = 4 * MiB;

/** Runs a command to its end; its exit code and output. */
function runToEnd(command: {
  file: string;
  args: string[];
}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command.file, command.args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Every file under `dir` whose name is `<localId>.block` (Ozone's FILE_PER_BLOCK layout). */
function blockFiles(dir: string, localId: bigint): string[] {
  const found: string[] = [];
  const walk = (d: string): void => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name === `${localId}.block`) found.push(path);
    }
  };
  walk(dir);
  return found;
}

describe('a real MiniOzoneCluster with 3 datanodes', () => {
  let cluster: RealOzoneCluster;
  let written: WrittenKey[];
  const keys: KeyToWrite[] = [
    { volume: 'vol1', bucket: 'bucket1', key: 'empty', size: 0 },
    { volume: 'vol1', bucket: 'bucket1', key: 'one-byte', size: 1, seed: 1 },
    { volume: 'vol1', bucket: 'bucket1', key: 'chunk-minus-one', size: CHUNK - 1, seed: 2 },
    {
      volume: 'vol1',
      bucket: 'bucket1',
      key: 'chunk-plus-one',
      size: CHUNK + 1,
      seed: 3,
      checksumType: 'CRC32C',
    },
    {
      volume: 'vol1',
      bucket: 'obs',
      key: 'a/b/sha',
      size: 300_000,
      checksumType: 'SHA256',
      bucketLayout: 'OBJECT_STORE',
    },
    {
      volume: 'vol2',
      bucket: 'md5',
      key: 'md5',
      size: 70_000,
      checksumType: 'MD5',
      bytesPerChecksum: 1 << 20,
      seed: -5,
    },
    {
      volume: 'vol2',
      bucket: 'none',
      key: 'none',
      size: 2 * CHUNK + 3,
      checksumType: 'NONE',
      seed: 2 ** 31 - 1,
    },
    // The OM's block size for this key only, and the client's chunk size.
    {
      volume: 'vol2',
      bucket: 'none',
      key: 'blocks',
      size: 5 * MiB + 3,
      chunkSizeBytes: MiB,
      blockSizeBytes: 2 * MiB,
      seed: 5,
    },
  ];

  beforeAll(async () => {
    cluster = await startRealOzoneCluster({ datanodes: 3 });
    written = await cluster.writeKeys(keys);
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  it('prints its addresses as one JSON line: OM gRPC on a loopback port, three datanodes', async () => {
    const ready = JSON.parse(cluster.readyLine) as Record<string, unknown>;
    expect(cluster.readyLine).not.toContain('\n');
    expect(ready['event']).toBe('ready');
    expect(cluster.ozoneVersion).toMatch(/^2\.2\.0/);
    expect(cluster.omGrpcAddress).toBe(`127.0.0.1:${cluster.omGrpcPort}`);
    expect(cluster.omGrpcPort).not.toBe(8981); // Ozone's default, which two clusters would share
    expect(await canConnect(cluster.omGrpcAddress)).toBe(true);
    expect(cluster.datanodes).toHaveLength(3);
    expect(new Set(cluster.datanodes.map((d) => d.uuid)).size).toBe(3);
    for (const datanode of cluster.datanodes) {
      expect(datanode.ipAddress).toBe('127.0.0.1');
      expect(datanode.standaloneAddress).toBe(`127.0.0.1:${datanode.ports['STANDALONE']}`);
      expect(await canConnect(datanode.standaloneAddress)).toBe(true);
      expect(datanode.dataDirs.length).toBeGreaterThan(0);
      for (const dir of datanode.dataDirs) expect(dir.startsWith(cluster.rootDir)).toBe(true);
    }
    expect(cluster.rssBytes()).toBeGreaterThan(0);
  });

  it("writes every key with Ozone's Java client, bytes equal to the contract suite's pattern", () => {
    expect(written.map((k) => k.key)).toEqual(keys.map((k) => k.key));
    for (const [i, key] of written.entries()) {
      const spec = keys[i] as KeyToWrite;
      expect(key.size).toBe(spec.size);
      expect(key.sha256).toBe(patternSha256(spec.seed ?? 0, spec.size));
      expect(key.checksumType).toBe(spec.checksumType ?? 'CRC32');
      expect(key.replication).toBe('RATIS/THREE');
      expect(key.blocks.reduce((sum, b) => sum + b.length, 0)).toBe(spec.size);
    }
    expect(written[4]?.bucketLayout).toBe('OBJECT_STORE');
    expect(written[5]?.bytesPerChecksum).toBe(1 << 20);
    expect(written[6]?.chunkSizeBytes).toBe(CHUNK);
  });

  it('honours a per-key block size (the OM allocates 2 MiB blocks for that key only) and chunk size', async () => {
    const blocks = written[7] as WrittenKey;
    expect(blocks.chunkSizeBytes).toBe(MiB);
    expect(blocks.blocks.map((b) => b.length)).toEqual([2 * MiB, 2 * MiB, MiB + 3]);
    expect(blocks.blocks.map((b) => b.offsetInKey)).toEqual([0, 2 * MiB, 4 * MiB]);
    // Ozone's KeyLocation.offset is the data's offset within its block, not the block's offset in
    // the key: a reader adds up the block lengths.
    expect(blocks.blocks.map((b) => b.offset)).toEqual([0, 0, 0]);
    expect(new Set(blocks.blocks.map((b) => b.localId)).size).toBe(3);
    // The next key without a block size gets the cluster's 256 MiB blocks again.
    const [after] = await cluster.writeKeys([
      { volume: 'vol2', bucket: 'none', key: 'after-blocks', size: 3 * MiB },
    ]);
    expect(after?.blocks.map((b) => b.length)).toEqual([3 * MiB]);
  });

  it('stores each block on all three datanodes (FILE_PER_BLOCK files of the block length)', () => {
    const key = written[3] as WrittenKey;
    const block = key.blocks[0];
    expect(block).toBeDefined();
    for (const datanode of cluster.datanodes) {
      const files = datanode.dataDirs.flatMap((dir) => blockFiles(dir, block!.localId));
      expect(files).toHaveLength(1);
      expect(statSync(files[0] as string).size).toBe(block!.length);
    }
  });

  it('refuses a bad batch before writing any of it, and keeps serving', async () => {
    await expect(
      cluster.writeKeys([
        { volume: 'vol3', bucket: 'bucket1', key: 'fine', size: 1 },
        { volume: 'Vol3', bucket: 'bucket1', key: 'bad', size: 1 },
      ]),
    ).rejects.toBeInstanceOf(InvalidOptionError);
    const [again] = await cluster.writeKeys([
      { volume: 'vol1', bucket: 'bucket1', key: 'after', size: 10, seed: 4 },
    ]);
    expect(again?.sha256).toBe(patternSha256(4, 10));
  });

  it("reads a key's first bytes in a fresh JVM of Ozone's Java client (the cold-client anchor)", async () => {
    const jars = await prepareOzoneJars({ onProgress: () => undefined });
    const coldRead = (key: string, readBytes: number) =>
      runToEnd(
        javaColdReadCommand(jars, {
          omRpcAddress: cluster.omRpcAddress,
          volume: 'vol1',
          bucket: 'bucket1',
          key,
          readBytes,
        }),
      );
    const sha256Of = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

    const full = await coldRead('chunk-minus-one', 64 * 1024);
    expect(full.code).toBe(0);
    const times = JSON.parse(full.stdout.trim()) as JavaColdReadTimes;
    expect(times.bytesRead).toBe(64 * 1024);
    expect(times.sha256).toBe(sha256Of(contractKeyBytes(64 * 1024, 2, 0)));
    for (const phase of [times.createMs, times.metadataMs, times.readMs, times.closeMs])
      expect(phase).toBeGreaterThanOrEqual(0);

    // A key shorter than the read: it reads what there is.
    const short = JSON.parse((await coldRead('one-byte', 64 * 1024)).stdout.trim()) as JavaColdReadTimes;
    expect(short.bytesRead).toBe(1);
    expect(short.sha256).toBe(sha256Of(contractKeyBytes(1, 1, 0)));

    const missing = await coldRead('no-such-key', 10);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('KEY_NOT_FOUND');
  });

  it('corrupts one byte of one replica on disk, leaving the other replicas alone', async () => {
    const key = written[3] as WrittenKey; // 4 MiB + 1 B, one block
    const block = key.blocks[0]!;
    const [first, second] = cluster.datanodes;
    await cluster.corruptBlockReplica({
      datanodeUuid: first!.uuid,
      localId: block.localId,
      offsetInBlock: 20_000,
    });
    const byteAt = (datanodeIndex: number): number => {
      const [file] = cluster.datanodes[datanodeIndex]!.dataDirs.flatMap((dir) =>
        blockFiles(dir, block.localId),
      );
      return readFileSync(file as string)[20_000] as number;
    };
    const expected = contractKeyBytes(1, key.seed, 20_000)[0] as number;
    expect(byteAt(0)).toBe(expected ^ 0xff);
    expect(byteAt(1)).toBe(expected);
    expect(byteAt(2)).toBe(expected);
    await expect(
      cluster.corruptBlockReplica({
        datanodeUuid: second!.uuid,
        localId: block.localId,
        offsetInBlock: CHUNK + 1,
      }),
    ).rejects.toBeInstanceOf(InvalidOptionError);
  });

  it('corrupts a replica whose block file the datanode creates only after the call (a follower catching up)', async () => {
    const key = written[3] as WrittenKey;
    const datanode = cluster.datanodes[1]!;
    // A block id no key has, in the folder where the datanode keeps the key's real block.
    const [real] = datanode.dataDirs.flatMap((dir) => blockFiles(dir, key.blocks[0]!.localId));
    const localId = key.blocks[0]!.localId + 1_000_000n;
    const late = join(dirname(real as string), `${localId}.block`);
    let settled = false;
    const corrupting = cluster.corruptBlockReplica({
      datanodeUuid: datanode.uuid,
      localId,
      offsetInBlock: 2,
    });
    void corrupting.then(
      () => (settled = true),
      () => (settled = true),
    );
    // The follower's file appears later: after the call has scanned the datanode's folders and
    // found nothing (the old fixture failed at once), and while it still waits.
    await delay(300);
    expect(settled).toBe(false);
    writeFileSync(late, Buffer.from([1, 2, 3, 4]));
    try {
      await corrupting;
      expect([...readFileSync(late)]).toEqual([1, 2, 3 ^ 0xff, 4]);
    } finally {
      rmSync(late);
    }
  });

  it('stops a datanode and restarts it on the same standalone port', async () => {
    const datanode = cluster.datanodes[2]!;
    await cluster.stopDatanode(datanode.uuid);
    expect(await canConnect(datanode.standaloneAddress)).toBe(false);
    await cluster.restartDatanode(datanode.uuid);
    expect(await canConnect(datanode.standaloneAddress)).toBe(true);
    await expect(cluster.stopDatanode('no-such-datanode')).rejects.toBeInstanceOf(InvalidOptionError);
  });

  it('stops cleanly: the JVM exits, its directory is gone, later writes are refused', async () => {
    const { pid, rootDir } = cluster;
    await cluster.stop();
    await cluster.stop(); // idempotent
    expect(isRunning(pid)).toBe(false);
    expect(launcherJvmsUnder(rootDir)).toEqual([]);
    expect(existsSync(rootDir)).toBe(false);
    await expect(cluster.writeKeys([])).rejects.toBeInstanceOf(OzoneFixtureStateError);
  });
});

describe('the watchdog', () => {
  it('kills the cluster JVM when the Node process that started it is SIGKILLed', async () => {
    const tsx = require.resolve('tsx');
    const child = spawn(
      process.execPath,
      [
        '--import',
        tsx,
        '--conditions',
        'development',
        join(__dirname, 'support', 'start-cluster-and-wait.ts'),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).once('line', resolve);
      child.once('exit', (code) =>
        reject(new Error(`the starter exited (${String(code)}) before the cluster was up`)),
      );
    });
    const { pid, rootDir } = JSON.parse(line) as { pid: number; rootDir: string };
    expect(isRunning(pid)).toBe(true);
    child.kill('SIGKILL');
    await waitFor(`JVM ${pid} to die`, () => !isRunning(pid), { timeoutMs: 60_000, intervalMs: 200 });
    await waitFor(`${rootDir} to be removed`, () => !existsSync(rootDir), {
      timeoutMs: 60_000,
      intervalMs: 200,
    });
    expect(launcherJvmsUnder(rootDir)).toEqual([]);
  });
});
