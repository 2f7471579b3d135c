import { expect } from '@jest/globals';
import { DEFAULT_KMS_INPUT_LIMITS, KmsInput, decodeBase64Field } from './kms-input.js';

const input = new KmsInput(DEFAULT_KMS_INPUT_LIMITS);
const defaults = { cipher: 'AES/CTR/NoPadding', bitLength: 128 };
const badRequest = expect.objectContaining({ code: 'ERR_KMS_BAD_REQUEST' });

describe('KMS input checks', () => {
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
    expect(input.eekBody({ name: 'k', iv: 'AAAA', material: 'AQID' }, 'k@0')).toMatchObject({
      keyName: 'k',
      encryptionKeyVersionName: 'k@0',
    });
    expect(() => input.eekBody([], 'k@0')).toThrow(/must be a JSON object/);
    expect(() => input.eekBody({ name: 'k', material: 'AQID' }, 'k@0')).toThrow(
      "Parameter 'iv' cannot be null",
    );
    const item = {
      versionName: 'k@0',
      iv: 'AAAA',
      encryptedKeyVersion: { name: 'k', versionName: 'EEK', material: 'AQID' },
    };
    expect(input.eekBatch([item, item], 'k')).toHaveLength(2);
    expect(() => input.eekBatch({}, 'k')).toThrow(/JSON array/);
    expect(() =>
      input.eekBatch([{ ...item, encryptedKeyVersion: { versionName: 'EK', material: 'AQID' } }], 'k'),
    ).toThrow("encryptedKey version name must be 'EEK', but found 'EK'");
  });

  it('refuses key names that are too long, hold a lone surrogate or a control character', () => {
    expect(input.keyName('a'.repeat(1024))).toHaveLength(1024);
    // Bytes of UTF-8, not UTF-16 units: 342 three-byte characters are 1026 bytes.
    expect(() => input.keyName('€'.repeat(342))).toThrow(/at most 1024 bytes/);
    expect(() => input.keyName('a'.repeat(70_000))).toThrow(/at most 1024 bytes/);
    expect(() => input.keyName('a\ud800b')).toThrow(/lone UTF-16 surrogate/);
    expect(() => input.keyName('a\udc00')).toThrow(/lone UTF-16 surrogate/);
    for (const c of ['\u0000', '\u0001', '\u001b', '\u007f', '\u0085'])
      expect(() => input.keyName(`k${c}`)).toThrow(/control character/);
    // What Hadoop's own tests create (line feed included), and any well-formed Unicode.
    for (const ok of ['key %^[\n{]}|"<>\\', 'ключ', '用户', '🔑', 'a/b', 'tab\there'])
      expect(input.keyName(ok)).toBe(ok);
    expect(() => input.keyName('')).toThrow("Parameter 'name' cannot be empty");
    expect(() => input.keyName(7)).toThrow("Parameter 'name' must be a string");
  });

  it('refuses user names that are too long or hold control characters, in every parameter that names a user', () => {
    for (const [name, value] of [
      ['user.name', 'a'.repeat(257)],
      ['user.name', 'a\u0001'],
      ['user.name', 'a\u007f'],
      ['doAs', 'x\ny'],
      ['renewer', '\u0000'],
      ['service', 's\u0002'],
    ] as const) {
      expect(() => input.queryParameters(new URLSearchParams([[name, value]]))).toThrow(badRequest);
    }
    input.queryParameters(
      new URLSearchParams([
        ['user.name', 'ключ'],
        ['doas', '🔑'],
        ['x', '\u0001'],
      ]),
    );
  });

  it('checks the whole create body before anything else: cipher, length, material, description, attributes', () => {
    const material = Buffer.alloc(16, 1).toString('base64url');
    expect(input.createKey({ name: 'k', material, attributes: { a: 'b' } }, defaults)).toMatchObject({
      name: 'k',
      bitLength: undefined,
    });
    expect(() => input.createKey({ name: 'k', cipher: 'DES/CBC' }, defaults)).toThrow(
      expect.objectContaining({ code: 'ERR_KMS_UNSUPPORTED_CIPHER' }),
    );
    expect(() => input.createKey({ name: 'k', length: 100 }, defaults)).toThrow(
      expect.objectContaining({ code: 'ERR_KMS_INVALID_KEY_MATERIAL' }),
    );
    expect(() => input.createKey({ name: 'k', length: 256, material }, defaults)).toThrow(
      'Wrong key length. Required 256, but got 128',
    );
    expect(() => input.createKey({ name: 'k', description: 'd'.repeat(4097) }, defaults)).toThrow(badRequest);
    expect(() => input.createKey({ name: 'k', attributes: { 'a\u0000': 'b' } }, defaults)).toThrow(
      badRequest,
    );
    const many = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`a${i}`, 'v']));
    expect(() => input.createKey({ name: 'k', attributes: many }, defaults)).toThrow(/at most 64 entries/);
  });
});
