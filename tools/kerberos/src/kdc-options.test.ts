import { describe, expect, it } from '@jest/globals';
import { InvalidOptionError } from '@fastpath/core';
import { expectError } from '@fastpath/test-support';
import { DEFAULT_KDC_OPTIONS, resolveKdcOptions } from './kdc-options.js';

describe('resolveKdcOptions', () => {
  it('fills the defaults', () => {
    expect(resolveKdcOptions()).toEqual(DEFAULT_KDC_OPTIONS);
  });

  it.each([
    [{ realm: 'example.com' }, 'realm'],
    [{ realm: 'EXAMPLE COM' }, 'realm'],
    [{ realm: '' }, 'realm'],
    [{ clockSkewSeconds: 1.5 }, 'clockSkewSeconds'],
    [{ maxTicketLifetimeSeconds: 0 }, 'maxTicketLifetimeSeconds'],
    [{ startTimeoutMs: -1 }, 'startTimeoutMs'],
    [{ installIfMissing: 'yes' as unknown as boolean }, 'installIfMissing'],
  ])('refuses %j naming %s', (options, option) => {
    expect(expectError(() => resolveKdcOptions(options), InvalidOptionError).option).toBe(option);
  });
});
