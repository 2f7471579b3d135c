// The embedded OM's side of encrypted buckets, as Ozone 2.2.0's OM has it (OMBucketCreateRequest
// and OMKeyRequest preExecute): a bucket created with an encryption key is checked against the
// KMS and keeps {keyName, suite, protocol version}; every new key in such a bucket gets a fresh
// data key from the KMS (`generateEncryptedKey`, as the OM's user), stored in the key's
// FileEncryptionInfo. The OM never sees a data key in clear.
import { KmsClient, KmsError } from '@fastpath/kms-client';
import type { KmsProviderOptions } from '../internal/crypto/kms-key-provider.js';
import { keyProviderUrls } from '../internal/crypto/key-provider-uri.js';
import { om, type hadoop } from '../internal/proto/wire.js';

type StatusName = keyof typeof om.Status;

/** An answer the OM gives instead of going on with the request. */
export interface MiniOmRefusal {
  status: StatusName;
  message: string;
}

/** A bucket's encryption as the mini OM keeps it (BucketEncryptionInfoProto). */
export interface StoredBucketEncryption {
  keyName: string;
  suite: number;
  cryptoProtocolVersion: number;
}

/** A key's FileEncryptionInfo as the mini OM keeps it in its JSON namespace (bytes as base64). */
export interface StoredFileEncryption {
  suite: number;
  cryptoProtocolVersion: number;
  edek: string;
  iv: string;
  keyName: string;
  ezKeyVersionName: string;
}

export function storedFileEncryption(fe: hadoop.ozone.IFileEncryptionInfoProto): StoredFileEncryption {
  return {
    suite: fe.suite,
    cryptoProtocolVersion: fe.cryptoProtocolVersion,
    edek: Buffer.from(fe.key).toString('base64'),
    iv: Buffer.from(fe.iv).toString('base64'),
    keyName: fe.keyName,
    ezKeyVersionName: fe.ezKeyVersionName,
  };
}

export function fileEncryptionProto(stored: StoredFileEncryption): hadoop.ozone.IFileEncryptionInfoProto {
  return {
    suite: stored.suite,
    cryptoProtocolVersion: stored.cryptoProtocolVersion,
    key: Buffer.from(stored.edek, 'base64'),
    iv: Buffer.from(stored.iv, 'base64'),
    keyName: stored.keyName,
    ezKeyVersionName: stored.ezKeyVersionName,
  };
}

/**
 * The mini OM's key provider (`hadoop.security.key.provider.path`). With several hosts the first
 * that answers is used. Made only when the cluster is given a provider.
 */
export class MiniOmEncryption {
  readonly #clients: KmsClient[];
  /** `generateEncryptedKey` calls made (one per key created in an encrypted bucket). */
  generatedKeys = 0;

  constructor(providerUri: string, options: KmsProviderOptions) {
    this.#clients = keyProviderUrls(providerUri, 'omConfiguration.hadoop.security.key.provider.path').map(
      (url) => new KmsClient({ ...options, url }),
    );
  }

  /**
   * CreateBucket with `beinfo`: the key must exist in the KMS; its cipher becomes the bucket's
   * suite. Fills `beinfo` in the request, or answers the refusal.
   */
  async createBucket(info: hadoop.ozone.IBucketInfo): Promise<MiniOmRefusal | undefined> {
    const keyName = info.beinfo?.keyName;
    if (!info.beinfo || !keyName) return undefined;
    const metadata = await this.#call((kms) => kms.getMetadata(keyName));
    if ('refusal' in metadata) return metadata.refusal;
    if (!metadata.value)
      return { status: 'BUCKET_ENCRYPTION_KEY_NOT_FOUND', message: `Encryption key ${keyName} not found` };
    if (metadata.value.cipher !== 'AES/CTR/NoPadding')
      return {
        status: 'UNKNOWN_CIPHER_SUITE',
        message: `Unknown cipher ${metadata.value.cipher} of key ${keyName}`,
      };
    info.beinfo = {
      keyName,
      suite: om.CipherSuiteProto.AES_CTR_NOPADDING,
      cryptoProtocolVersion: om.CryptoProtocolVersionProto.ENCRYPTION_ZONES,
    };
    return undefined;
  }

  /** CreateKey/CreateFile in an encrypted bucket: a new EDEK into `KeyArgs.fileEncryptionInfo`. */
  async createKey(
    args: hadoop.ozone.IKeyArgs,
    bucket: StoredBucketEncryption,
  ): Promise<MiniOmRefusal | undefined> {
    const eek = await this.#call((kms) => kms.generateEncryptedKey(bucket.keyName));
    if ('refusal' in eek) return eek.refusal;
    this.generatedKeys++;
    const material = eek.value.encryptedKeyVersion.material;
    if (!material) return { status: 'INTERNAL_ERROR', message: 'the KMS answered an EEK without material' };
    args.fileEncryptionInfo = {
      suite: bucket.suite,
      cryptoProtocolVersion: bucket.cryptoProtocolVersion,
      key: material.unwrap(),
      iv: eek.value.iv,
      keyName: bucket.keyName,
      ezKeyVersionName: eek.value.encryptionKeyVersionName,
    };
    return undefined;
  }

  /** Runs a KMS call on the first host that answers; a KMS failure is the OM's INTERNAL_ERROR, as Ozone's OM wraps it. */
  async #call<T>(op: (kms: KmsClient) => Promise<T>): Promise<{ value: T } | { refusal: MiniOmRefusal }> {
    let last: KmsError | undefined;
    for (const kms of this.#clients) {
      try {
        return { value: await op(kms) };
      } catch (err) {
        if (!(err instanceof KmsError)) throw err;
        last = err;
        if (!err.retriable) break;
      }
    }
    return { refusal: { status: 'INTERNAL_ERROR', message: `KMS: ${last?.message ?? 'no KMS'}` } };
  }

  async close(): Promise<void> {
    await Promise.all(this.#clients.map((c) => c.close()));
  }
}
