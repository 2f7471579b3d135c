import { Redacted } from '@fastpath/core';
import { eekJson, keyVersionJson, metadataJson } from './kms-json.js';

describe('KMS JSON', () => {
  it('encodes material and IVs as base64url without padding, and null material as null', () => {
    const material = Buffer.from([0xfb, 0xff, 0xfe, 0x00, 0x01]);
    expect(keyVersionJson({ name: 'k', versionName: 'k@0', material: new Redacted(material) })).toEqual({
      name: 'k',
      versionName: 'k@0',
      material: '-__-AAE',
    });
    expect(keyVersionJson({ name: 'k', versionName: 'k@0', material: null }).material).toBeNull();
    expect(
      eekJson({
        keyName: 'k',
        encryptionKeyVersionName: 'k@1',
        iv: Buffer.alloc(16, 0xff),
        encryptedKey: material,
      }),
    ).toEqual({
      versionName: 'k@1',
      iv: '_____________________w',
      encryptedKeyVersion: { name: 'k', versionName: 'EEK', material: '-__-AAE' },
    });
    expect(metadataJson(undefined)).toEqual({});
  });
});
