import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { KerberosUnavailableError } from '../kerberos-unavailable-error.js';
import { importKerberos } from './import-kerberos.js';

// Real module loading of packages that are broken the ways an install can be.
const scratch = mkdtempSync(join(tmpdir(), 'import-kerberos-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function fakePackage(name: string, addon: Buffer | undefined): string {
  const dir = join(scratch, name);
  mkdirSync(join(dir, 'build', 'Release'), { recursive: true });
  writeFileSync(join(dir, 'index.js'), "module.exports = require('./build/Release/kerberos.node');\n");
  if (addon !== undefined) writeFileSync(join(dir, 'build', 'Release', 'kerberos.node'), addon);
  return join(dir, 'index.js');
}

async function failure(specifier: string): Promise<KerberosUnavailableError> {
  const err = await importKerberos(specifier).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(KerberosUnavailableError);
  return err as KerberosUnavailableError;
}

describe('importKerberos', () => {
  it('says to install the package when it is not there', async () => {
    const err = await failure('fastpath-no-such-kerberos');
    expect(err).toMatchObject({ code: 'ERR_KERBEROS_UNAVAILABLE', reason: 'missing', retriable: false });
    expect(err.message).toContain('apt-get install -y libkrb5-dev');
    expect(err.message).toContain('npm install kerberos@7.0.0');
    expect(String(err.cause)).toContain('fastpath-no-such-kerberos');
  });

  it('says to build it when the native part is missing', async () => {
    const err = await failure(fakePackage('unbuilt', undefined));
    expect(err.reason).toBe('not-built');
    expect(err.message).toContain('npm rebuild kerberos');
  });

  it('says what to install when the native part does not load', async () => {
    const err = await failure(fakePackage('broken', Buffer.from('not an ELF file')));
    expect(err.reason).toBe('load-failed');
    expect(err.message).toContain('libgssapi-krb5-2');
  });

  it('refuses a module that is not the kerberos package', async () => {
    const dir = join(scratch, 'other');
    mkdirSync(dir);
    writeFileSync(join(dir, 'index.js'), 'module.exports = { version: "1" };\n');
    expect((await failure(join(dir, 'index.js'))).reason).toBe('load-failed');
  });
});
