import { Redacted } from '@fastpath/core';
import {
  decodeBase64Field,
  eekJson,
  keyVersionJson,
  metadataJson,
  parseEekBatch,
  parseEekBody,
} from './kms-json.js';

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

  it('decodes both alphabets with or without padding, and refuses anything else', () => {
    const bytes = Buffer.from([0xfb, 0xff, 0xfe, 0x00, 0x01]);
    for (const text of ['-__-AAE', '+//+AAE', '-__-AAE=', '+//+AAE='])
      expect(decodeBase64Field(text, 'iv').equals(bytes)).toBe(true);
    for (const bad of ['a', 'ab$c', 'ab c', 'AA==AA', 12, null]) {
      expect(() => decodeBase64Field(bad, 'iv')).toThrow(
        expect.objectContaining({ code: 'ERR_KMS_BAD_REQUEST' }),
      );
    }
    expect(() => decodeBase64Field(undefined, 'iv')).toThrow("Parameter 'iv' cannot be null");
  });

  it('parses decrypt and batch bodies, refusing wrong shapes', () => {
    expect(parseEekBody({ name: 'k', iv: 'AAAA', material: 'AQID' }, 'k@0')).toMatchObject({
      keyName: 'k',
      encryptionKeyVersionName: 'k@0',
    });
    expect(() => parseEekBody([], 'k@0')).toThrow(/must be a JSON object/);
    expect(() => parseEekBody({ name: 'k', material: 'AQID' }, 'k@0')).toThrow(
      "Parameter 'iv' cannot be null",
    );
    const item = {
      versionName: 'k@0',
      iv: 'AAAA',
      encryptedKeyVersion: { name: 'k', versionName: 'EEK', material: 'AQID' },
    };
    expect(parseEekBatch([item, item], 'k')).toHaveLength(2);
    expect(() => parseEekBatch({}, 'k')).toThrow(/JSON array/);
    expect(() =>
      parseEekBatch([{ ...item, encryptedKeyVersion: { versionName: 'EK', material: 'AQID' } }], 'k'),
    ).toThrow("encryptedKey version name must be 'EEK', but found 'EK'");
  });
});
