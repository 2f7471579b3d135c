import {
  encryptedKeyVersionJson,
  parseEncryptedKeyVersion,
  parseKeyVersion,
  parseMetadata,
  parseRenewAnswer,
  parseTokenAnswer,
  requireKeyVersion,
  ShapeError,
} from './kms-json.js';

describe('KMS JSON shapes', () => {
  it('reads a key version; {} is a missing one; null material is withheld material', () => {
    const v = parseKeyVersion({ name: 'k1', versionName: 'k1@0', material: 'AAECAw' });
    expect(v?.material?.unwrap()).toEqual(Buffer.from([0, 1, 2, 3]));
    expect(parseKeyVersion({})).toBeUndefined();
    expect(parseKeyVersion({ name: 'k1', versionName: 'k1@0', material: null })?.material).toBeNull();
    // Either Base64 alphabet, padded or not.
    expect(parseKeyVersion({ name: 'k', versionName: 'k@0', material: '+/8=' })?.material?.unwrap()).toEqual(
      Buffer.from([0xfb, 0xff]),
    );
    expect(() => requireKeyVersion({})).toThrow(ShapeError);
    expect(() => parseKeyVersion({ name: 'k1', versionName: 'k1@0', material: 'a!b' })).toThrow(/not Base64/);
    expect(() => parseKeyVersion([])).toThrow(/not a JSON object/);
    expect(() => parseKeyVersion({ name: 1, versionName: 'x' })).toThrow(/name is not a string/);
  });

  it('reads metadata, with null description and missing attributes', () => {
    const m = parseMetadata({
      name: 'k1',
      cipher: 'AES/CTR/NoPadding',
      length: 128,
      description: null,
      created: 1700000000000,
      versions: 2,
    });
    expect(m).toEqual({
      name: 'k1',
      cipher: 'AES/CTR/NoPadding',
      length: 128,
      description: null,
      attributes: {},
      created: 1700000000000,
      versions: 2,
    });
    expect(parseMetadata({})).toBeUndefined();
    expect(() => parseMetadata({ name: 'k', cipher: 'c', length: '128', created: 1, versions: 1 })).toThrow(
      /length is not an integer/,
    );
    expect(() =>
      parseMetadata({ name: 'k', cipher: 'c', length: 1, created: 1, versions: 1, attributes: { a: 1 } }),
    ).toThrow(/attributes.a/);
  });

  it('reads and writes an encrypted key version', () => {
    const json = {
      versionName: 'k1@3',
      iv: Buffer.alloc(16, 7).toString('base64url'),
      encryptedKeyVersion: {
        name: 'k1',
        versionName: 'EEK',
        material: Buffer.alloc(16, 9).toString('base64url'),
      },
    };
    const eek = parseEncryptedKeyVersion(json);
    expect(eek.encryptionKeyName).toBe('k1');
    expect(eek.encryptionKeyVersionName).toBe('k1@3');
    expect(eek.iv).toEqual(Buffer.alloc(16, 7));
    expect(eek.encryptedKeyVersion.versionName).toBe('EEK');
    expect(encryptedKeyVersionJson(eek, Buffer.alloc(16, 9))).toEqual(json);
    expect(() =>
      parseEncryptedKeyVersion({
        ...json,
        encryptedKeyVersion: { ...json.encryptedKeyVersion, material: null },
      }),
    ).toThrow(/material is null/);
  });

  it('reads the token answers', () => {
    expect(parseTokenAnswer({ Token: { urlString: 'abc' } })).toBe('abc');
    expect(() => parseTokenAnswer({ token: {} })).toThrow(ShapeError);
    expect(parseRenewAnswer({ long: 1700000000000 })).toBe(1700000000000);
    expect(() => parseRenewAnswer({ long: '1' })).toThrow(ShapeError);
  });
});
