import { clientOrder, loadFigures, nearestRank } from './load-figures.js';

describe('loadFigures', () => {
  it('turns a load into writes/s, MiB/s, p50/p99 and CPU per write', () => {
    const latenciesUs = Array.from({ length: 100 }, (_, i) => (i + 1) * 1000); // 1..100 ms
    const figures = loadFigures({ writes: 100, wallNs: 2e9, cpuNs: 5e8, latenciesUs }, 64 * 1024);
    expect(figures).toEqual({
      writesPerSec: 50,
      mibPerSec: (100 * 64) / 1024 / 2,
      p50Ms: 50,
      p99Ms: 99,
      cpuMicrosPerWrite: 5000,
    });
  });

  it('refuses a load whose latencies do not match its writes, or that took no time', () => {
    expect(() => loadFigures({ writes: 2, wallNs: 1, cpuNs: 0, latenciesUs: [1] }, 1)).toThrow(RangeError);
    expect(() => loadFigures({ writes: 1, wallNs: 0, cpuNs: 0, latenciesUs: [1] }, 1)).toThrow(RangeError);
  });
});

describe('nearestRank', () => {
  it('takes the smallest value with the quantile at or below it, whatever the order', () => {
    expect(nearestRank([5, 1, 4, 2, 3], 0.5)).toBe(3);
    expect(nearestRank([5, 1, 4, 2, 3], 0.99)).toBe(5);
    expect(nearestRank([7], 0.01)).toBe(7);
    expect(() => nearestRank([], 0.5)).toThrow(RangeError);
    expect(() => nearestRank([1], 0)).toThrow(RangeError);
  });
});

describe('clientOrder', () => {
  it('alternates which client goes first', () => {
    expect([0, 1, 2, 3].map((r) => clientOrder(r, ['java', 'fastpath'])[0])).toEqual([
      'java',
      'fastpath',
      'java',
      'fastpath',
    ]);
  });
});
