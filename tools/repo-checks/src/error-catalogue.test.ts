import {
  codesInCatalogue,
  compareHttpColumns,
  httpColumnsInCatalogue,
  httpRowsInSource,
} from './error-catalogue.js';

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

describe('the HTTP column check', () => {
  const md = [
    '| code | retriable | HTTP | meaning |',
    '|---|---|---|---|',
    '| `ERR_KMS_BAD_REQUEST` | no | 400 | bad |',
    '| `ERR_KMS_CONFIG` | no | — (start refused) | config |',
    '| `ERR_KMS_TIMEOUTISH` | yes | 503 | documented only |',
    '',
    '| code | retriable | meaning |',
    '|---|---|---|',
    '| `ERR_NO_HTTP` | no | no HTTP column |',
  ].join('\n');
  const source = [
    'export const KMS_ERROR_CATALOGUE = Object.freeze({',
    '  ERR_KMS_BAD_REQUEST: { retriable: false, http: answer(404, ILLEGAL_ARGUMENT) },',
    '  ERR_KMS_CONFIG: { retriable: true, http: undefined },',
    '  ERR_KMS_LISTEN: { retriable: true, http: undefined },',
    '} as const satisfies Record<KmsErrorCode, KmsErrorRow>);',
    'export const FOREIGN_ERROR_ANSWERS = Object.freeze({',
    '  ERR_TOKEN_STORE: answer(',
    '    500, IO),',
    '} as const satisfies Record<ForeignErrorCode, KmsErrorMapping>);',
  ].join('\n');

  it('reads both sides', () => {
    expect(httpColumnsInCatalogue(md)).toEqual(
      new Map([
        ['ERR_KMS_BAD_REQUEST', { status: 400, retriable: false }],
        ['ERR_KMS_CONFIG', { status: undefined, retriable: false }],
        ['ERR_KMS_TIMEOUTISH', { status: 503, retriable: true }],
      ]),
    );
    expect(httpRowsInSource(source)).toEqual(
      new Map([
        ['ERR_KMS_BAD_REQUEST', { status: 404, retriable: false }],
        ['ERR_KMS_CONFIG', { status: undefined, retriable: true }],
        ['ERR_KMS_LISTEN', { status: undefined, retriable: true }],
        ['ERR_TOKEN_STORE', { status: 500, retriable: undefined }],
      ]),
    );
  });

  it('reports every disagreement, missing row and stray status', () => {
    expect(compareHttpColumns(httpColumnsInCatalogue(md), httpRowsInSource(source))).toEqual([
      'ERR_KMS_BAD_REQUEST: docs/errors.md says HTTP 400, the table 404',
      'ERR_KMS_CONFIG: docs/errors.md says retriable false, the table true',
      'ERR_KMS_LISTEN answers — but has no row with an HTTP column in docs/errors.md',
      'ERR_TOKEN_STORE answers 500 but has no row with an HTTP column in docs/errors.md',
      "ERR_KMS_TIMEOUTISH: docs/errors.md says HTTP 503, but kms-server's table has no row for it",
    ]);
  });
});
