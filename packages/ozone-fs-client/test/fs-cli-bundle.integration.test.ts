// The bundled fastpath-ozone (scripts/bundle-cli.mjs, as `npm run build` makes it) run as its own
// process through bin/load-bundle.js: a V8 code cache written on the first run and used on the
// next, a damaged one ignored and rebuilt, none with FASTPATH_CODE_CACHE=off, and the command
// working the same whatever happens to the cache.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { newFileSystemInstance } from '@fastpath/ozone-fs-client';
import { startMiniOzoneCluster, type MiniOzoneCluster } from '@fastpath/ozone-fs-client/testing';
import { contractKeyBytes } from '@fastpath/ozone-fs-client/testing/contract';

const execFileP = promisify(execFile);
const packageDir = join(__dirname, '..');
const tsxLoader = join(dirname(require.resolve('tsx/package.json')), 'dist', 'loader.mjs');
const CONTENT = contractKeyBytes(200_000, 4);

let cluster: MiniOzoneCluster;
let dir: string;
let bundle: string;
let runner: string;
let uri: string;
let socketDir: string;

interface Run {
  stdout: Buffer;
  /** What load-bundle.js did with the cache: absent, used or rejected; undefined without one. */
  cache: string | undefined;
}

/** `fastpath-ozone fs -cat <uri>` through the bundle, as its own process. */
async function cat(env: Record<string, string>, options: readonly string[] = []): Promise<Run> {
  const { stdout, stderr } = await execFileP(
    process.execPath,
    // tsx only so that load-bundle.js finds @fastpath/client-warmup's sources (no build here);
    // the bundle itself is plain CommonJS compiled by vm.Script.
    ['--import', tsxLoader, '--conditions', 'development', runner, 'fs', ...options, '-cat', uri],
    {
      encoding: 'buffer',
      env: { ...process.env, NODE_OPTIONS: '', NODE_DEBUG: 'fastpath-warmup', ...env },
      timeout: 60_000,
    },
  );
  const cache = /code cache result \S+: (\w+)/.exec(stderr.toString())?.[1];
  return { stdout, cache };
}

beforeAll(async () => {
  // One folder below the package, as dist/fastpath-ozone.cjs is (git ignores .bundle-test-*): the
  // bundle requires its native addons from the package's node_modules and native/ folder.
  dir = mkdtempSync(join(packageDir, '.bundle-test-'));
  bundle = join(dir, 'fastpath-ozone.cjs');
  await execFileP(process.execPath, [join(packageDir, 'scripts/bundle-cli.mjs'), bundle], {
    timeout: 120_000,
  });
  runner = join(dir, 'run.mjs');
  const loader = pathToFileURL(join(packageDir, 'bin/load-bundle.js')).href;
  writeFileSync(
    runner,
    `import { loadBundle } from ${JSON.stringify(loader)};\nawait loadBundle(${JSON.stringify(bundle)}, 'fastpath-ozone');\n`,
  );
  // Unix socket paths are short (108 bytes): the socket lives in /tmp, not beside the bundle.
  socketDir = mkdtempSync(join(tmpdir(), 'fastpath-bundle-sock-'));
  cluster = await startMiniOzoneCluster({ datanodes: 1, domainSocketPath: join(socketDir, 'dn._PORT') });
  const fs = newFileSystemInstance(`ofs://${cluster.omAddress}/`);
  try {
    await fs.mkdirs('/vol/bkt');
    const out = await fs.create('/vol/bkt/file');
    await out.write(CONTENT);
    await out.close();
  } finally {
    fs.close();
  }
  uri = `ofs://${cluster.omAddress}/vol/bkt/file`;
}, 180_000);

afterAll(async () => {
  await cluster?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  if (socketDir) rmSync(socketDir, { recursive: true, force: true });
});

describe('the bundled fastpath-ozone through a V8 code cache', () => {
  it('writes the cache on the first run and uses it on the next, with the same output', async () => {
    const cacheDir = join(dir, 'cache-1');
    const first = await cat({ FASTPATH_CODE_CACHE_DIR: cacheDir });
    expect(first.cache).toBe('absent');
    expect(first.stdout.equals(CONTENT)).toBe(true);
    const second = await cat({ FASTPATH_CODE_CACHE_DIR: cacheDir });
    expect(second.cache).toBe('used');
    expect(second.stdout.equals(CONTENT)).toBe(true);
  }, 120_000);

  it('ignores a damaged cache, still answers right, and rebuilds it', async () => {
    const cacheDir = join(dir, 'cache-2');
    await cat({ FASTPATH_CODE_CACHE_DIR: cacheDir });
    const [file] = readdirSync(cacheDir);
    const path = join(cacheDir, file!);
    const bytes = readFileSync(path);
    for (let i = bytes.length - 64; i < bytes.length; i++) bytes[i] = bytes[i]! ^ 0xff;
    writeFileSync(path, bytes);
    const damaged = await cat({ FASTPATH_CODE_CACHE_DIR: cacheDir });
    expect(damaged.cache).toBe('rejected');
    expect(damaged.stdout.equals(CONTENT)).toBe(true);
    expect((await cat({ FASTPATH_CODE_CACHE_DIR: cacheDir })).cache).toBe('used');
  }, 120_000);

  it('keeps no cache with FASTPATH_CODE_CACHE=off, and works where no cache can be written', async () => {
    const cacheDir = join(dir, 'cache-3');
    const off = await cat({ FASTPATH_CODE_CACHE_DIR: cacheDir, FASTPATH_CODE_CACHE: 'off' });
    expect(off.cache).toBeUndefined();
    expect(off.stdout.equals(CONTENT)).toBe(true);
    expect(existsSync(cacheDir)).toBe(false);
    // A cache folder under a regular file cannot be created: the command does not care.
    const blocker = join(dir, 'not-a-folder');
    writeFileSync(blocker, '');
    const unwritable = await cat({ FASTPATH_CODE_CACHE_DIR: join(blocker, 'cache') });
    expect(unwritable.stdout.equals(CONTENT)).toBe(true);
    expect((await cat({ FASTPATH_CODE_CACHE_DIR: join(blocker, 'cache') })).cache).toBe('absent');
  }, 120_000);

  it('reads over short-circuit when asked: the bundle finds the native addon of its package', async () => {
    const before = cluster.counters()[0]!.shortCircuitRequests;
    const run = await cat({ FASTPATH_CODE_CACHE: 'off' }, [
      '-D',
      'ozone.client.read.short-circuit=true',
      '-D',
      `ozone.domain.socket.path=${join(socketDir, 'dn._PORT')}`,
    ]);
    expect(run.stdout.equals(CONTENT)).toBe(true);
    expect(cluster.counters()[0]!.shortCircuitRequests).toBeGreaterThan(before);
  }, 120_000);
});
