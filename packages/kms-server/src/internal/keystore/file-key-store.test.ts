import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redacted } from '@fastpath/core';
import { KeystoreError } from '../../kms-errors.js';
import { FileKeyStore, createKeystore, rekeyKeystore } from './file-key-store.js';
import type { ScryptParams } from './keystore-file.js';
import type { KeyStoreCommand } from './keystore-state.js';

const FAST: ScryptParams = { logN: 10, r: 8, p: 1 };
const pw = (s: string): Redacted<Buffer> => new Redacted(Buffer.from(s));
const material = (fill: number, bytes = 16): Redacted<Buffer> => new Redacted(Buffer.alloc(bytes, fill));
const create = (name: string, fill = 1): KeyStoreCommand => ({
  op: 'create',
  name,
  cipher: 'AES/CTR/NoPadding',
  bitLength: 128,
  description: 'd',
  attributes: { 'key.acl.name': name },
  created: 1_700_000_000_000,
  material: material(fill),
});

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kms-keystore-'));
  file = join(dir, 'kms.keystore');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function openError(password: string, create = true): Promise<KeystoreError> {
  try {
    const store = await FileKeyStore.open({ file, password: pw(password), scrypt: FAST, create });
    await store.close();
  } catch (error) {
    expect(error).toBeInstanceOf(KeystoreError);
    return error as KeystoreError;
  }
  throw new Error('expected the keystore to be refused');
}

