import { evaluateGoals } from './kms-http-report.js';
import { BenchmarkUsageError } from '../../harness/benchmark-errors.js';
import { aggregateCases, type CaseFigures } from './aggregate-cases.js';
import { parseKmsHttpFlags, parseKmsHttpKerberosFlags } from './kms-http-settings.js';

describe('parseKmsHttpFlags', () => {
  it('defaults to the source document: 5 s + 15 s, 3 reps, 32 in flight, 4 mixes, all versions', () => {
    const s = parseKmsHttpFlags([], false);
    expect(s).toMatchObject({
      warmupMs: 5000,
      measureMs: 15000,
      reps: 3,
      concurrency: 32,
      workers: 1,
      seqNumBatchSize: 100,
    });
    expect(s.mixes.map((m) => m.label)).toEqual(['100:0', '99:1', '95:5', '90:10']);
    expect(s.versions).toEqual(['original', 'fixed', 'coalesced']);
    expect(s.jvmWarmupMs).toBe(20_000);
    expect(s.zkWarmupMs).toBe(20_000);
    expect(parseKmsHttpFlags([], true).zkWarmupMs).toBe(5000);
    expect(parseKmsHttpFlags(['--zk-warmup', '0'], false).zkWarmupMs).toBe(0);
  });

  it('reads --auth and --creation-auth; Kerberos runs 100:0 and 90:10, Hadoop, original and fixed, both creation passes', () => {
    expect(parseKmsHttpFlags([], true)).toMatchObject({ auth: 'simple', baseline: true });
    const kerberos = parseKmsHttpFlags(['--auth', 'kerberos'], true);
    expect(kerberos).toMatchObject({
      auth: 'kerberos',
      creationAuth: ['spnego', 'cookie'],
      versions: ['hadoop', 'original', 'fixed'],
      // No figure of the Kerberos table reads the trivial route.
      baseline: false,
    });
    expect(kerberos.mixes.map((m) => m.label)).toEqual(['100:0', '90:10']);
    expect(parseKmsHttpFlags(['--auth', 'kerberos', '--creation-auth', 'cookie'], true).creationAuth).toEqual(
      ['cookie'],
    );
    expect(
      parseKmsHttpFlags(['--auth', 'kerberos', '--mixes', '95:5'], true).mixes.map((m) => m.label),
    ).toEqual(['95:5']);
    expect(parseKmsHttpFlags(['--auth', 'kerberos', '--versions', 'fixed'], true).versions).toEqual([
      'fixed',
    ]);
    for (const args of [
      ['--auth', 'digest'],
      ['--auth', 'kerberos', '--creation-auth', 'ntlm'],
      // A simple run has no creation passes; a Kerberos run no ZooKeeper passes.
      ['--creation-auth', 'cookie'],
      ['--auth', 'kerberos', '--zookeeper', 'ensemble'],
      ['--auth', 'kerberos', '--quorum-mixes', '90:10'],
      ['--auth', 'kerberos', '--zk-delay-ms', '2'],
    ])
      expect(() => parseKmsHttpFlags(args, true)).toThrow(BenchmarkUsageError);
    // In all, a Kerberos run gets neither the quorum pass nor the sweep.
    expect(parseKmsHttpFlags(['--auth', 'kerberos'], false, true).zookeeper).toMatchObject({
      quorumMixes: [],
      sweepDelaysMs: [],
    });
  });

  it('--profile-fleet: off by default, on with the fleet cases only (Kerberos, 2 or 3 instances), in kms-http-kerberos too', () => {
    expect(parseKmsHttpFlags([], true).profileFleet).toBe(false);
    expect(parseKmsHttpFlags(['--auth', 'kerberos', '--instances', '3'], true).profileFleet).toBe(false);
    expect(
      parseKmsHttpFlags(['--auth', 'kerberos', '--instances', '2', '--profile-fleet'], true),
    ).toMatchObject({
      profileFleet: true,
      instances: 2,
    });
    expect(parseKmsHttpKerberosFlags(['--instances', '3', '--profile-fleet'], false).profileFleet).toBe(true);
    for (const args of [
      ['--profile-fleet'],
      ['--auth', 'kerberos', '--profile-fleet'],
      ['--auth', 'kerberos', '--instances', '1', '--profile-fleet'],
    ])
      expect(() => parseKmsHttpFlags(args, true)).toThrow(/--profile-fleet profiles the fleet cases/);
    expect(() =>
      parseKmsHttpFlags(['--auth', 'kerberos', '--instances', '2', '--profile-fleet', 'yes'], true),
    ).toThrow(BenchmarkUsageError);
  });

  it('parses kms-http-kerberos as kms-http --auth kerberos, without the flags that do not apply', () => {
    expect(parseKmsHttpKerberosFlags(['--reps', '2'], false, true)).toEqual(
      parseKmsHttpFlags(['--auth', 'kerberos', '--reps', '2'], false, true),
    );
    for (const args of [
      ['--auth', 'simple'],
      ['--zk-delay-ms', '2'],
      ['--zookeeper', 'standalone'],
    ])
      expect(() => parseKmsHttpKerberosFlags(args, false)).toThrow(/kms-http-kerberos: unknown flag/);
  });

  it("adds Hadoop's KMS in all, keeps the report's column order, and reads --jvm-warmup", () => {
    expect(parseKmsHttpFlags([], false, true).versions).toEqual(['hadoop', 'original', 'fixed', 'coalesced']);
    expect(parseKmsHttpFlags([], true, true)).toMatchObject({
      versions: ['hadoop', 'original', 'fixed', 'coalesced'],
      jvmWarmupMs: 5000,
    });
    // --versions wins over all's default; the order given does not matter.
    const s = parseKmsHttpFlags(
      ['--versions', 'coalesced,hadoop,original', '--jvm-warmup', '30'],
      false,
      true,
    );
    expect(s.versions).toEqual(['hadoop', 'original', 'coalesced']);
    expect(s.jvmWarmupMs).toBe(30_000);
  });

  it('reads the documented flags', () => {
    const s = parseKmsHttpFlags(
      [
        '--warmup',
        '1',
        '--measure',
        '3',
        '--reps',
        '1',
        '--mixes',
        '100:0,90:10',
        '--concurrency',
        '8',
        '--workers',
        '2',
        '--no-baseline',
      ],
      false,
    );
    expect(s).toMatchObject({
      warmupMs: 1000,
      measureMs: 3000,
      reps: 1,
      concurrency: 8,
      workers: 2,
      baseline: false,
    });
    expect(s.mixes.map((m) => m.label)).toEqual(['100:0', '90:10']);
  });

  it('refuses bad input with a usage error', () => {
    for (const args of [
      ['--mixes', '50:60'],
      ['--versions', 'newest'],
      ['--measure', '0'],
      ['--output-dir', 'x'],
      ['--jvm-warmup', '-1'],
      ['--zk-warmup', 'soon'],
    ]) {
      expect(() => parseKmsHttpFlags(args, false)).toThrow(BenchmarkUsageError);
    }
  });
});

