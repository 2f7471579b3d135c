import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openScenarioFolder } from '../../all/scenario-results-folder.js';
import { ResultsWriter } from '../../harness/index.js';
import { ozoneWriteReport } from './ozone-write-report.js';
import { compareRow, type ClientPass, type RowComparison } from './ozone-write-results.js';
import { DEFAULT_SHAPES, parseOzoneWriteFlags, type RowId } from './ozone-write-settings.js';
import { ozoneWriteSummary } from './ozone-write-summary.js';

// Two passes per client at the given MiB/s and CPU per MiB, every key verified.
function passes(mibPerSec: number, cpuMsPerMiB: number, keys: number): ClientPass[] {
  return [1, 2].map((pass) => ({
    pass,
    sample: { keys, errors: 0, bytes: keys * 1048576, wallNs: 1e9, cpuNs: 1e9 },
    figures: { mibPerSec, keysPerSec: mibPerSec / 16, p50Ms: 100, p99Ms: 300, cpuMsPerMiB },
    readBack: { verified: keys, failed: 0 },
    crossRead: null,
  }));
}

function row(id: RowId, fastpathMiBps: number, fastpathCpu: number): RowComparison {
  const shape = DEFAULT_SHAPES[id];
  return compareRow(shape, {
    fastpath: { passes: passes(fastpathMiBps, fastpathCpu, 16) },
    java: { passes: passes(80, 10, 16) },
  });
}

describe('the EC row in the reports', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'ozone-write-summary-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is a row of the all-report table with its ratios, and its two goals are in the goals table', () => {
    const w = new ResultsWriter(dir, 'ozone-write', { png: { fontFiles: [] } });
    w.recordComparison('parallel', row('parallel', 88, 8));
    w.recordComparison('ec-rs-3-2', row('ec-rs-3-2', 72, 12));
    w.finishComparison('complete');
    const figures = ozoneWriteSummary.read(openScenarioFolder(dir, 'ozone-write')!);
    const ec = figures.table!.rows.find((r) => r[0] === '16 writers × 16 MiB, rs-3-2-1024k')!;
    expect(ec[3]).toMatch(/^0\.900×/); // MiB/s fastpath ÷ Java
    expect(ec[6]).toMatch(/^1\.20×/); // CPU per MiB fastpath ÷ Java
    expect(figures.headline).toMatchObject({ row: '16 writers × 16 MiB' });
    const goals = figures.goals.filter((g) => g.goal.includes('rs-3-2-1024k'));
    expect(goals.map((g) => [g.target, g.met])).toEqual([
      ['≥ 1×', false],
      ['≤ 1×', false],
    ]);
  });

  it("is in the scenario's ratio table, its replication named in the setup", () => {
    const settings = parseOzoneWriteFlags(['--cluster', 'real', '--rows', 'ec-rs-3-2'], false);
    const report = ozoneWriteReport([row('ec-rs-3-2', 96, 8)], {
      quick: false,
      settings,
      cluster: 'a cluster',
      javaVersion: '2.2.0',
      javaHeapMb: 1024,
      loadAtStart: [0.1, 0.1, 0.1],
      loadAtEnd: [0.1, 0.1, 0.1],
    });
    expect(report).toMatch(/\| 16 writers × 16 MiB, rs-3-2-1024k \| +1\.20× \(1\.20–1\.20\) \| met +\|/);
    expect(report).toContain('rs-3-2-1024k keys (the rows so marked, 5 datanodes)');
    expect(report).not.toContain('RATIS/THREE keys in 4 MiB chunks');
  });
});

describe('the setup paragraph of the report', () => {
  it("names the client properties set on fastpath's clients, and only when some are", () => {
    const context = {
      quick: false,
      cluster: 'a cluster',
      javaVersion: '2.2.0',
      javaHeapMb: 1024,
      loadAtStart: [0.1, 0.1, 0.1],
      loadAtEnd: [0.1, 0.1, 0.1],
    };
    const set = parseOzoneWriteFlags(
      [
        '--cluster',
        'real',
        '--rows',
        'single',
        '--client-property',
        'ozone.client.stream.buffer.max.size=128MB',
      ],
      false,
    );
    expect(ozoneWriteReport([row('single', 96, 8)], { ...context, settings: set })).toContain(
      "**Client properties set on fastpath's clients** (`--client-property`, after the scenario's own; not on Java's): `ozone.client.stream.buffer.max.size=128MB`.",
    );
    const plain = parseOzoneWriteFlags(['--cluster', 'real', '--rows', 'single'], false);
    expect(ozoneWriteReport([row('single', 96, 8)], { ...context, settings: plain })).not.toContain(
      '--client-property',
    );
  });
});
