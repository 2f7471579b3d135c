import { codesInCatalogue } from './error-catalogue.js';

describe('codesInCatalogue', () => {
  it('reads codes from the first column of the tables only', () => {
    const md = [
      '| code | status | meaning |',
      '|---|---|---|',
      '| `ERR_TOKEN_EXPIRED` | 403 | expired |',
      '| `ERR_LOCK_TIMEOUT` | - | timed out, mentions `ERR_OTHER` |',
      'Text naming `ERR_NOT_A_ROW` is not a row.',
    ].join('\n');
    expect([...codesInCatalogue(md)]).toEqual(['ERR_TOKEN_EXPIRED', 'ERR_LOCK_TIMEOUT']);
  });
});
