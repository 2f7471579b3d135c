import { checkInteger, checkNonEmptyString, checkNumber, checkOneOf } from './option-checks.js';
import { expectError } from '@fastpath/test-support';
import { FastpathError } from './fastpath-error.js';

describe('option checks', () => {
  it('accept good values and name the field in errors', () => {
    expect(checkInteger('batchSize', 100, 1)).toBe(100);
    expect(checkNumber('ratio', 0.5, 0, 1)).toBe(0.5);
    expect(checkOneOf('mode', 'staged', ['staged', 'global'])).toBe('staged');
    expect(checkNonEmptyString('path', 'zkdtsm')).toBe('zkdtsm');
    for (const bad of [
      () => checkInteger('batchSize', 0, 1),
      () => checkInteger('batchSize', 1.5),
      () => checkInteger('batchSize', '7'),
      () => checkNumber('ratio', Number.NaN),
      () => checkOneOf('mode', 'fast', ['staged', 'global']),
      () => checkNonEmptyString('path', ''),
    ]) {
      expectError(bad, FastpathError, { code: 'ERR_INVALID_OPTION' });
    }
    expect(() => checkInteger('batchSize', 0, 1)).toThrow(/invalid option "batchSize"/);
  });
});
