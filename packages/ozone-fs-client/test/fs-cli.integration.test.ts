// fastpath-ozone fs against the embedded cluster: each command, -D and --conf, progress lines,
// exit codes 0/1/2 and one-line errors; and the installed bin once as its own process.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { runFsCli } from '../src/fs/fs-cli.js';
import { startMiniOzoneCluster, type MiniOzoneCluster } from '@fastpath/ozone-fs-client/testing';
import { contractKeyBytes } from '@fastpath/ozone-fs-client/testing/contract';

let cluster: MiniOzoneCluster;
let dir: string;
let root: string;

async function run(...argv: string[]): Promise<{ code: number; stdout: Buffer; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (b: Buffer) => out.push(b));
  stderr.on('data', (b: Buffer) => err.push(b));
  const code = await runFsCli(argv, { stdout, stderr, env: { HADOOP_USER_NAME: 'carol' } });
  return { code, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString() };
}

beforeAll(async () => {
  cluster = await startMiniOzoneCluster({ datanodes: 3 });
  dir = mkdtempSync(join(tmpdir(), 'fastpath-ozone-cli-'));
  root = `ofs://${cluster.omAddress}`;
});
afterAll(async () => {
  await cluster?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('fastpath-ozone fs', () => {
  it('-put and -cat round-trip an 8 MiB file, with progress lines on a non-terminal stderr', async () => {
    const data = contractKeyBytes(8 * 1024 * 1024 + 17, 9);
    writeFileSync(join(dir, 'big'), data);
    const put = await run('fs', '-put', join(dir, 'big'), `${root}/vol/bkt/big`);
    expect(put.code).toBe(0);
    expect(put.stderr).toMatch(/put ofs:\/\/.*\/vol\/bkt\/big: 8\.0 of 8\.0 MiB \(100%/);
    const cat = await run('fs', '-cat', `${root}/vol/bkt/big`);
    expect(cat.code).toBe(0);
    expect(cat.stdout.equals(data)).toBe(true);
    const get = await run('fs', '-get', `${root}/vol/bkt/big`, join(dir, 'back'));
    expect(get.code).toBe(0);
    expect(readFileSync(join(dir, 'back')).equals(data)).toBe(true);
    expect((await run('fs', '-get', `${root}/vol/bkt/big`, join(dir, 'back'))).code).toBe(1); // exists, no -f
  }, 120_000);

  it('-mkdir, -ls, -stat, -mv, -rm -r', async () => {
    expect((await run('fs', '-mkdir', '-p', `${root}/vol/bkt/d1/d2`)).code).toBe(0);
    writeFileSync(join(dir, 'small'), 'hello');
    expect((await run('fs', '-put', join(dir, 'small'), `${root}/vol/bkt/d1/`)).code).toBe(0);
    const ls = await run('fs', '-ls', `${root}/vol/bkt/d1`);
    expect(ls.stdout.toString().split('\n')).toEqual([
      'Found 2 items',
      expect.stringMatching(
        /^drwxrwxrwx {3}- carol carol {10}0 \d{4}-\d\d-\d\d \d\d:\d\d ofs:\/\/.*\/vol\/bkt\/d1\/d2$/,
      ),
      expect.stringMatching(/^-rw-rw-rw- {3}3 carol carol {10}5 .* ofs:\/\/.*\/vol\/bkt\/d1\/small$/),
      '',
    ]);
    const stat = await run('fs', '-stat', `${root}/vol/bkt/d1/small`);
    expect(stat.stdout.toString()).toMatch(
      /^regular file\t5\t268435456\t\d{4}-.*Z\tcarol\tofs:\/\/.*\/vol\/bkt\/d1\/small\n$/,
    );
    expect((await run('fs', '-mv', `${root}/vol/bkt/d1/small`, `${root}/vol/bkt/d1/d2`)).code).toBe(0);
    expect((await run('fs', '-cat', `${root}/vol/bkt/d1/d2/small`)).stdout.toString()).toBe('hello');
    const rm = await run('fs', '-rm', `${root}/vol/bkt/d1`);
    expect(rm).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/ERR_OZONE_FS_PATH_IS_NOT_EMPTY_DIRECTORY\]\n$/),
    });
    expect((await run('fs', '-rm', '-r', `${root}/vol/bkt/d1`)).code).toBe(0);
    expect((await run('fs', '-stat', `${root}/vol/bkt/d1`)).code).toBe(1);
  });

  it('-D and --conf settings reach the file system; fs.defaultFS qualifies bare paths', async () => {
    const conf = join(dir, 'ozone-site.xml');
    writeFileSync(
      conf,
      `<?xml version="1.0"?>\n<configuration>\n<property><name>fs.defaultFS</name><value>${root}</value></property>\n</configuration>\n`,
    );
    writeFileSync(join(dir, 'k'), contractKeyBytes(100_000, 1));
    expect((await run('fs', '--conf', conf, '-put', join(dir, 'k'), '/vol/bkt/k')).code).toBe(0);
    await cluster.corruptKeyReplica('vol', 'bkt', 'k', 500, { replica: 0 });
    await cluster.corruptKeyReplica('vol', 'bkt', 'k', 500, { replica: 1 });
    await cluster.corruptKeyReplica('vol', 'bkt', 'k', 500, { replica: 2 });
    const verified = await run('fs', '--conf', conf, '-cat', '/vol/bkt/k');
    expect(verified).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/\[ERR_OZONE_FS_CHECKSUM\]\n$/),
    });
    expect(verified.stderr.split('\n')).toHaveLength(2); // one line
    const unverified = await run(
      'fs',
      '--conf',
      conf,
      '-D',
      'ozone.client.verify.checksum=false',
      '-cat',
      '/vol/bkt/k',
    );
    expect(unverified.code).toBe(0);
    expect(unverified.stdout.length).toBe(100_000);
    expect(unverified.stdout[500]).toBe((contractKeyBytes(100_000, 1)[500] as number) ^ 0xff);
  });

  it('exit status 1 with one line for a failed operation, 2 with the usage for a bad command line', async () => {
    const missing = await run('fs', '-cat', `${root}/vol/bkt/none`);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(
      /^fastpath-ozone: -cat: \/vol\/bkt\/none: No such file.*\[ERR_OZONE_FS_FILE_NOT_FOUND\]\n$/,
    );
    for (const argv of [
      [],
      ['fs'],
      ['fs', '-nope', 'x'],
      ['fs', '-mv', 'a'],
      ['fs', '-D', 'novalue', '-ls', '/'],
      ['dfs', '-ls'],
    ]) {
      const r = await run(...argv);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/Usage: fastpath-ozone fs/);
    }
    expect(await run('fs', '-ls', '/vol')).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/fs\.defaultFS/),
    });
    expect((await run('fs', '-ls', 'hdfs://nn/x')).code).toBe(1);
  });

  it('the bin runs as its own process and exits with the status', async () => {
    const bin = join(__dirname, '../bin/fastpath-ozone.js');
    const r = await promisify(execFile)(process.execPath, [
      bin,
      'fs',
      '-cat',
      `${root}/vol/bkt/d1/none`,
    ]).catch((e: { code: number; stderr: string }) => e);
    expect(r).toMatchObject({ code: 1, stderr: expect.stringMatching(/ERR_OZONE_FS_FILE_NOT_FOUND/) });
  }, 60_000);
});