describe('evaluateGoals', () => {
  const c = (
    version: CaseFigures['version'],
    mix: string,
    throughput: number,
    verifyP99Ms: number,
    serverUsPerRequest: number | null = null,
  ): CaseFigures => ({
    version,
    mix,
    rep: 0,
    throughput,
    verifyP99Ms,
    createP99Ms: null,
    errors: 0,
    serverUsPerRequest,
  });
  const baseline = (serverUsPerRequest: number | null) => ({
    rep: 0,
    requestsPerSec: 30_000,
    p99Ms: 1,
    errors: 0,
    serverUsPerRequest,
    generatorUsPerRequest: 70,
    serverEventLoopP99Ms: 0.5,
  });

  it('reads each goal from the rows and says whether it is met', () => {
    const rows = aggregateCases(
      [
        c('original', '100:0', 20_000, 1),
        c('fixed', '100:0', 19_800, 1, 90),
        c('original', '90:10', 10_000, 9),
        c('fixed', '90:10', 18_000, 1.2),
        c('coalesced', '90:10', 19_000, 1.1),
      ],
      ['100:0', '95:5', '90:10'],
    );
    const goals = evaluateGoals(rows, [baseline(80)]);
    expect(goals.map((g) => g.met)).toEqual([true, null, true, false, true, true, true]);
    expect(goals[0]?.measured).toBe('1.80×');
    expect(goals[3]?.measured).toBe('1.90×');
    // Server CPU per verification: 90 µs against the trivial route's 80 µs is 1.125×, inside 1.15×.
    expect(goals[6]?.goal).toMatch(/CPU per verification at 100:0 ≤ 1\.15×/);
    expect(goals[6]?.measured).toBe('1.13× (90 / 80 µs)');
    // Against 75 µs it is 1.2×: missed; without a CPU reading of the trivial route, not measured.
    expect(evaluateGoals(rows, [baseline(75)])[6]?.met).toBe(false);
    expect(evaluateGoals(rows, [baseline(null)])[6]?.met).toBeNull();
  });

  it('holds fixed / original to the goals set for this machine kind: 1.6× at 90:10, 1.3× at 95:5', () => {
    const rows = aggregateCases(
      [
        c('original', '95:5', 10_000, 1),
        c('fixed', '95:5', 13_500, 1),
        c('original', '90:10', 10_000, 1),
        c('fixed', '90:10', 15_500, 1),
      ],
      ['95:5', '90:10'],
    );
    const goals = evaluateGoals(rows, []);
    expect(goals.slice(0, 2).map((g) => [g.goal, g.met])).toEqual([
      ['fixed / original at 90:10 ≥ 1.6×', false],
      ['fixed / original at 95:5 ≥ 1.3×', true],
    ]);
  });
});