describe('FileKeyStore', () => {
  it('creates, commits and reopens the same state, with material encrypted at rest', async () => {
    // A name long enough that the ciphertext cannot hold it by chance (a 2-byte name turns up in a
    // few KiB of random bytes about one run in twenty).
    const NAME = 'a-key-name-never-seen-in-the-clear';
    const store = await FileKeyStore.open({ file, password: pw('secret'), scrypt: FAST });
    expect(store.state.generation).toBe(0);
    await store.apply(create(NAME, 0xab));
    await store.apply({ op: 'roll', name: NAME, material: material(0xcd) });
    await store.apply(create('k2', 0xef));
    await store.apply({ op: 'delete', name: 'k2' });
    await store.close();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const raw = readFileSync(file);
    expect(raw.includes(Buffer.alloc(16, 0xab))).toBe(false);
    expect(raw.includes(Buffer.from(Buffer.alloc(16, 0xab).toString('base64')))).toBe(false);
    expect(raw.includes(Buffer.from(NAME))).toBe(false);

    const again = await FileKeyStore.open({ file, password: pw('secret'), scrypt: FAST });
    expect(again.state.generation).toBe(4);
    expect([...again.state.keys.keys()]).toEqual([NAME]);
    const k1 = again.state.keys.get(NAME);
    expect(k1?.versions.map((v) => v.unwrap()[0])).toEqual([0xab, 0xcd]);
    expect(k1?.attributes).toEqual({ 'key.acl.name': NAME });
    expect(k1?.description).toBe('d');
    await again.close();
  });

  it('refuses a wrong password with ERR_KMS_KEYSTORE_PASSWORD', async () => {
    await (await FileKeyStore.open({ file, password: pw('Tr0ub4dor-good'), scrypt: FAST })).close();
    const error = await openError('hunter2-bad');
    expect(error.code).toBe('ERR_KMS_KEYSTORE_PASSWORD');
    expect(error.message).not.toContain('hunter2-bad');
    expect(error.message).not.toContain('Tr0ub4dor-good');
  });

  it('refuses a tampered body with ERR_KMS_KEYSTORE_CORRUPT, and a torn or foreign file too', async () => {
    const store = await FileKeyStore.open({ file, password: pw('pw'), scrypt: FAST });
    await store.apply(create('k1'));
    await store.close();
    const original = readFileSync(file);
    for (const at of [original.length - 1, 80, 60]) {
      const bytes = Buffer.from(original);
      bytes[at] = (bytes[at] as number) ^ 0x01;
      writeFileSync(file, bytes);
      expect((await openError('pw')).code).toBe('ERR_KMS_KEYSTORE_CORRUPT');
    }
    // A flipped byte in the authenticated header (the salt) makes the password check fail.
    const header = Buffer.from(original);
    header[15] = (header[15] as number) ^ 0x01;
    writeFileSync(file, header);
    expect((await openError('pw')).code).toBe('ERR_KMS_KEYSTORE_PASSWORD');
    writeFileSync(file, original.subarray(0, 50));
    expect((await openError('pw')).code).toBe('ERR_KMS_KEYSTORE_CORRUPT');
    writeFileSync(
      file,
      'not a keystore at all, just some text that is long enough to pass the size check........',
    );
    expect((await openError('pw')).code).toBe('ERR_KMS_KEYSTORE_CORRUPT');
    writeFileSync(file, original);
    expect((await FileKeyStore.open({ file, password: pw('pw') })).state.keys.size).toBe(1);
  });

  it('refuses to create an existing key, and to roll or delete a missing one, leaving the file unchanged', async () => {
    const store = await FileKeyStore.open({ file, password: pw('pw'), scrypt: FAST });
    await store.apply(create('k1'));
    const before = readFileSync(file);
    await expect(store.apply(create('k1'))).rejects.toMatchObject({
      code: 'ERR_KMS_KEY_EXISTS',
      message: 'Key k1 already exists',
    });
    await expect(store.apply({ op: 'roll', name: 'nope', material: material(1) })).rejects.toMatchObject({
      code: 'ERR_KMS_KEY_NOT_FOUND',
    });
    await expect(store.apply({ op: 'delete', name: 'nope' })).rejects.toMatchObject({
      code: 'ERR_KMS_KEY_NOT_FOUND',
    });
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(store.state.generation).toBe(1);
    await store.close();
  });

  it('removes stale temporary files of a crashed writer and keeps the committed state', async () => {
    const store = await FileKeyStore.open({ file, password: pw('pw'), scrypt: FAST });
    await store.apply(create('k1'));
    await store.close();
    writeFileSync(join(dir, '.kms.keystore.tmp-99999-abcdef'), 'torn half-written data');
    const again = await FileKeyStore.open({ file, password: pw('pw') });
    expect(readdirSync(dir).filter((n) => n.includes('.tmp-'))).toEqual([]);
    expect(again.state.keys.has('k1')).toBe(true);
    await again.close();
  });

  it('locks the keystore against a second opener, and takes over the lock of a dead process', async () => {
    const store = await FileKeyStore.open({ file, password: pw('pw'), scrypt: FAST });
    expect((await openError('pw')).code).toBe('ERR_KMS_KEYSTORE_LOCKED');
    await store.close();
    // A pid that cannot be alive: beyond the kernel's pid range.
    writeFileSync(`${file}.lock`, '4194305\n');
    const again = await FileKeyStore.open({ file, password: pw('pw') });
    await again.close();
    // The parent of this process is alive: its lock is respected.
    writeFileSync(`${file}.lock`, `${process.ppid}\n`);
    expect((await openError('pw')).code).toBe('ERR_KMS_KEYSTORE_LOCKED');
  });

  it('finishes a write in progress before close resolves, then refuses writes', async () => {
    const store = await FileKeyStore.open({ file, password: pw('pw'), scrypt: FAST });
    const writing = store.apply(create('k1'));
    const closing = store.close();
    await writing;
    await closing;
    await expect(store.apply(create('k2'))).rejects.toMatchObject({ code: 'ERR_KMS_KEYSTORE_CLOSED' });
    const again = await FileKeyStore.open({ file, password: pw('pw') });
    expect(again.state.keys.has('k1')).toBe(true);
    await again.close();
  });

  it('serialises concurrent updates: every one is committed exactly once', async () => {
    const store = await FileKeyStore.open({ file, password: pw('pw'), scrypt: FAST });
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.apply(create(`k${i}`, i))));
    expect(store.state.generation).toBe(20);
    await store.close();
    const again = await FileKeyStore.open({ file, password: pw('pw') });
    expect(again.state.keys.size).toBe(20);
    expect(again.state.keys.get('k7')?.versions[0]?.unwrap()[0]).toBe(7);
    await again.close();
  });

  it('creates and rekeys through the command helpers', async () => {
    await createKeystore(file, pw('old'), FAST);
    await expect(createKeystore(file, pw('old'), FAST)).rejects.toMatchObject({
      code: 'ERR_KMS_KEYSTORE_EXISTS',
    });
    const store = await FileKeyStore.open({ file, password: pw('old') });
    await store.apply(create('k1', 9));
    await store.close();
    await expect(rekeyKeystore(file, pw('bad'), pw('new'))).rejects.toMatchObject({
      code: 'ERR_KMS_KEYSTORE_PASSWORD',
    });
    await rekeyKeystore(file, pw('old'), pw('new'), FAST);
    expect((await openError('old')).code).toBe('ERR_KMS_KEYSTORE_PASSWORD');
    const reopened = await FileKeyStore.open({ file, password: pw('new') });
    expect(reopened.state.keys.get('k1')?.versions[0]?.unwrap()[0]).toBe(9);
    await reopened.close();
    await expect(rekeyKeystore(join(dir, 'missing.keystore'), pw('a'), pw('b'))).rejects.toMatchObject({
      code: 'ERR_KMS_KEYSTORE_NOT_FOUND',
    });
  });
});

describe('KeystoreError', () => {
  it('is retriable for I/O, lock and closed errors only', () => {
    const retriable = (code: ConstructorParameters<typeof KeystoreError>[0]) =>
      new KeystoreError(code, 'f', 'm').retriable;
    expect(
      ['ERR_KMS_KEYSTORE_IO', 'ERR_KMS_KEYSTORE_LOCKED', 'ERR_KMS_KEYSTORE_CLOSED'].map((c) =>
        retriable(c as never),
      ),
    ).toEqual([true, true, true]);
    expect(
      ['ERR_KMS_KEYSTORE_PASSWORD', 'ERR_KMS_KEYSTORE_CORRUPT', 'ERR_KMS_KEYSTORE_EXISTS'].map((c) =>
        retriable(c as never),
      ),
    ).toEqual([false, false, false]);
  });
});
