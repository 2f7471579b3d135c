import { Redacted } from '@fastpath/core';
import { KmsClient, KmsError, type KmsAuth, type KmsClientOptions } from '@fastpath/kms-client';
import { OzoneKmsError, OzoneUnsupportedEncryptionError } from '../../ozone-encryption-errors.js';
import { om, type hadoop } from '../proto/wire.js';
import { DataKey } from './data-key.js';
import { keyProviderUrls } from './key-provider-uri.js';

/** What the client's `kms` option may set on the KMS clients: everything but the URL. */
export type KmsProviderOptions = KmsAuth & Omit<KmsClientOptions, 'url' | keyof KmsAuth>;

/** A key's encryption as the OM stores it (FileEncryptionInfoProto), checked. */
export interface FileEncryptionInfo {
  keyName: string;
  ezKeyVersionName: string;
  /** The encrypted data key (EDEK). */
  edek: Buffer;
  iv: Buffer;
}

/**
 * Checks a key's FileEncryptionInfo as Ozone's client does before asking the KMS
 * (`OzoneKMSUtil.decryptEncryptedDataEncryptionKey`): AES/CTR/NoPadding under the
 * ENCRYPTION_ZONES protocol, a 16-byte IV.
 */
export function fileEncryptionInfo(proto: hadoop.ozone.IFileEncryptionInfoProto): FileEncryptionInfo {
  if (proto.suite !== om.CipherSuiteProto.AES_CTR_NOPADDING)
    throw new OzoneUnsupportedEncryptionError(
      `the key is encrypted with cipher suite ${om.CipherSuiteProto[proto.suite] ?? String(proto.suite)}; only AES_CTR_NOPADDING is supported`,
    );
  if (proto.cryptoProtocolVersion !== om.CryptoProtocolVersionProto.ENCRYPTION_ZONES)
    throw new OzoneUnsupportedEncryptionError(
      `the key is encrypted under crypto protocol version ${om.CryptoProtocolVersionProto[proto.cryptoProtocolVersion] ?? String(proto.cryptoProtocolVersion)}; only ENCRYPTION_ZONES is supported`,
    );
  if (proto.iv?.length !== 16)
    throw new OzoneUnsupportedEncryptionError(`the key's IV has ${proto.iv?.length ?? 0} bytes, not 16`);
  return {
    keyName: proto.keyName,
    ezKeyVersionName: proto.ezKeyVersionName,
    edek: Buffer.from(proto.key),
    iv: Buffer.from(proto.iv),
  };
}

/**
 * The key provider of encrypted keys: decrypts a key's EDEK through the KMS (`DECRYPT_EEK`) and
 * hands back the data key for one stream. With several KMS hosts it starts at the next host each
 * call and moves on when one cannot be reached, as Hadoop's LoadBalancingKMSClientProvider does; a
 * refusal (403) is final, since every KMS of a provider shares its ACLs.
 */
export class KmsKeyProvider {
  readonly #clients: KmsClient[];
  #next: number;

  constructor(providerUri: string, options: KmsProviderOptions) {
    this.#clients = keyProviderUrls(providerUri).map((url) => new KmsClient({ ...options, url }));
    this.#next = Math.floor(Math.random() * this.#clients.length);
  }

  /** Asks the KMS for the data key of an encrypted key. */
  async dataKey(info: FileEncryptionInfo): Promise<DataKey> {
    const start = this.#next;
    this.#next = (this.#next + 1) % this.#clients.length;
    const failures: KmsError[] = [];
    for (let i = 0; i < this.#clients.length; i++) {
      const client = this.#clients[(start + i) % this.#clients.length] as KmsClient;
      let material: Buffer;
      try {
        const dek = await client.decryptEncryptedKey({
          encryptionKeyName: info.keyName,
          encryptionKeyVersionName: info.ezKeyVersionName,
          iv: info.iv,
          encryptedKeyVersion: { name: info.keyName, versionName: 'EEK', material: new Redacted(info.edek) },
        });
        material = (dek.material as Redacted<Buffer>).unwrap();
      } catch (err) {
        if (!(err instanceof KmsError)) throw err;
        if (!err.retriable) throw kmsFailure(info, err);
        failures.push(err);
        continue;
      }
      try {
        return new DataKey(material, info.iv);
      } catch (err) {
        throw new OzoneUnsupportedEncryptionError(
          `the data key of ${info.ezKeyVersionName} has ${material.length * 8} bits: ${(err as Error).message}`,
        );
      } finally {
        material.fill(0);
      }
    }
    const last = failures[failures.length - 1];
    throw new OzoneKmsError(
      'ERR_OZONE_KMS_UNREACHABLE',
      `no KMS could decrypt the data key of ${info.ezKeyVersionName} (${failures.length} tried)${last ? `: ${last.message}` : ''}`,
      { keyName: info.keyName, ...(last ? { kmsCode: last.code, cause: last } : {}) },
    );
  }

  async close(): Promise<void> {
    await Promise.all(this.#clients.map((c) => c.close()));
  }
}

function kmsFailure(info: FileEncryptionInfo, err: KmsError): OzoneKmsError {
  const denied = err.code === 'ERR_KMS_ACCESS_DENIED';
  return new OzoneKmsError(
    denied ? 'ERR_OZONE_KMS_ACCESS_DENIED' : 'ERR_OZONE_KMS_FAILED',
    denied
      ? `the KMS refused to decrypt the data key of ${info.ezKeyVersionName} (DECRYPT_EEK on key ${info.keyName}): ${err.message}`
      : `the KMS could not decrypt the data key of ${info.ezKeyVersionName}: ${err.message}`,
    { keyName: info.keyName, kmsCode: err.code, cause: err },
  );
}
