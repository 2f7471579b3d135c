import { compareRetriable, retriableColumnOf, retriableSitesIn } from './error-retriable.js';

const SOURCE = [
  "import { FastpathError } from '@fastpath/core';",
  'export class LockTimeoutError extends FastpathError {',
  '  constructor(lock: string) {',
  "    super('ERR_LOCK_TIMEOUT', `timed out on ${fmt(lock)}`, {",
  '      retriable: true,',
  '    });',
  '  }',
  '}',
  'export class LockStateError extends FastpathError {',
  "  constructor(message: string) { super('ERR_LOCK_STATE', message); }",
  '}',
  'export class StoreError extends FastpathError {',
  "  constructor(retriable: boolean) { super('ERR_STORE', 'x', { retriable }); }",
  '}',
  'export class KmsUnavailableError extends KmsError {',
  "  constructor(d: Details) { super('ERR_KMS_UNAVAILABLE', 'unavailable', d, true); }",
  '}',
  'export class KmsBadRequestError extends KmsError {',
  "  constructor(d: Details) { super('ERR_KMS_BAD_REQUEST', 'bad request', d); }",
  '}',
].join('\n');

describe('retriableSitesIn', () => {
  it('reads literal flags and the base class default, and skips what only run time decides', () => {
    expect(retriableSitesIn('a.ts', SOURCE)).toEqual([
      { code: 'ERR_LOCK_TIMEOUT', file: 'a.ts', line: 4, retriable: true },
      { code: 'ERR_LOCK_STATE', file: 'a.ts', line: 10, retriable: false },
      // ERR_STORE passes a variable; ERR_KMS_BAD_REQUEST leaves it to its family's signature.
      { code: 'ERR_KMS_UNAVAILABLE', file: 'a.ts', line: 16, retriable: true },
    ]);
  });
});

describe('compareRetriable', () => {
  const md = [
    '| code | retriable | meaning |',
    '| --- | --- | --- |',
    '| `ERR_LOCK_TIMEOUT` | no | x |',
    '| `ERR_LOCK_STATE` | no | x |',
    '',
    '| code | HTTP | meaning |',
    '| `ERR_KMS_UNAVAILABLE` | 503 | no retriable column here |',
  ].join('\n');

  it('reads the retriable column of every table that has one', () => {
    expect(retriableColumnOf(md)).toEqual(
      new Map([
        ['ERR_LOCK_TIMEOUT', false],
        ['ERR_LOCK_STATE', false],
      ]),
    );
  });

  it('names each construction that disagrees with the column', () => {
    expect(compareRetriable(retriableSitesIn('a.ts', SOURCE), retriableColumnOf(md))).toEqual([
      'ERR_LOCK_TIMEOUT: docs/errors.md says retriable no, a.ts:4 constructs it retriable yes',
    ]);
  });
});
