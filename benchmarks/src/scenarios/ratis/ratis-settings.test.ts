import { BenchmarkUsageError } from '../../harness/index.js';
import {
  DEFAULT_RATIS_SETTINGS,
  parseRatisFlags,
  QUICK_RATIS_SETTINGS,
  windowFor,
} from './ratis-settings.js';

describe('parseRatisFlags', () => {
  it('gives the defaults, and fewer rounds and writes with --quick', () => {
    expect(parseRatisFlags([], false)).toEqual(DEFAULT_RATIS_SETTINGS);
    expect(parseRatisFlags([], true)).toEqual({ ...DEFAULT_RATIS_SETTINGS, ...QUICK_RATIS_SETTINGS });
  });

  it('lets flags override --quick, scaling every size’s writes', () => {
    expect(
      parseRatisFlags(['--rounds', '7', '--writes-scale=50', '--sizes', '4MiB,1KiB'], true),
    ).toMatchObject({
      rounds: 7,
      sizes: ['4MiB', '1KiB'],
      writes: { '1KiB': 200, '64KiB': 50, '4MiB': 4 },
    });
    expect(parseRatisFlags(['--writes-scale', '1'], true).writes['4MiB']).toBe(1); // never 0
    expect(parseRatisFlags(['--profile'], false).profile).toBe(true);
  });

  it('rejects unknown flags, sizes and out-of-range numbers', () => {
    expect(() => parseRatisFlags(['--threads', '4'], false)).toThrow(BenchmarkUsageError);
    expect(() => parseRatisFlags(['--sizes', '2MiB'], false)).toThrow(/unknown item "2MiB"/);
    expect(() => parseRatisFlags(['--window', '0'], false)).toThrow(/--window must be an integer from 1/);
    expect(() => parseRatisFlags(['--peer-heap-mb', '64'], false)).toThrow(/--peer-heap-mb/);
  });
});

describe('windowFor', () => {
  it('keeps the window until the writes outstanding would pass the byte cap', () => {
    const s = { window: 32, maxOutstandingMiB: 32 };
    expect(windowFor(s, 1024)).toBe(32);
    expect(windowFor(s, 64 * 1024)).toBe(32);
    expect(windowFor(s, 4 * 1024 * 1024)).toBe(8);
    expect(windowFor({ window: 32, maxOutstandingMiB: 1 }, 4 * 1024 * 1024)).toBe(1); // at least one
  });
});
