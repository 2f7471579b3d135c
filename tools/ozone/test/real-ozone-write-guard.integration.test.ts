// Writes to a real cluster's RATIS pipelines are refused until fastpath speaks Ratis: the real
// datanodes run a Ratis server (their RATIS port is a server of its own), and a block written
// over the standalone port would bypass it and be committed with BCSID 0. Each test checks that
// nothing reached the datanodes and that the OM holds nothing, from both clients' sides.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createOzoneClient, RatisWriteUnsupportedError, type OzoneClient } from '@fastpath/ozone-fs-client';
import { contractKeyBytes } from '@fastpath/ozone-fs-client/testing/contract';
import { startRealOzoneCluster, type RealOzoneCluster } from '@fastpath/ozone-fixture';

jest.setTimeout(600_000);

const VOLUME = 'guardvol';
const BUCKET = 'guardbkt';
const MiB = 1024 * 1024;

/** What `promise` rejected with (the test fails if it resolved). */
async function rejection(promise: Promise<unknown>): Promise<Error & { code?: string; retriable?: boolean }> {
  const outcome = await promise.then(
    () => ({ resolved: true as const }),
    (error: unknown) => ({ resolved: false as const, error }),
  );
  if (outcome.resolved) throw new Error('expected a rejection, but the promise resolved');
  expect(outcome.error).toBeInstanceOf(Error);
  return outcome.error as Error & { code?: string; retriable?: boolean };
}

/** WriteChunk and PutBlock commands summed over every datanode, as the datanodes count them. */
async function writeCommands(cluster: RealOzoneCluster): Promise<number> {
  const all = await cluster.datanodeCounters();
  return all.reduce(
    (n, d) => n + (d.commands['WriteChunk']?.ops ?? 0) + (d.commands['PutBlock']?.ops ?? 0),
    0,
  );
}

/** Runs the installed `fastpath-ozone` command as its own process. */
function fastpathOzone(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const pkg = dirname(createRequire(__filename).resolve('@fastpath/ozone-fs-client/package.json'));
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(pkg, 'bin/fastpath-ozone.js'), ...args],
      { env: { ...process.env, HADOOP_USER_NAME: 'guard' } },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

describe('writes to a real MiniOzoneCluster (RATIS pipelines)', () => {
  let cluster: RealOzoneCluster;
  let client: OzoneClient;
  let dir: string;

  beforeAll(async () => {
    cluster = await startRealOzoneCluster({ datanodes: 3 });
    client = createOzoneClient({ omAddress: cluster.omGrpcAddress, userName: 'guard' });
    await client.createVolume(VOLUME);
    await client.createBucket(VOLUME, BUCKET);
    dir = mkdtempSync(join(tmpdir(), 'fastpath-write-guard-'));
  });

  afterAll(async () => {
    client?.close();
    await cluster?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('refuse a key before its first byte reaches a datanode, and commit nothing', async () => {
    const before = await writeCommands(cluster);
    const out = await client.createKey(VOLUME, BUCKET, 'refused', { sizeBytes: 4 * MiB + 1 });
    const error = await rejection(out.write(contractKeyBytes(4 * MiB + 1, 3)));
    expect(error).toBeInstanceOf(RatisWriteUnsupportedError);
    expect(error).toMatchObject({ code: 'ERR_OZONE_RATIS_WRITE_UNSUPPORTED', retriable: false });
    expect(error.message).toMatch(/RATIS pipeline .* serves Ratis at 127\.0\.0\.1:\d+/);
    // The stream stays failed: close() does not commit what write() refused.
    expect(await rejection(out.close())).toBe(error);

    expect(await writeCommands(cluster)).toBe(before);
    expect(await client.listKeys(VOLUME, BUCKET)).toEqual([]);
    expect(await rejection(client.getKeyInfo(VOLUME, BUCKET, 'refused'))).toMatchObject({
      code: 'ERR_OZONE_KEY_NOT_FOUND',
    });
    expect(await cluster.lookupKey(VOLUME, BUCKET, 'refused')).toEqual({ found: false });
  });

  it('fastpath-ozone fs -put prints one line, exits 1 and leaves no file', async () => {
    const local = join(dir, 'four-mib-and-one');
    writeFileSync(local, contractKeyBytes(4 * MiB + 1, 5));
    const root = `ofs://${cluster.omGrpcAddress}/${VOLUME}/${BUCKET}`;
    const put = await fastpathOzone('fs', '-put', local, `${root}/`);
    expect(put.code).toBe(1);
    expect(put.stdout).toBe('');
    const lines = put.stderr.split('\n').filter((l) => l !== '' && !/^put ofs:/.test(l));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^fastpath-ozone: -put: .*need the Ratis write path.* \[ERR_OZONE_RATIS_WRITE_UNSUPPORTED\]$/,
    );
    expect(put.stderr).not.toMatch(/^\s+at /m);

    const ls = await fastpathOzone('fs', '-ls', `${root}/`);
    expect(ls.code).toBe(0);
    expect(ls.stdout).not.toMatch(/four-mib-and-one/);
    expect(await cluster.lookupKey(VOLUME, BUCKET, 'four-mib-and-one')).toEqual({ found: false });
  });

  it('a refused overwrite leaves the key Ozone wrote as it was', async () => {
    await cluster.writeKeys([
      {
        volume: VOLUME,
        bucket: BUCKET,
        key: 'java-written',
        size: 1000,
        seed: 8,
        checksumType: 'CRC32',
        bytesPerChecksum: 16 * 1024,
        chunkSizeBytes: 4 * MiB,
        blockSizeBytes: 16 * MiB,
        replication: 'RATIS/THREE',
      },
    ]);
    const before = await cluster.lookupKey(VOLUME, BUCKET, 'java-written');
    const local = join(dir, 'replacement');
    writeFileSync(local, Buffer.alloc(10, 1));
    const put = await fastpathOzone(
      'fs',
      '-put',
      '-f',
      local,
      `ofs://${cluster.omGrpcAddress}/${VOLUME}/${BUCKET}/java-written`,
    );
    expect(put.code).toBe(1);
    expect(await cluster.lookupKey(VOLUME, BUCKET, 'java-written')).toEqual(before);
    const back = await client.readKey(VOLUME, BUCKET, 'java-written');
    expect(Buffer.from(back).equals(contractKeyBytes(1000, 8))).toBe(true);
  });

  it('an empty file writes no block, so it is committed as Ozone commits one', async () => {
    const before = await writeCommands(cluster);
    const local = join(dir, 'empty');
    writeFileSync(local, '');
    const put = await fastpathOzone(
      'fs',
      '-put',
      local,
      `ofs://${cluster.omGrpcAddress}/${VOLUME}/${BUCKET}/`,
    );
    expect(put).toMatchObject({ code: 0 });
    expect(await cluster.lookupKey(VOLUME, BUCKET, 'empty')).toEqual({
      found: true,
      dataSize: 0,
      blocks: [],
    });
    expect(await writeCommands(cluster)).toBe(before);
  });
});
