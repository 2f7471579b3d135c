import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redacted } from '@fastpath/core';
import { GENERATED_PASSWORD_FILE, resolveKeystorePassword } from './keystore-password.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kms-password-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('resolveKeystorePassword', () => {
  it('generates an owner-only random password file once and reuses it', async () => {
    const dataDir = join(dir, 'data');
    const keystoreFile = join(dataDir, 'kms.keystore');
    const first = await resolveKeystorePassword({ dataDir, keystoreFile });
    expect(first.source).toBe('generated');
    expect(first.file).toBe(join(dataDir, GENERATED_PASSWORD_FILE));
    expect(statSync(first.file as string).mode & 0o777).toBe(0o600);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    const secret = first.password.unwrap().toString();
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(String(first.password)).toBe('<redacted>');
    const second = await resolveKeystorePassword({ dataDir, keystoreFile });
    expect(second.source).toBe('generated-file');
    expect(second.password.unwrap().toString()).toBe(secret);
    expect(second.warning).toBeUndefined();
    chmodSync(first.file as string, 0o644);
    expect((await resolveKeystorePassword({ dataDir, keystoreFile })).warning).toMatch(/chmod 600/);
    // Two generated passwords differ.
    const other = await resolveKeystorePassword({
      dataDir: join(dir, 'other'),
      keystoreFile: join(dir, 'other', 'k'),
    });
    expect(other.password.unwrap().toString()).not.toBe(secret);
  });

  it('prefers a given password, then the password file (one trailing newline dropped)', async () => {
    const passwordFile = join(dir, 'pw');
    writeFileSync(passwordFile, 's3cret\r\n');
    const fromFile = await resolveKeystorePassword({
      passwordFile,
      dataDir: dir,
      keystoreFile: join(dir, 'k'),
    });
    expect(fromFile.password.unwrap().toString()).toBe('s3cret');
    const given = await resolveKeystorePassword({
      password: new Redacted('direct'),
      passwordFile,
      dataDir: dir,
      keystoreFile: join(dir, 'k'),
    });
    expect(given.password.unwrap().toString()).toBe('direct');
    writeFileSync(passwordFile, '\n');
    await expect(
      resolveKeystorePassword({ passwordFile, dataDir: dir, keystoreFile: join(dir, 'k') }),
    ).rejects.toMatchObject({
      code: 'ERR_KMS_CONFIG',
      property: 'fastpath.kms.keystore.password.file',
    });
    await expect(
      resolveKeystorePassword({ password: new Redacted(''), dataDir: dir, keystoreFile: join(dir, 'k') }),
    ).rejects.toMatchObject({ code: 'ERR_KMS_CONFIG' });
  });

  it('refuses to invent a password for an existing keystore', async () => {
    const keystoreFile = join(dir, 'kms.keystore');
    writeFileSync(keystoreFile, 'x');
    await expect(resolveKeystorePassword({ dataDir: dir, keystoreFile })).rejects.toMatchObject({
      code: 'ERR_KMS_KEYSTORE_PASSWORD',
    });
    expect(() => readFileSync(join(dir, GENERATED_PASSWORD_FILE))).toThrow();
  });
});
