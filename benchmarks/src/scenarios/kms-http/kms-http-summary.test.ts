import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openScenarioFolder } from '../../all/scenario-results-folder.js';
import { ResultsWriter } from '../../harness/index.js';
import { estimateKmsHttpMs } from './kms-http-estimate.js';
import { parseKmsHttpFlags } from './kms-http-settings.js';
import { kmsHttpSummary } from './kms-http-summary.js';

// A kms-http results folder as the scenario writes it (comparison entries and baseline case
// files), with made-up figures: per mix, each version's requests/s (×0.98, ×1, ×1.02 over the
// three repetitions), so fixed/original is 1.8× and fixed/Hadoop 5.4× at 90:10.
const THROUGHPUT: Record<string, Record<string, number>> = {
  '100:0': { hadoop: 2000, original: 10_000, fixed: 10_000, coalesced: 10_000 },
  '90:10': { hadoop: 1000, original: 3000, fixed: 5400, coalesced: 6600 },
};
const SERVER_US: Record<string, number> = { hadoop: 200, original: 100, fixed: 100, coalesced: 100 };

function writeFolder(dir: string, versions: readonly string[], cpu: boolean): void {
  const w = new ResultsWriter(dir, 'kms-http', { png: { fontFiles: [] } });
  for (const [mix, byVersion] of Object.entries(THROUGHPUT)) {
    for (let rep = 0; rep < 3; rep++) {
      for (const version of versions) {
        const wobble = [0.98, 1, 1.02][rep]!;
        w.recordComparison(`${mix}/${version}/rep${rep}`, {
          version,
          mix,
          rep,
          requestsPerSec: byVersion[version]! * wobble,
          verifyP99Ms: 5,
          createP99Ms: mix === '100:0' ? null : 12,
          errors: 0,
          ...(cpu ? { serverUsPerRequest: SERVER_US[version]! * wobble, zookeeperUsPerCreation: 450 } : {}),
        });
      }
    }
  }
  for (let rep = 0; rep < 3; rep++)
    w.writeCase(`baseline-rep${rep}`, {
      rep,
      requestsPerSec: 14_000,
      p99Ms: 3,
      errors: 0,
      ...(cpu ? { serverUsPerRequest: 80, generatorUsPerRequest: 70, serverEventLoopP99Ms: 0.4 } : {}),
    });
  w.finishComparison('complete');
}

describe('the kms-http summary of the all-report', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'kms-http-summary-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("shows Hadoop's KMS beside the fastpath versions when the run measured it", () => {
    writeFolder(dir, ['hadoop', 'original', 'fixed', 'coalesced'], true);
    const figures = kmsHttpSummary.read(openScenarioFolder(dir, 'kms-http')!);
    const table = figures.table!;
    expect(table.columns.map((c) => c.header)).toEqual([
      'Verify:create',
      'Hadoop KMS requests/s',
      'Fixed/Hadoop',
      'Original requests/s',
      'Fixed requests/s',
      'Fixed/original',
      'Fixed + coalesced requests/s',
      'coalesced/original',
    ]);
    const row90 = table.rows.find((r) => r[0] === '90:10')!;
    expect(row90[1]).toBe('1.00 k (980–1.02 k)'); // Hadoop's median and range
    expect(row90[2]).toMatch(/^5\.40×/); // fixed / Hadoop, paired by repetition
    expect(row90[5]).toMatch(/^1\.80×/); // fixed / original
    expect(figures.headline).toMatchObject({ row: '90:10', source: 7.47 });
    expect(figures.headline!.ours!.value).toBeCloseTo(1.8, 9);
  });

  it("reads the server CPU per verification against the trivial route's as a goal", () => {
    writeFolder(dir, ['hadoop', 'original', 'fixed', 'coalesced'], true);
    const figures = kmsHttpSummary.read(openScenarioFolder(dir, 'kms-http')!);
    const goal = figures.goals.find((g) => g.goal.includes('CPU per verification'));
    // 100 µs against 80 µs: 1.25×, over the 1.15× goal.
    expect(goal).toMatchObject({ measured: '1.25× (100 / 80 µs)', met: false });
    expect(figures.goals.find((g) => g.goal === 'fixed / original at 90:10 ≥ 1.6×')?.met).toBe(true);
    expect(figures.notes.join('\n')).toMatch(/fixed 100 µs .*Hadoop KMS 200 µs.*trivial route 80 µs/);
  });

  it('reads a folder of a run without Hadoop or CPU figures (an older run): no empty column, goal not measured', () => {
    writeFolder(dir, ['original', 'fixed', 'coalesced'], false);
    const figures = kmsHttpSummary.read(openScenarioFolder(dir, 'kms-http')!);
    expect(figures.table!.columns.map((c) => c.header)).not.toContain('Hadoop KMS requests/s');
    expect(figures.table!.rows[0]).toHaveLength(6);
    expect(figures.goals.find((g) => g.goal.includes('CPU per verification'))?.met).toBeNull();
    expect(figures.notes.join('\n')).not.toMatch(/CPU per verification/);
  });

  it("names Hadoop among the tools used when the run includes Hadoop's KMS", () => {
    expect(kmsHttpSummary.uses(parseKmsHttpFlags([], false, true), false)).toContain('hadoop');
    expect(kmsHttpSummary.uses(parseKmsHttpFlags([], false, false), false)).not.toContain('hadoop');
  });

  it('estimates what the scenario plans case by case, Hadoop with its JVM warm-up and start', () => {
    // The matrix only: the quorum pass and the sweep that `all` adds are estimated in kms-passes.test.ts.
    const matrixOnly = ['--quorum-mixes', 'none', '--zk-delay-ms', 'none'];
    const all = parseKmsHttpFlags(matrixOnly, false, true);
    const without = parseKmsHttpFlags([], false, false);
    expect(kmsHttpSummary.estimateMs(all, false)).toBe(estimateKmsHttpMs(all));
    // Hadoop's 12 cases add its JVM warm-up (20 s) and slower start to every one of them.
    expect(estimateKmsHttpMs(all) - estimateKmsHttpMs(without)).toBeGreaterThan(12 * (20_000 + 20_000));
    // Calibration: two full runs measured on this machine kind, before ZooKeeper's warm-up existed.
    // With Hadoop's KMS (51 cases at commit 251fd99): 31:11, against 20:24 estimated then.
    const withHadoop = estimateKmsHttpMs(parseKmsHttpFlags(['--zk-warmup', '0', ...matrixOnly], false, true));
    expect(Math.abs(withHadoop / 1_870_861 - 1)).toBeLessThan(0.1);
    // The three fastpath versions (39 cases at commit 221e403, a busier machine): 22:38.
    const fastpathOnly = estimateKmsHttpMs(parseKmsHttpFlags(['--zk-warmup', '0'], false, false));
    expect(Math.abs(fastpathOnly / 1_358_000 - 1)).toBeLessThan(0.15);
    // ZooKeeper's warm-up is bounded by --zk-warmup and counted.
    const noZk = parseKmsHttpFlags(['--zk-warmup', '0'], false, false);
    expect(estimateKmsHttpMs(without)).toBeGreaterThan(estimateKmsHttpMs(noZk));
  });
});
