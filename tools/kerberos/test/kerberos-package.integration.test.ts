import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { missingDebianPackages } from '@fastpath/jvm-fixture';
import { ensureKerberosPackage, KERBEROS_BUILD_REQUIREMENTS } from '../src/index.js';

const REPO = join(__dirname, '..', '..', '..');

describe('ensureKerberosPackage', () => {
  let project: string;
  beforeAll(async () => {
    // A project that wants the kerberos package as this workspace does (optional, built from
    // source) but has not installed it: what npm ci leaves behind on a machine without libkrb5-dev.
    project = await mkdtemp(join(tmpdir(), 'kerberos-package-'));
    await writeFile(
      join(project, 'package.json'),
      JSON.stringify({
        name: 'consumer',
        version: '1.0.0',
        private: true,
        optionalDependencies: { kerberos: '7.0.0' },
      }),
    );
    await copyFile(join(REPO, '.prebuild-installrc'), join(project, '.prebuild-installrc'));
  });
  afterAll(async () => {
    await rm(project, { recursive: true, force: true });
  });

  it('is a no-op where the package loads (this workspace)', async () => {
    const lines: string[] = [];
    await expect(ensureKerberosPackage({ log: (l) => lines.push(l) })).resolves.toBe('present');
    expect(lines).toEqual([]);
  });

  it('builds the missing package from source and then it loads', async () => {
    expect(existsSync(join(project, 'node_modules', 'kerberos'))).toBe(false);
    const lines: string[] = [];
    await expect(ensureKerberosPackage({ root: project, log: (l) => lines.push(l) })).resolves.toBe('built');
    expect(existsSync(join(project, 'node_modules', 'kerberos', 'build', 'Release', 'kerberos.node'))).toBe(
      true,
    );
    expect(lines).toEqual([
      'kerberos package: missing or not built; installing what its build needs, then npm install',
      'kerberos package: built',
    ]);
  }, 600_000);

  it('names libkrb5-dev for the headers and the toolchain packages for the rest', () => {
    const packageOf = (missing: string[]): string[] =>
      missingDebianPackages(KERBEROS_BUILD_REQUIREMENTS, (r) =>
        'file' in r ? !missing.includes(r.file) : !missing.includes(r.command),
      );
    expect(packageOf(['/usr/include/gssapi/gssapi.h'])).toEqual(['libkrb5-dev']);
    expect(packageOf(['g++', 'make'])).toEqual(['g++', 'make']);
    expect(packageOf([])).toEqual([]);
  });
});
