import { aggregateCases, type CaseFigures } from './aggregate-cases.js';
import { versionOrder } from './kms-versions.js';

const c = (
  version: CaseFigures['version'],
  mix: string,
  rep: number,
  throughput: number,
  verifyP99Ms = 1,
): CaseFigures => ({
  version,
  mix,
  rep,
  throughput,
  verifyP99Ms,
  createP99Ms: mix === '100:0' ? null : 2,
  errors: 0,
});

describe('aggregateCases', () => {
  it('takes medians per version and pairs ratios by repetition', () => {
    const cases = [
      c('original', '90:10', 0, 10_000, 5),
      c('original', '90:10', 1, 12_000, 7),
      c('original', '90:10', 2, 11_000, 6),
      c('fixed', '90:10', 0, 20_000, 2),
      c('fixed', '90:10', 1, 18_000, 3),
      c('fixed', '90:10', 2, 22_000, 1),
      c('original', '100:0', 0, 30_000),
      c('fixed', '100:0', 0, 29_000),
    ];
    const [row90, row100] = aggregateCases(cases, ['90:10', '100:0']);
    expect(row90?.throughput.original).toMatchObject({ median: 11_000, min: 10_000, max: 12_000 });
    expect(row90?.throughput.fixed).toMatchObject({ median: 20_000, min: 18_000, max: 22_000 });
    expect(row90?.verifyP99Ms.original?.median).toBe(6);
    expect(row90?.fixedOverOriginal?.ratio).toBeCloseTo(20_000 / 11_000, 6);
    // Per-rep ratios: 2.0, 1.5, 2.0
    expect(row90?.fixedOverOriginal?.min).toBeCloseTo(1.5, 6);
    expect(row90?.fixedOverOriginal?.max).toBeCloseTo(2.0, 6);
    expect(row90?.coalescedOverOriginal).toBeNull();
    expect(row100?.createP99Ms).toEqual({});
    expect(row100?.fixedOverOriginal?.ratio).toBeCloseTo(29 / 30, 6);
  });

  it("sets each fastpath version against Hadoop's KMS, paired by repetition", () => {
    const cases = [
      c('hadoop', '90:10', 0, 4_000),
      c('hadoop', '90:10', 1, 5_000),
      c('original', '90:10', 0, 8_000),
      c('original', '90:10', 1, 5_000),
      c('fixed', '90:10', 0, 12_000),
      c('fixed', '90:10', 1, 10_000),
      c('fixed', '100:0', 0, 20_000),
    ];
    const [row90, row100] = aggregateCases(cases, ['90:10', '100:0']);
    expect(row90?.throughput.hadoop).toMatchObject({ median: 4_500, min: 4_000, max: 5_000 });
    // Per-rep ratios original/hadoop: 2.0 and 1.0; fixed/hadoop: 3.0 and 2.0.
    expect(row90?.overHadoop.original).toMatchObject({ min: 1, max: 2 });
    expect(row90?.overHadoop.fixed?.ratio).toBeCloseTo(11_000 / 4_500, 6);
    expect(row90?.overHadoop.fixed).toMatchObject({ min: 2, max: 3 });
    expect(row90?.overHadoop.coalesced).toBeUndefined();
    // Without a Hadoop case in the mix there is nothing to set against.
    expect(row100?.overHadoop).toEqual({});
  });

  it('adds up errors per mix', () => {
    const cases = [
      { ...c('original', '95:5', 0, 1), errors: 2 },
      { ...c('fixed', '95:5', 0, 1), errors: 3 },
    ];
    expect(aggregateCases(cases, ['95:5'])[0]?.errors).toBe(5);
  });
});

describe('versionOrder', () => {
  it('alternates original and fixed across repetitions, coalesced last', () => {
    expect(versionOrder(0, ['original', 'fixed', 'coalesced'])).toEqual(['original', 'fixed', 'coalesced']);
    expect(versionOrder(1, ['original', 'fixed', 'coalesced'])).toEqual(['fixed', 'original', 'coalesced']);
    expect(versionOrder(2, ['original', 'fixed'])).toEqual(['original', 'fixed']);
  });

  it("runs Hadoop's KMS first in every repetition", () => {
    const all = ['hadoop', 'original', 'fixed', 'coalesced'] as const;
    expect(versionOrder(0, all)).toEqual(['hadoop', 'original', 'fixed', 'coalesced']);
    expect(versionOrder(1, all)).toEqual(['hadoop', 'fixed', 'original', 'coalesced']);
    expect(versionOrder(1, ['coalesced', 'hadoop'])).toEqual(['hadoop', 'coalesced']);
  });
});
