import { BenchmarkUsageError } from '../../harness/benchmark-errors.js';
import type { CaseFigures } from './aggregate-cases.js';
import { parseKmsHttpFlags } from './kms-http-settings.js';
import { estimateKmsHttpMs, kmsCaseMs, kmsHttpCases } from './kms-http-estimate.js';
import { caseId, comparisonKey, kmsPasses } from './kms-passes.js';
import { delayRow, zookeeperGoals, zookeeperRows } from './kms-zookeeper-report.js';

describe('the ZooKeeper flags and passes', () => {
  it('runs only the standalone matrix by default, and adds the quorum pass and the sweep in all', () => {
    const own = parseKmsHttpFlags([], false);
    expect(own.zookeeper).toMatchObject({ matrix: 'standalone', quorumMixes: [], sweepDelaysMs: [] });
    expect(kmsPasses(own).map((p) => p.part)).toEqual(['matrix']);

    const all = parseKmsHttpFlags([], false, true);
    expect(all.zookeeper.quorumMixes.map((m) => m.label)).toEqual(['100:0', '90:10']);
    expect(all.zookeeper.sweepDelaysMs).toEqual([0, 0.5, 2]);
    const passes = kmsPasses(all);
    expect(passes.map((p) => [p.part, p.zookeeper.topology, p.zookeeper.delayMs])).toEqual([
      ['matrix', 'standalone', null],
      ['quorum', 'ensemble', null],
      ['sweep', 'standalone', 0],
      ['sweep', 'standalone', 0.5],
      ['sweep', 'standalone', 2],
    ]);
    // Hadoop's KMS stays in the matrix only; the sweep has the one mix 90:10.
    expect(passes[0]!.versions).toContain('hadoop');
    for (const pass of passes.slice(1)) expect(pass.versions).toEqual(['original', 'fixed', 'coalesced']);
    for (const pass of passes.slice(2)) expect(pass.mixes.map((m) => m.label)).toEqual(['90:10']);

    // all --quick keeps what the goals read.
    const quick = parseKmsHttpFlags([], true, true).zookeeper;
    expect(quick.quorumMixes.map((m) => m.label)).toEqual(['90:10']);
    expect(quick.sweepDelaysMs).toEqual([2]);
  });

  it('makes --zookeeper ensemble the quorum table, and reads the sweep delays', () => {
    const s = parseKmsHttpFlags(
      ['--zookeeper', 'ensemble', '--mixes', '90:10', '--zk-delay-ms', '0.5,2'],
      false,
    );
    const passes = kmsPasses(s);
    expect(passes.map((p) => [p.part, p.zookeeper.topology, p.zookeeper.delayMs])).toEqual([
      ['quorum', 'ensemble', null],
      ['sweep', 'standalone', 0.5],
      ['sweep', 'standalone', 2],
    ]);
    // In all, an ensemble matrix needs no second quorum pass; `none` turns the sweep off.
    expect(
      parseKmsHttpFlags(['--zookeeper', 'ensemble', '--zk-delay-ms', 'none'], false, true).zookeeper,
    ).toMatchObject({ quorumMixes: [], sweepDelaysMs: [] });
  });

  it('rejects bad ZooKeeper flags before anything runs', () => {
    for (const args of [
      ['--zookeeper', 'cluster'],
      ['--zk-delay-ms', '-1'],
      ['--zk-delay-ms', '1,,2'],
      ['--zk-delay-ms', '2,2'],
      ['--quorum-mixes', '80:30'],
      ['--zookeeper', 'ensemble', '--quorum-mixes', '90:10'],
    ])
      expect(() => parseKmsHttpFlags(args, false)).toThrow(BenchmarkUsageError);
  });

  it('names cases apart per part, keeping the matrix names, and plans every pass in the estimate', () => {
    const s = parseKmsHttpFlags(['--reps', '1', '--no-baseline'], false, true);
    const [matrix, quorum, sweep0, sweepHalf] = kmsPasses(s);
    const mix = s.zookeeper.sweepMix;
    expect(caseId(matrix!, mix, 'fixed', 0)).toBe('90-10-fixed-rep0');
    expect(comparisonKey(matrix!, mix, 'fixed', 0)).toBe('90:10/fixed/rep0');
    expect(caseId(quorum!, mix, 'fixed', 0)).toBe('ensemble-90-10-fixed-rep0');
    expect(comparisonKey(quorum!, mix, 'fixed', 0)).toBe('quorum/90:10/fixed/rep0');
    expect(caseId(sweep0!, mix, 'fixed', 0)).toBe('delay0ms-90-10-fixed-rep0');
    expect(comparisonKey(sweepHalf!, mix, 'original', 0)).toBe('sweep-0.5ms/90:10/original/rep0');

    // 4 mixes × 4 versions + 2 × 3 on the ensemble + 3 delays × 3.
    expect(kmsHttpCases(s)).toBe(16 + 6 + 9);
    const matrixOnly = parseKmsHttpFlags(
      ['--reps', '1', '--no-baseline', '--quorum-mixes', 'none', '--zk-delay-ms', 'none'],
      false,
      true,
    );
    expect(estimateKmsHttpMs(s) - estimateKmsHttpMs(matrixOnly)).toBe(
      2 * 3 * kmsCaseMs(s, 'fixed', quorum!.zookeeper) + 3 * 3 * kmsCaseMs(s, 'fixed', sweep0!.zookeeper),
    );
    expect(kmsCaseMs(s, 'fixed', quorum!.zookeeper)).toBeGreaterThan(
      kmsCaseMs(s, 'fixed', matrix!.zookeeper),
    );
  });
});

