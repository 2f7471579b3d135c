import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';

// The front door must not load prom-client or hdr-histogram-js: a short-lived Ozone client imports
// @fastpath/core for its errors and pays for every module loaded at import time. Each check runs
// in a fresh Node process, since this test process has loaded both long ago.
const packageDir = join(__dirname, '..');
const tsxLoader = join(dirname(require.resolve('tsx/package.json')), 'dist', 'loader.mjs');

function loadedAfter(statements: string): { promClient: boolean; hdrHistogram: boolean } {
  const script = `
    import { createRequire } from 'node:module';
    const core = await import(${JSON.stringify(join(packageDir, 'src', 'index.ts'))});
    ${statements}
    const loaded = Object.keys(createRequire(import.meta.url).cache);
    console.log(JSON.stringify({
      promClient: loaded.some((f) => f.includes('/node_modules/prom-client/')),
      hdrHistogram: loaded.some((f) => f.includes('/node_modules/hdr-histogram-js/')),
    }));`;
  const child = spawnSync(
    process.execPath,
    ['--import', tsxLoader, '--conditions=development', '--input-type=module', '-e', script],
    { cwd: packageDir, encoding: 'utf8' },
  );
  if (child.status !== 0) throw new Error(`child failed (${String(child.status)}): ${child.stderr}`);
  const lastLine = child.stdout.trim().split('\n').at(-1) ?? '';
  return JSON.parse(lastLine) as { promClient: boolean; hdrHistogram: boolean };
}

describe('the front door loads its heavy dependencies on first use', () => {
  it('loads neither prom-client nor hdr-histogram-js for errors, locks and mutexes', () => {
    const loaded = loadedAfter(`
      new core.ReadWriteLock({ name: 'probe' });
      new core.Mutex();
      new core.FastpathError('ERR_PROBE', 'probe');`);
    expect(loaded).toEqual({ promClient: false, hdrHistogram: false });
  });

  it('loads prom-client when a metrics registry is created', () => {
    expect(loadedAfter('new core.MetricsRegistry();')).toEqual({ promClient: true, hdrHistogram: false });
  });

  it('loads hdr-histogram-js when a latency recorder is created', () => {
    expect(loadedAfter('new core.LatencyRecorder().recordMs(1);')).toEqual({
      promClient: false,
      hdrHistogram: true,
    });
  });
});
