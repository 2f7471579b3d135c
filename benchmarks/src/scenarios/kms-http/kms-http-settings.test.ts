import { evaluateGoals } from './kms-http-report.js';
import { BenchmarkUsageError } from '../../harness/benchmark-errors.js';
import { aggregateCases, type CaseFigures } from './aggregate-cases.js';
import { parseKmsHttpFlags } from './kms-http-settings.js';

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
  ): CaseFigures => ({
    version,
    mix,
    rep: 0,
    throughput,
    verifyP99Ms,
    createP99Ms: null,
    errors: 0,
  });

  it('reads each goal from the rows and says whether it is met', () => {
    const rows = aggregateCases(
      [
        c('original', '100:0', 20_000, 1),
        c('fixed', '100:0', 19_800, 1),
        c('original', '90:10', 10_000, 9),
        c('fixed', '90:10', 18_000, 1.2),
        c('coalesced', '90:10', 19_000, 1.1),
      ],
      ['100:0', '95:5', '90:10'],
    );
    const goals = evaluateGoals(rows, [{ rep: 0, requestsPerSec: 30_000, p99Ms: 1, errors: 0 }]);
    expect(goals.map((g) => g.met)).toEqual([true, null, true, false, true, true]);
    expect(goals[0]?.measured).toBe('1.80×');
    expect(goals[3]?.measured).toBe('1.90×');
  });
});