describe('the Kerberos passes', () => {
  it('runs every mix with SPNEGO, then only the mixes with creations with the cookie, and names them apart', () => {
    const s = parseKmsHttpFlags(['--auth', 'kerberos', '--reps', '1'], false, true);
    const passes = kmsPasses(s);
    expect(
      passes.map((p) => [p.part, p.creationAuth, p.mixes.map((m) => m.label), p.versions, p.zookeeper]),
    ).toEqual([
      [
        'kerberos',
        'spnego',
        ['100:0', '90:10'],
        ['hadoop', 'original', 'fixed'],
        { topology: 'standalone', delayMs: null },
      ],
      [
        'kerberos',
        'cookie',
        ['90:10'],
        ['hadoop', 'original', 'fixed'],
        { topology: 'standalone', delayMs: null },
      ],
    ]);
    const [spnego, cookie] = passes;
    const mix = cookie!.mixes[0]!;
    expect(caseId(spnego!, mix, 'fixed', 0)).toBe('kerberos-spnego-90-10-fixed-rep0');
    expect(comparisonKey(cookie!, mix, 'hadoop', 2)).toBe('kerberos-cookie/90:10/hadoop/rep2');
    // 3 rows × 3 versions, no trivial route; the estimate counts each case once.
    expect(kmsHttpCases(s)).toBe(9);
    expect(estimateKmsHttpMs(s)).toBe(3 * kmsCaseMs(s, 'hadoop') + 6 * kmsCaseMs(s, 'fixed'));
    // The cookie alone runs every mix; a run of 100:0 alone has no cookie pass to run.
    expect(kmsPasses({ ...s, creationAuth: ['cookie'] }).map((p) => p.mixes.length)).toEqual([2]);
    const verifyOnly = parseKmsHttpFlags(['--auth', 'kerberos', '--mixes', '100:0'], false);
    expect(kmsPasses(verifyOnly).map((p) => p.creationAuth)).toEqual(['spnego']);
  });

  it('keeps simple-authentication passes simple', () => {
    const passes = kmsPasses(parseKmsHttpFlags([], false, true));
    expect(new Set(passes.map((p) => p.creationAuth))).toEqual(new Set(['simple']));
  });
});

const c = (version: CaseFigures['version'], mix: string, rep: number, throughput: number): CaseFigures => ({
  version,
  mix,
  rep,
  throughput,
  verifyP99Ms: 1,
  createP99Ms: 2,
  errors: 0,
});

describe('zookeeperGoals', () => {
  it('reads the quorum goal at 90:10 and the sweep goal at 2 ms, not measured when absent', () => {
    const rows = zookeeperRows(
      [c('original', '90:10', 0, 1000), c('fixed', '90:10', 0, 2500), c('original', '100:0', 0, 9000)],
      [
        c('original', delayRow(2), 0, 300),
        c('fixed', delayRow(2), 0, 1000),
        c('original', delayRow(0.5), 0, 800),
        c('fixed', delayRow(0.5), 0, 2000),
      ],
    );
    expect(rows.sweep.map((r) => r.mix)).toEqual(['0.5 ms', '2 ms']);
    expect(zookeeperGoals(rows)).toEqual([
      { goal: '3-node ensemble, 90:10: fixed/original ≥ 2×', measured: '2.50×', met: true },
      { goal: 'Sweep at 2 ms: fixed/original ≥ 4×', measured: '3.33×', met: false },
    ]);
    expect(zookeeperGoals(zookeeperRows([], [])).map((g) => g.met)).toEqual([null, null]);
  });
});
