import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BenchmarkCheckError } from './benchmark-errors.js';
import { runCli, runStamp } from './run-cli.js';
import type { Scenario } from './scenario.js';
import { integerFlag, parseScenarioFlags } from './scenario-flags.js';

class Sink {
  text = '';
  write(chunk: string): boolean {
    this.text += chunk;
    return true;
  }
}

const FLAGS = { size: { type: 'string', value: '<n>', description: 'how many' } } as const;

// Scenarios that measure nothing: they exercise the harness around them.
const echo: Scenario<{ size: number; all: boolean }> = {
  name: 'echo',
  title: 'Echo scenario',
  description: 'Records its flags.',
  flags: FLAGS,
  parseFlags: (args, { quick, all }) => ({
    size: integerFlag('echo', 'size', parseScenarioFlags('echo', args, FLAGS).size, quick ? 1 : 2, {
      min: 1,
    }),
    all,
  }),
  run(ctx) {
    ctx.progress.begin('echo', ctx.flags.size);
    for (let i = 0; i < ctx.flags.size; i++) {
      ctx.results.writeCase(`case-${i}`, { i });
      ctx.results.recordComparison(`case-${i}`, { i });
      ctx.progress.advance(1);
    }
    ctx.note(`source at ${path.basename(ctx.sourcePath('x.ts'))}`);
    return Promise.resolve({
      markdown: `| size |\n|---|\n| ${ctx.flags.size} |`,
      summary: `size ${ctx.flags.size}`,
    });
  },
};

const broken: Scenario = {
  name: 'broken',
  title: 'Broken scenario',
  description: 'Fails after one case.',
  run(ctx) {
    ctx.results.recordComparison('first', { ok: true });
    return Promise.reject(new BenchmarkCheckError('two holders seen'));
  },
};

let dir: string;
let stdout: Sink;
let stderr: Sink;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'bench-cli-'));
  stdout = new Sink();
  stderr = new Sink();
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const run = (argv: string[], scenarios: readonly Scenario[] = [echo, broken]): Promise<number> =>
  runCli(argv, {
    scenarios,
    benchmarksDir: dir,
    stdout,
    stderr,
    now: () => new Date(Date.UTC(2024, 4, 1, 9, 30, 12)),
  });

describe('runCli', () => {
  it('runs one scenario into results/<timestamp>-<name> and prints its table', async () => {
    expect(await run(['echo', '--size', '3'])).toBe(0);
    const out = path.join(dir, 'results', '2024-05-01T093012Z-echo');
    const report = readFileSync(path.join(out, 'report.md'), 'utf8');
    expect(report).toMatch(/^# Echo scenario\n\nRecords its flags\.\n\nStatus: \*\*complete\*\*/);
    expect(report).toContain('| 3 |');
    expect(report).toContain('## Environment');
    expect(report).toContain('`--size 3`');
    const comparison: unknown = JSON.parse(readFileSync(path.join(out, 'comparison.json'), 'utf8'));
    expect(comparison).toMatchObject({
      status: 'complete',
      entries: { 'case-0': { i: 0 }, 'case-2': { i: 2 } },
    });
    expect(existsSync(path.join(out, 'cases', 'case-2.json'))).toBe(true);
    expect(JSON.parse(readFileSync(path.join(out, 'config.json'), 'utf8'))).toMatchObject({
      flags: { size: 3 },
    });
    expect(JSON.parse(readFileSync(path.join(out, 'environment.json'), 'utf8'))).toHaveProperty('cpuModel');
    expect(readFileSync(path.join(out, 'commands.txt'), 'utf8')).toContain(process.execPath);
    expect(stdout.text).toContain('## Echo scenario');
    expect(stdout.text).toContain('| 3 |');
    expect(stderr.text).toContain('source at x.ts');
  });

  it('writes into --output as given, and applies --quick defaults', async () => {
    const out = path.join(dir, 'mine');
    expect(await run(['echo', '--quick', '--output', out])).toBe(0);
    expect(JSON.parse(readFileSync(path.join(out, 'config.json'), 'utf8'))).toMatchObject({
      quick: true,
      flags: { size: 1, all: false },
    });
  });

  it('rejects bad usage with status 2 before writing anything', async () => {
    expect(await run(['echo', '--bogus'])).toBe(2);
    expect(stderr.text).toContain('error: echo: unknown flag --bogus. Flags of echo: --size');
    expect(stderr.text).toContain('Usage:');
    expect(await run(['nope'])).toBe(2);
    expect(stderr.text).toContain('unknown scenario "nope"; choose all or one of: echo, broken');
    expect(await run(['broken', '--size', '1'])).toBe(2);
    expect(stderr.text).toContain('broken takes no flags');
    expect(existsSync(path.join(dir, 'results'))).toBe(false);
  });

  it('prints help for the harness and for one scenario', async () => {
    expect(await run(['--help'])).toBe(0);
    expect(stdout.text).toMatch(/all +every scenario below, each in its own process/);
    expect(stdout.text).toMatch(/echo +Echo scenario/);
    stdout.text = '';
    expect(await run(['echo', '--help'])).toBe(0);
    expect(stdout.text).toContain('--size <n>  how many');
  });

  it('keeps what a failing scenario measured and reports the failure with status 1', async () => {
    expect(await run(['broken'])).toBe(1);
    const out = path.join(dir, 'results', '2024-05-01T093012Z-broken');
    const comparison: unknown = JSON.parse(readFileSync(path.join(out, 'comparison.json'), 'utf8'));
    expect(comparison).toMatchObject({ status: 'failed', entries: { first: { ok: true } } });
    expect(comparison).toHaveProperty('error', expect.stringContaining('two holders seen'));
    expect(readFileSync(path.join(out, 'report.md'), 'utf8')).toMatch(
      /Status: \*\*failed\*\*[\s\S]*## Error[\s\S]*two holders seen/,
    );
  });

  it('tells a scenario it runs as part of all when all started its process (--as-part-of-all)', async () => {
    const out = path.join(dir, 'part');
    expect(await run(['echo', '--as-part-of-all', '--output', out])).toBe(0);
    expect(JSON.parse(readFileSync(path.join(out, 'config.json'), 'utf8'))).toMatchObject({
      flags: { all: true },
    });
  });

  it('names run folders by UTC time without colons', () => {
    expect(runStamp(new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 678)))).toBe('2024-01-02T030405Z');
  });
});
