import {
  formatClock,
  formatMs,
  formatRatio,
  formatRatioWithRange,
  formatSi,
  formatSiRange,
  formatSignificant,
  formatSiWithRange,
} from './format.js';

describe('number formatting', () => {
  it('keeps three significant digits without an exponent', () => {
    expect(formatSignificant(12.345)).toBe('12.3');
    expect(formatSignificant(0.01234)).toBe('0.0123');
    expect(formatSignificant(1234)).toBe('1234');
    expect(formatSignificant(0)).toBe('0');
    expect(formatSignificant(0.99996)).toBe('1.00');
    expect(formatSignificant(999.7)).toBe('1000');
  });

  it('uses SI prefixes', () => {
    expect(formatSi(950)).toBe('950');
    expect(formatSi(12_345)).toBe('12.3 k');
    expect(formatSi(12_345_678)).toBe('12.3 M');
    expect(formatSi(999_999)).toBe('1.00 M');
    expect(formatSi(2.5e9)).toBe('2.50 G');
  });

  it('writes a shared prefix of a range once', () => {
    expect(formatSiRange(9_800_000, 11_200_000)).toBe('9.80–11.2 M');
    expect(formatSiRange(721_000, 2_230_000)).toBe('721 k–2.23 M');
    expect(formatSiWithRange(1e6, 9e5, 1.1e6)).toBe('1.00 M (900 k–1.10 M)');
  });

  it('formats ratios', () => {
    expect(formatRatio(2.345)).toBe('2.35×');
    expect(formatRatioWithRange(1.5, 1.25, 1.75)).toBe('1.50× (1.25–1.75)');
  });

  it('formats clock durations and latencies', () => {
    expect(formatClock(7_000)).toBe('0:07');
    expect(formatClock(723_000)).toBe('12:03');
    expect(formatClock(3_723_000)).toBe('1:02:03');
    expect(formatClock(-1)).toBe('?');
    expect(formatClock(NaN)).toBe('?');
    expect(formatMs(0.85)).toBe('850 µs');
    expect(formatMs(12.34)).toBe('12.3 ms');
    expect(formatMs(1200)).toBe('1.20 s');
  });
});
