import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ResultsWriter, type ComparisonFile } from './results-writer.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'bench-results-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const readComparison = (d: string): ComparisonFile =>
  JSON.parse(readFileSync(path.join(d, 'comparison.json'), 'utf8')) as ComparisonFile;

let tick = 0;
const clock = (): Date => new Date(Date.UTC(2024, 0, 1, 0, 0, tick++));

describe('ResultsWriter', () => {
  it('creates the folder and a running comparison at once, so even a run that dies first leaves a trace', () => {
    const out = path.join(dir, 'nested', 'run');
    new ResultsWriter(out, 'locks', { now: clock });
    expect(readComparison(out)).toMatchObject({ scenario: 'locks', status: 'running', entries: {} });
  });

  it('keeps every finished entry when the run crashes between cases', () => {
    const results = new ResultsWriter(dir, 'kms-http', { now: clock });
    results.recordComparison('100:0', { original: 17_700, fixed: 23_400, ratio: 1.32 });
    results.recordComparison('99:1', { original: 9_000, fixed: 22_000, ratio: 2.44 });
    // The crash: the next case's entry cannot be written (here it cannot even be serialised), and a
    // half-written temporary file is left behind as a kill during the write would leave it.
    expect(() => results.recordComparison('95:5', { original: 10n })).toThrow();
    writeFileSync(path.join(dir, `.comparison.json.${process.pid}.tmp`), '{"scenario": "kms-ht');
    // What a reader (or the next session) finds on disk:
    const onDisk = readComparison(dir);
    expect(onDisk.status).toBe('running');
    expect(Object.keys(onDisk.entries)).toEqual(['100:0', '99:1']);
    expect(onDisk.entries['99:1']).toEqual({ original: 9_000, fixed: 22_000, ratio: 2.44 });
  });

  it('rewrites the comparison after every entry, in measured order, and marks the end', () => {
    const results = new ResultsWriter(dir, 'locks', { now: clock });
    results.recordComparison('a', 1);
    expect(Object.keys(readComparison(dir).entries)).toEqual(['a']);
    results.recordComparison('b', 2);
    results.recordComparison('a', 3);
    expect(readComparison(dir).entries).toEqual({ a: 3, b: 2 });
    results.finishComparison('failed', 'boom');
    expect(readComparison(dir)).toMatchObject({ status: 'failed', error: 'boom' });
    expect(results.comparison().status).toBe('failed');
  });

  it('writes cases under safe file names, config, commands and a log', () => {
    const results = new ResultsWriter(dir, 'locks', { now: clock });
    const file = results.writeCase('contended/read lock', { rounds: [1, 2] });
    expect(path.relative(dir, file)).toBe(path.join('cases', 'contended-read-lock.json'));
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ rounds: [1, 2] });
    results.writeConfig({ rounds: 5 });
    results.recordCommand('node --import tsx cli.ts locks', 'the run');
    results.recordCommand('node server.ts');
    results.log('started');
    results.log('done');
    expect(JSON.parse(readFileSync(path.join(dir, 'config.json'), 'utf8'))).toEqual({ rounds: 5 });
    const commands = readFileSync(path.join(dir, 'commands.txt'), 'utf8');
    expect(commands).toMatch(/^# \S+ the run\nnode --import tsx cli\.ts locks\n# \S+\nnode server\.ts\n$/);
    expect(readFileSync(path.join(dir, 'run.log'), 'utf8').trim().split('\n')).toHaveLength(2);
    expect(path.dirname(results.logPath('server 1'))).toBe(path.join(dir, 'logs'));
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('writes the SVG of a chart and says why there is no PNG when no font is available', async () => {
    const results = new ResultsWriter(dir, 'locks', {
      now: clock,
      png: { fontFiles: [path.join(dir, 'missing.ttf')] },
    });
    const chart = await results.writeChart(
      'through put',
      'Throughput',
      '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>',
    );
    expect(chart).toMatchObject({ name: 'through-put', svg: 'through-put.svg', title: 'Throughput' });
    expect(chart.png).toBeUndefined();
    expect(chart.pngSkipped).toMatch(/no font file found/);
    expect(existsSync(path.join(dir, 'through-put.svg'))).toBe(true);
    expect(existsSync(path.join(dir, 'through-put.png'))).toBe(false);
    expect(results.charts).toEqual([chart]);
    expect(readFileSync(path.join(dir, 'run.log'), 'utf8')).toContain('PNG of chart through-put skipped');
  });

  it('writes report.md ending in a newline', () => {
    const results = new ResultsWriter(dir, 'locks', { now: clock });
    results.writeReport('# Title');
    expect(readFileSync(path.join(dir, 'report.md'), 'utf8')).toBe('# Title\n');
  });
});
