import { describe, expect, it } from '@jest/globals';
import { om } from '../proto/wire.js';
import { fileEncryptionInfo } from './kms-key-provider.js';

const good = {
  suite: om.CipherSuiteProto.AES_CTR_NOPADDING,
  cryptoProtocolVersion: om.CryptoProtocolVersionProto.ENCRYPTION_ZONES,
  key: Buffer.alloc(16, 1),
  iv: Buffer.alloc(16, 2),
  keyName: 'bk1',
  ezKeyVersionName: 'bk1@0',
};

describe('fileEncryptionInfo', () => {
  it('takes AES/CTR/NoPadding under ENCRYPTION_ZONES', () => {
    expect(fileEncryptionInfo(good)).toEqual({
      keyName: 'bk1',
      ezKeyVersionName: 'bk1@0',
      edek: good.key,
      iv: good.iv,
    });
  });

  it('refuses an unknown cipher suite, protocol version or IV before any KMS call', () => {
    const refused = { code: 'ERR_OZONE_UNSUPPORTED_ENCRYPTION', retriable: false };
    expect(() => fileEncryptionInfo({ ...good, suite: om.CipherSuiteProto.UNKNOWN })).toThrow(
      expect.objectContaining(refused),
    );
    expect(() => fileEncryptionInfo({ ...good, suite: 7 as typeof good.suite })).toThrow(/cipher suite 7/);
    expect(() =>
      fileEncryptionInfo({
        ...good,
        cryptoProtocolVersion: om.CryptoProtocolVersionProto.UNKNOWN_PROTOCOL_VERSION,
      }),
    ).toThrow(expect.objectContaining(refused));
    expect(() => fileEncryptionInfo({ ...good, iv: Buffer.alloc(12) })).toThrow(/12 bytes/);
  });
});
