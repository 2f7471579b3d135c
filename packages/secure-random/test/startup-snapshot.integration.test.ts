// A V8 startup snapshot freezes the heap of the building process and starts every later process
// from that copy. A pool filled before the snapshot would be served, byte for byte, by all of them.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build, type Plugin } from 'esbuild';

interface SnapshotReport {
  whileBuilding: { bypassing: boolean; buffered: number };
  drawnWhileBuilding: string;
  restored: { bypassing: boolean; buffered: number };
  drawn: string;
  pooledAfterRestore: boolean;
}

// A snapshot entry must be a single script that loads no user-land modules. Third-party packages
// @fastpath/core depends on (metrics, histograms) are not used by this package and some cannot
// load in a snapshot builder, so they are replaced by empty modules.
const stubThirdParty: Plugin = {
  name: 'stub-third-party',
  setup(esbuild) {
    esbuild.onResolve({ filter: /^[^./]/ }, (args) =>
      isBuiltin(args.path) || args.path.startsWith('@fastpath/')
        ? undefined
        : { path: args.path, namespace: 'stub' },
    );
    esbuild.onLoad({ filter: /.*/, namespace: 'stub' }, () => ({
      contents: 'module.exports = {};',
      loader: 'js',
    }));
  },
};

let dir: string;
let blob: string;
let buildOutput: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'secure-random-snapshot-'));
  const entry = join(dir, 'entry.cjs');
  blob = join(dir, 'snapshot.blob');
  await build({
    entryPoints: [join(__dirname, 'fixtures', 'snapshot-entry.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    conditions: ['development'],
    plugins: [stubThirdParty],
    outfile: entry,
    logLevel: 'silent',
  });
  const built = await promisify(execFile)(
    process.execPath,
    ['--snapshot-blob', blob, '--build-snapshot', entry],
    {
      cwd: dir,
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  buildOutput = built.stdout;
}, 90_000);
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function startFromSnapshot(): SnapshotReport {
  const out = execFileSync(process.execPath, ['--snapshot-blob', blob], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 30_000,
  });
  return JSON.parse(out) as SnapshotReport;
}

describe('V8 startup snapshots', () => {
  it('buffers nothing while the snapshot is built', () => {
    expect(buildOutput).toBe('');
    const report = startFromSnapshot();
    expect(report.whileBuilding).toEqual({ bypassing: true, buffered: 0 });
    expect(report.drawnWhileBuilding).toMatch(/^[0-9a-f]{64}$/);
  });

  it('gives every process started from the snapshot its own bytes, pooled again after restore', () => {
    const first = startFromSnapshot();
    const second = startFromSnapshot();
    // Own instance and module default alike: nothing carried over from the snapshot is served.
    expect(first.drawn.slice(0, 64)).not.toBe(second.drawn.slice(0, 64));
    expect(first.drawn.slice(64)).not.toBe(second.drawn.slice(64));
    expect(first.restored).toEqual({ bypassing: false, buffered: 0 });
    expect(first.pooledAfterRestore).toBe(true);
    expect(second.pooledAfterRestore).toBe(true);
  });
});
