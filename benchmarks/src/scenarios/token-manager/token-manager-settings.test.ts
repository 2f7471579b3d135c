import { parseTokenManagerFlags } from './token-manager-settings.js';
import { BenchmarkUsageError } from '../../harness/benchmark-errors.js';

describe('parseTokenManagerFlags', () => {
  it('defaults to the source mixes, three modes and three repetitions', () => {
    const s = parseTokenManagerFlags([], false);
    expect(s.mixes.map((m) => m.label)).toEqual(['100:0', '99:1', '95:5', '90:10']);
    expect(s.modes).toEqual(['global', 'staged', 'coalesced']);
    expect(s).toMatchObject({
      reps: 3,
      warmupMs: 2000,
      measureMs: 5000,
      concurrency: 32,
      seqNumBatchSize: 100,
    });
  });

  it('shortens everything with --quick and reads flags in seconds', () => {
    expect(parseTokenManagerFlags([], true)).toMatchObject({ reps: 1, warmupMs: 300, measureMs: 1000 });
    const s = parseTokenManagerFlags(
      ['--warmup', '0.5', '--measure', '2', '--mixes', '90:10', '--modes', 'global,staged'],
      false,
    );
    expect(s).toMatchObject({ warmupMs: 500, measureMs: 2000, modes: ['global', 'staged'] });
    expect(s.mixes.map((m) => m.label)).toEqual(['90:10']);
  });

  it('refuses bad values and unknown flags with a usage error', () => {
    for (const args of [
      ['--mixes', '90:20'],
      ['--modes', 'fast'],
      ['--reps', '0'],
      ['--bogus', '1'],
    ]) {
      expect(() => parseTokenManagerFlags(args, false)).toThrow(BenchmarkUsageError);
    }
  });
});
