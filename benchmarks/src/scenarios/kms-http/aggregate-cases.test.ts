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
});
