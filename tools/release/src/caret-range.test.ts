import { isCaretRangeFor } from './caret-range.js';

describe('isCaretRangeFor', () => {
  it('accepts a caret range the version satisfies, with 0.x ranges bounded by the minor', () => {
    expect(isCaretRangeFor('^0.2.0', '0.2.0')).toBe(true);
    expect(isCaretRangeFor('^0.2.0', '0.2.7')).toBe(true);
    expect(isCaretRangeFor('^0.2.1', '0.2.0')).toBe(false);
    expect(isCaretRangeFor('^0.2.0', '0.3.0')).toBe(false);
    expect(isCaretRangeFor('^1.2.0', '1.9.0')).toBe(true);
    expect(isCaretRangeFor('^1.2.0', '1.1.9')).toBe(false);
    expect(isCaretRangeFor('^1.2.0', '2.0.0')).toBe(false);
  });

  it('refuses exact versions and specifiers that mean nothing outside the repository', () => {
    for (const spec of ['0.2.0', '*', 'file:../core', 'workspace:*', '~0.2.0', '>=0.2.0', '^0.2']) {
      expect(isCaretRangeFor(spec, '0.2.0')).toBe(false);
    }
  });
});
