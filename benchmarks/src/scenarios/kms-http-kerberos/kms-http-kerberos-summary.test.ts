import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openScenarioFolder } from '../../all/scenario-results-folder.js';
import { ResultsWriter } from '../../harness/index.js';
import { estimateKmsHttpMs, kmsCaseMs } from '../kms-http/kms-http-estimate.js';
import { parseKmsHttpKerberosFlags } from '../kms-http/kms-http-settings.js';
import { kmsHttpKerberosSummary } from './kms-http-kerberos-summary.js';

// A kms-http-kerberos results folder as the scenario writes it (its comparison entries), with
// made-up figures over three repetitions (×0.98, ×1, ×1.02): fixed/Hadoop 2× at 90:10 SPNEGO.
const ROWS: Record<
  string,
  { mix: string; requestsPerSec: Record<string, number>; serverUs: Record<string, number> }
> = {
  'kerberos-spnego/100:0': {
    mix: '100:0',
    requestsPerSec: { hadoop: 4000, original: 8000, fixed: 8000 },
    serverUs: { hadoop: 200, original: 100, fixed: 100 },
  },
  'kerberos-spnego/90:10': {
    mix: '90:10',
    requestsPerSec: { hadoop: 1000, original: 1500, fixed: 2000 },
    // Per creation (= per handshake): (480 − 180) / 0.1 = 3000, (250 − 90) / 0.1 = 1600, 1400.
    serverUs: { hadoop: 480, original: 250, fixed: 230 },
  },
  'kerberos-cookie/90:10': {
    mix: '90:10',
    requestsPerSec: { hadoop: 2000, original: 1800, fixed: 5000 },
    serverUs: { hadoop: 280, original: 130, fixed: 120 },
  },
};

function writeFolder(dir: string): void {
  const w = new ResultsWriter(dir, 'kms-http-kerberos', { png: { fontFiles: [] } });
  for (const [prefix, row] of Object.entries(ROWS)) {
    for (let rep = 0; rep < 3; rep++) {
      for (const [version, requestsPerSec] of Object.entries(row.requestsPerSec)) {
        const wobble = [0.98, 1, 1.02][rep]!;
        w.recordComparison(`${prefix}/${version}/rep${rep}`, {
          version,
          mix: row.mix,
          rep,
          creationAuth: prefix.includes('cookie') ? 'cookie' : 'spnego',
          requestsPerSec: requestsPerSec * wobble,
          verifyP99Ms: 3,
          createP99Ms: row.mix === '100:0' ? null : 30,
          errors: 0,
          serverUsPerRequest: row.serverUs[version]!,
          requests: 10_000,
          creations: row.mix === '100:0' ? 0 : 1000,
        });
      }
    }
  }
  // A simple-authentication entry in the same folder is not a Kerberos case.
  w.recordComparison('90:10/fixed/rep0', {
    version: 'fixed',
    mix: '90:10',
    rep: 0,
    requestsPerSec: 1,
    verifyP99Ms: 1,
  });
  w.finishComparison('complete');
}

describe('the kms-http-kerberos summary of the all-report', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'kms-http-kerberos-summary-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('shows the Kerberos table with the server CPU per handshake, the headline at 90:10 SPNEGO, and the goals', () => {
    writeFolder(dir);
    const figures = kmsHttpKerberosSummary.read(openScenarioFolder(dir, 'kms-http-kerberos')!);
    const table = figures.table!;
    expect(table.rows.map((r) => r.slice(0, 2))).toEqual([
      ['100:0', 'none (verification only)'],
      ['90:10', 'SPNEGO, a handshake each'],
      ['90:10', 'hadoop.auth cookie'],
    ]);
    const headers = table.columns.map((c) => c.header);
    const cell = (row: number, header: string): string => table.rows[row]![headers.indexOf(header)]!;
    expect(cell(1, 'Hadoop KMS req/s')).toBe('1.00 k (980–1.02 k)');
    expect(cell(1, 'fixed / Hadoop')).toMatch(/^2\.00×/);
    expect(cell(1, 'Hadoop KMS server µs/creation')).toBe('3000 (3000–3000)');
    expect(cell(1, 'fixed server µs/creation')).toBe('1400 (1400–1400)');
    expect(cell(2, 'original server µs/creation')).toBe('400 (400–400)');
    expect(figures.headline).toMatchObject({
      row: '90:10 SPNEGO',
      label: 'fixed / Hadoop KMS requests/s at 90:10 SPNEGO',
      source: null,
      better: 'higher',
    });
    expect(figures.headline!.ours!.value).toBeCloseTo(2, 9);
    // The cookie row's original is 0.9× Hadoop: the one goal missed.
    expect(figures.goals.filter((g) => g.met === false).map((g) => g.goal)).toEqual([
      'Kerberos, 90:10 cookie: original / Hadoop KMS ≥ 1×',
    ]);
    expect(figures.goals).toHaveLength(6);
    expect(figures.notes.join('\n')).toMatch(/per handshake/);
  });

  it('reads an empty folder as nothing measured', () => {
    new ResultsWriter(dir, 'kms-http-kerberos', { png: { fontFiles: [] } }).finishComparison('failed');
    const figures = kmsHttpKerberosSummary.read(openScenarioFolder(dir, 'kms-http-kerberos')!);
    expect(figures.table!.rows).toEqual([]);
    expect(figures.headline).toBeNull();
    expect(figures.goals.map((g) => g.met)).toEqual([null]);
  });

  it("plans the full profile's cases and time: 3 repetitions of 3 rows × Hadoop, original and fixed", () => {
    const full = parseKmsHttpKerberosFlags([], false, true);
    expect(kmsHttpKerberosSummary.cases(full, false)).toBe(27);
    expect(kmsHttpKerberosSummary.estimateMs(full, false)).toBe(
      3 * (3 * kmsCaseMs(full, 'hadoop') + 6 * kmsCaseMs(full, 'fixed')),
    );
    expect(estimateKmsHttpMs(full)).toBe(kmsHttpKerberosSummary.estimateMs(full, false));
    expect(kmsHttpKerberosSummary.uses(full, false)).toContain('hadoop');
  });
});
