import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runAll } from '../src/all/run-all.js';
import { readManifest } from '../src/all/run-manifest.js';
import { FIXTURE_REGISTRY } from './fixtures/fixture-registry.js';

// `all` with real scenario processes (the fixture scenarios, through tsx like the real ones): a
// process that crashes and a run that is interrupted both leave every finished scenario's results
// and a report marked incomplete.
const CLI = path.resolve('test/fixtures/fixture-cli.ts');

class Sink {
  text = '';
  constructor(private readonly onWrite: (text: string) => void = () => {}) {}
  write(chunk: string): boolean {
    this.text += chunk;
    this.onWrite(this.text);
    return true;
  }
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'bench-all-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const run = (argv: string[], options: { stderr?: Sink; signal?: AbortSignal } = {}) => {
  const stdout = new Sink();
  const stderr = options.stderr ?? new Sink();
  return runAll([...argv, '--output', path.join(dir, 'run')], {
    registry: FIXTURE_REGISTRY,
    benchmarksDir: path.resolve('.'),
    repoDir: path.resolve('..'),
    cliPath: CLI,
    stdout,
    stderr,
    signal: options.signal ?? new AbortController().signal,
    progress: { plainIntervalMs: 0, autoRefresh: false },
  }).then((status) => ({ status, stdout: stdout.text, stderr: stderr.text }));
};

describe('benchmarks:all', () => {
  it('goes on after a scenario process crashes, keeps what it recorded, and marks the report incomplete', async () => {
    const { status, stdout, stderr } = await run(['--only', 'steady,crashing,after', '--quick']);
    expect(status).toBe(1);
    const manifest = readManifest(path.join(dir, 'run'));
    expect(manifest.scenarios.map((s) => [s.name, s.status, s.exitCode])).toEqual([
      ['steady', 'complete', 0],
      ['crashing', 'failed', 3],
      ['after', 'complete', 0],
    ]);
    expect(manifest).toMatchObject({
      status: 'incomplete',
      quick: true,
      only: ['steady', 'crashing', 'after'],
    });
    const md = readFileSync(path.join(dir, 'run', 'report.md'), 'utf8');
    expect(md).toMatch(
      /^# fastpath benchmarks: INCOMPLETE report\n\n> \*\*Incomplete: not every scenario completed\. Not complete: crashing \(failed\)/,
    );
    // The crashed process's one recorded figure is read back from its comparison JSON.
    expect(md).toMatch(
      /\| crashing +\| — +\| failed in \d+:\d\d +\| fixture ratio \(higher is better\) +\| +0\.500× \(0\.500–0\.500\) \|/,
    );
    expect(md).toContain('exit status 3');
    expect(readFileSync(path.join(dir, 'run', 'report.html'), 'utf8')).toContain('<svg ');
    // Progress for the whole run: scenario i of n and case j of m, with elapsed and ETA.
    expect(stderr).toMatch(
      /\[1\/3\] steady · case [12]\/2 +\d+% · steady \d+% · its ETA [\d:?]+ · .* · elapsed \d+:\d\d · ETA [\d:?]+/,
    );
    expect(stderr).toMatch(/✗ \[2\/3\] crashing failed/);
    expect(stdout).toMatch(/\| after +\| — +\| complete in/);
  }, 120_000);

  it('stops at an interrupt: the running scenario writes what it has, the rest are not run', async () => {
    const controller = new AbortController();
    // Interrupt once the slow scenario says it has recorded its first figure.
    const stderr = new Sink((text) => {
      if (text.includes('slow: first step done') && !controller.signal.aborted) controller.abort();
    });
    const { status } = await run(['--only', 'steady,slow,after'], { stderr, signal: controller.signal });
    expect(status).toBe(130);
    const manifest = readManifest(path.join(dir, 'run'));
    expect(manifest.scenarios.map((s) => [s.name, s.status])).toEqual([
      ['steady', 'complete'],
      ['slow', 'interrupted'],
      ['after', 'not run'],
    ]);
    expect(manifest).toMatchObject({ status: 'incomplete', stopped: 'interrupted' });
    expect(JSON.parse(readFileSync(path.join(dir, 'run', 'slow', 'comparison.json'), 'utf8'))).toMatchObject({
      status: 'interrupted',
      entries: { ratio: 1.5 },
    });
    expect(existsSync(path.join(dir, 'run', 'after'))).toBe(false);
    const md = readFileSync(path.join(dir, 'run', 'report.md'), 'utf8');
    expect(md).toContain('Incomplete: interrupted. Not complete: slow (interrupted), after (not run).');
    expect(md).toMatch(
      /\| slow +\| — +\| interrupted in \d+:\d\d +\| fixture ratio \(higher is better\) +\| +1\.50× /,
    );
  }, 120_000);

  it('rejects an unknown scenario in --only before running anything', async () => {
    const { status, stderr } = await run(['--only', 'steady,nope']);
    expect(status).toBe(2);
    expect(stderr).toContain('--only: unknown scenario nope; choose from steady, crashing, slow, after');
    expect(existsSync(path.join(dir, 'run'))).toBe(false);
  });

  it('rejects an older run it cannot read before running anything', async () => {
    const { status, stderr } = await run(['--compare', path.join(dir, 'no-such-run')]);
    expect(status).toBe(2);
    expect(stderr).toMatch(/^error: --compare: .*no-such-run is not a results folder of benchmarks:all/);
    expect(existsSync(path.join(dir, 'run'))).toBe(false);
  });
});
