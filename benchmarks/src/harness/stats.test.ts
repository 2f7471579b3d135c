import { BenchmarkInputError } from './benchmark-errors.js';
import { compareRounds, median, ratioOfMedians, summarize } from './stats.js';

describe('median', () => {
  it('takes the middle value of an odd count, whatever the order', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([7])).toBe(7);
  });

  it('takes the mean of the two middle values of an even count', () => {
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([10, 20])).toBe(15);
  });

  it('sorts numerically, not as strings', () => {
    expect(median([100, 9, 20])).toBe(20);
  });

  it('leaves its input as it was', () => {
    const values = [3, 1, 2];
    median(values);
    expect(values).toEqual([3, 1, 2]);
  });

  it('refuses no samples and non-finite samples', () => {
    expect(() => median([])).toThrow(BenchmarkInputError);
    expect(() => median([1, NaN])).toThrow(/not a finite number/);
    expect(() => median([1, Infinity])).toThrow(BenchmarkInputError);
  });
});

describe('summarize', () => {
  it('gives count, median, min, max and mean', () => {
    expect(summarize([10, 30, 20, 40])).toEqual({ count: 4, median: 25, min: 10, max: 40, mean: 25 });
  });

  it('handles one sample', () => {
    expect(summarize([5])).toEqual({ count: 1, median: 5, min: 5, max: 5, mean: 5 });
  });

  it('refuses no samples with a coded error', () => {
    expect(() => summarize([])).toThrow(BenchmarkInputError);
  });
});

describe('ratioOfMedians', () => {
  it('divides the medians, not the means', () => {
    // Means would be 40 and 10 (ratio 4); medians are 20 and 10.
    expect(ratioOfMedians([10, 20, 90], [5, 10, 15])).toBe(2);
  });

  it('refuses a zero baseline', () => {
    expect(() => ratioOfMedians([1], [0])).toThrow(/baseline median is 0/);
  });
});

describe('compareRounds', () => {
  it('reports the ratio of medians and the range of per-round ratios', () => {
    const result = compareRounds([200, 210, 190], [100, 100, 95]);
    expect(result.ratio).toBeCloseTo(2, 12);
    expect(result.min).toBeCloseTo(2, 12);
    expect(result.max).toBeCloseTo(2.1, 12);
    expect(result.rounds).toBe(3);
  });

  it('pairs rounds by position: drift shared by both cancels out', () => {
    // The machine got twice as slow in round 2 for both; per-round ratios stay 3.
    const result = compareRounds([300, 150], [100, 50]);
    expect(result).toEqual({ ratio: 3, min: 3, max: 3, rounds: 2 });
  });

  it('refuses rounds that do not pair, and zero baseline rounds', () => {
    expect(() => compareRounds([1, 2], [1])).toThrow(/2 candidate rounds but 1 baseline rounds/);
    expect(() => compareRounds([1, 2], [1, 0])).toThrow(/baseline round is 0/);
    expect(() => compareRounds([], [])).toThrow(/no samples/);
  });
});
