import { resolve } from 'node:path';
import { checkRepository } from '../src/index.js';

// The checks run over this very repository: a forbidden edge, a deep import, a cycle or an
// undocumented error code anywhere fails the test command.
const root = resolve(__dirname, '../../..');
const report = checkRepository(root);

describe('this repository', () => {
  it('scans the workspace', () => {
    expect(report.filesScanned).toBeGreaterThan(10);
  });

  it('keeps to the design: no forbidden edge, no deep import, no cycle', () => {
    expect(report.violations.map((v) => `${v.rule}: ${v.message}`)).toEqual([]);
  });

  it('documents every error code in docs/errors.md, and nothing stale', () => {
    expect(report.catalogue.missing.map((m) => `${m.code} (${m.files.join(', ')})`)).toEqual([]);
    expect(report.catalogue.stale).toEqual([]);
  });

  it('throws no bare FastpathError outside core: every error is a subclass of its code family', () => {
    expect(report.bareErrors.map((s) => `${s.file}:${s.line}`)).toEqual([]);
  });

  it("states in docs/errors.md the HTTP status and retriable flag of kms-server's table", () => {
    expect(report.httpColumns).toEqual([]);
  });

  it('states in docs/errors.md the retriable flag every error class gives its code', () => {
    expect(report.retriableColumn).toEqual([]);
  });

  it('declares every package it imports where it imports it, and nothing it never imports', () => {
    expect(report.dependencies.map((d) => `${d.rule}: ${d.message}`)).toEqual([]);
  });
});
