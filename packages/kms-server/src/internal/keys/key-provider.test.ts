import { expect } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock, Redacted } from '@fastpath/core';
import { FileKeyStore } from '../keystore/file-key-store.js';
import { decryptDek } from './eek-crypto.js';
import { KeyProvider } from './key-provider.js';

let dir: string;
let store: FileKeyStore;
let keys: KeyProvider;
const clock = new ManualClock(1_700_000_000_000);

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kms-keys-'));
  store = await FileKeyStore.open({
    file: join(dir, 'kms.keystore'),
    password: new Redacted(Buffer.from('pw')),
    scrypt: { logN: 10, r: 8, p: 1 },
  });
  keys = new KeyProvider(store, { clock });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const mat = (v: { material: Redacted<Buffer> | null }): Buffer => (v.material as Redacted<Buffer>).unwrap();

describe('KeyProvider', () => {
  it('creates name@0 with random material of the default 128 bits and records the metadata', async () => {
    const v0 = await keys.createKey('k1', { description: 'l1', attributes: { a: 'b' } });
    expect(v0.versionName).toBe('k1@0');
    expect(mat(v0)).toHaveLength(16);
    expect(keys.getMetadata('k1')).toEqual({
      name: 'k1',
      cipher: 'AES/CTR/NoPadding',
      length: 128,
      description: 'l1',
      attributes: { a: 'b' },
      created: 1_700_000_000_000,
      versions: 1,
    });
    const other = await keys.createKey('k2', { bitLength: 256 });
    expect(mat(other)).toHaveLength(32);
    expect(mat(other).subarray(0, 16).equals(mat(v0))).toBe(false);
    expect(keys.getKeyNames().sort()).toEqual(['k1', 'k2']);
  });

  it('rolls versions and looks them up by name@N', async () => {
    const v0 = await keys.createKey('k1');
    const v1 = await keys.rollNewVersion('k1');
    expect(v1.versionName).toBe('k1@1');
    expect(mat(v1).equals(mat(v0))).toBe(false);
    expect(keys.getCurrentKey('k1')?.versionName).toBe('k1@1');
    expect(keys.getKeyVersions('k1')?.map((v) => v.versionName)).toEqual(['k1@0', 'k1@1']);
    expect(mat(keys.getKeyVersion('k1@0') as never).equals(mat(v0))).toBe(true);
    for (const missing of ['k1@2', 'k1@01', 'k1@-1', 'k1', 'k9@0', '@0', 'k1@']) {
      expect(keys.getKeyVersion(missing)).toBeUndefined();
    }
    const given = new Redacted(Buffer.alloc(16, 7));
    expect(mat(await keys.rollNewVersion('k1', given)).equals(Buffer.alloc(16, 7))).toBe(true);
    expect(keys.getMetadata('k1')?.versions).toBe(3);
  });

  it('finds names containing @ by the last @', async () => {
    await keys.createKey('a@b');
    expect(keys.getKeyVersion('a@b@0')?.name).toBe('a@b');
  });

  it('refuses bad ciphers, lengths and material with Hadoop-like messages', async () => {
    await expect(keys.createKey('x', { cipher: 'DES/CBC/NoPadding' })).rejects.toMatchObject({
      code: 'ERR_KMS_UNSUPPORTED_CIPHER',
    });
    await expect(keys.createKey('x', { bitLength: 100 })).rejects.toMatchObject({
      code: 'ERR_KMS_INVALID_KEY_MATERIAL',
    });
    await expect(keys.createKey('x', { material: new Redacted(Buffer.alloc(8)) })).rejects.toMatchObject({
      code: 'ERR_KMS_INVALID_KEY_MATERIAL',
      message: 'Wrong key length. Required 128, but got 64',
    });
    await keys.createKey('x');
    await expect(keys.createKey('x')).rejects.toMatchObject({ code: 'ERR_KMS_KEY_EXISTS' });
    await expect(keys.rollNewVersion('x', new Redacted(Buffer.alloc(32)))).rejects.toMatchObject({
      message: 'Wrong key length. Required 128, but got 256',
    });
    await expect(keys.rollNewVersion('nope')).rejects.toMatchObject({
      code: 'ERR_KMS_KEY_NOT_FOUND',
      message: 'Key nope not found',
    });
    await expect(keys.deleteKey('nope')).rejects.toMatchObject({ code: 'ERR_KMS_KEY_NOT_FOUND' });
  });

  it('generates EEKs whose DEK has the key length, decrypts them deterministically', async () => {
    const v0 = await keys.createKey('k1', { bitLength: 256 });
    const eek = keys.generateEncryptedKey('k1');
    expect(eek.encryptionKeyVersionName).toBe('k1@0');
    expect(eek.iv).toHaveLength(16);
    expect(eek.encryptedKey).toHaveLength(32);
    const dek = keys.decryptEncryptedKey(eek);
    expect(dek.versionName).toBe('EK');
    expect(dek.name).toBe('k1');
    expect(mat(dek)).toHaveLength(32);
    expect(decryptDek(mat(v0), eek.iv, eek.encryptedKey).equals(mat(dek))).toBe(true);
    expect(mat(keys.decryptEncryptedKey(eek)).equals(mat(dek))).toBe(true);
    const other = keys.generateEncryptedKey('k1');
    expect(mat(keys.decryptEncryptedKey(other)).equals(mat(dek))).toBe(false);
    expect(() => keys.generateEncryptedKey('nope')).toThrow(
      expect.objectContaining({ code: 'ERR_KMS_KEY_NOT_FOUND' }),
    );
  });

  it('re-encrypts to the current version with the same IV and DEK; batch skips current ones', async () => {
    await keys.createKey('k1');
    const old = keys.generateEncryptedKey('k1');
    await keys.rollNewVersion('k1');
    const re = keys.reencryptEncryptedKey(old);
    expect(re.encryptionKeyVersionName).toBe('k1@1');
    expect(re.iv.equals(old.iv)).toBe(true);
    expect(re.keyName).toBe('k1');
    expect(re.encryptedKey.equals(old.encryptedKey)).toBe(false);
    expect(mat(keys.decryptEncryptedKey(re)).equals(mat(keys.decryptEncryptedKey(old)))).toBe(true);
    const current = keys.generateEncryptedKey('k1');
    const batch = keys.reencryptEncryptedKeys('k1', [old, current, old]);
    expect(batch.map((e) => e.encryptionKeyVersionName)).toEqual(['k1@1', 'k1@1', 'k1@1']);
    expect(batch[1]).toBe(current);
    await keys.createKey('k2');
    expect(() => keys.reencryptEncryptedKeys('k2', [old])).toThrow(/All keys must have the same key name/);
  });

  it("refuses EEKs of unknown versions or of another key with Hadoop's messages", async () => {
    await keys.createKey('k1');
    await keys.createKey('k2');
    const eek = keys.generateEncryptedKey('k1');
    expect(() => keys.decryptEncryptedKey({ ...eek, keyName: 'k2' })).toThrow(
      "KeyVersion 'k1@0' does not belong to the key 'k2'",
    );
    expect(() => keys.decryptEncryptedKey({ ...eek, encryptionKeyVersionName: 'k1@5' })).toThrow(
      "'k1@5' not found",
    );
    expect(() => keys.decryptEncryptedKey({ ...eek, iv: Buffer.alloc(8) })).toThrow(/'iv' must be 16 bytes/);
    await keys.deleteKey('k1');
    expect(() => keys.decryptEncryptedKey(eek)).toThrow("'k1@0' not found");
    expect(keys.getMetadata('k1')).toBeUndefined();
    // A key created again after a delete starts at version 0 with new material.
    await keys.createKey('k1');
    expect(keys.getCurrentKey('k1')?.versionName).toBe('k1@0');
  });
});
