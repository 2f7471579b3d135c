import { OzoneKmsError } from '../../ozone-encryption-errors.js';
import { toNumber, type hadoop } from '../proto/wire.js';
import { KeyDecryptor } from './key-decryptor.js';
import { KeyEncryptor } from './key-encryptor.js';
import { fileEncryptionInfo, KmsKeyProvider, type KmsProviderOptions } from './kms-key-provider.js';

/** The KMS key and key version a key's data key is encrypted under. */
export interface KeyEncryptionDetails {
  /** The bucket's KMS key. */
  keyName: string;
  /** The version of it that encrypted this key's data key (`<key>@<n>`). */
  keyVersionName: string;
}

/** What a key's FileEncryptionInfo says, for listings and lookups; undefined for a plain key. */
export function keyEncryptionDetails(info: hadoop.ozone.IKeyInfo): KeyEncryptionDetails | undefined {
  const fe = info.fileEncryptionInfo;
  return fe ? { keyName: fe.keyName, keyVersionName: fe.ezKeyVersionName } : undefined;
}

/**
 * Encrypted keys for one client: the key provider, made at the first encrypted key, and the
 * ciphers of the streams it opens. A key without FileEncryptionInfo gets no cipher, so plain
 * buckets never reach the KMS.
 */
export class KeyEncryption {
  readonly #providerUri: string | undefined;
  readonly #options: KmsProviderOptions;
  #provider: KmsKeyProvider | undefined;

  constructor(providerUri: string | undefined, options: KmsProviderOptions) {
    this.#providerUri = providerUri;
    this.#options = options;
  }

  /** The cipher of a key being written, when the OM gave it FileEncryptionInfo. */
  async encryptorFor(info: hadoop.ozone.IKeyInfo | null | undefined): Promise<KeyEncryptor | undefined> {
    const fe = info?.fileEncryptionInfo;
    if (!fe) return undefined;
    return new KeyEncryptor(await this.#dataKey(fe));
  }

  /** The cipher of a key being read, when its KeyInfo carries FileEncryptionInfo. */
  async decryptorFor(info: hadoop.ozone.IKeyInfo): Promise<KeyDecryptor | undefined> {
    const fe = info.fileEncryptionInfo;
    if (!fe) return undefined;
    return new KeyDecryptor(await this.#dataKey(fe), partStarts(info));
  }

  #dataKey(fe: hadoop.ozone.IFileEncryptionInfoProto) {
    const checked = fileEncryptionInfo(fe);
    if (this.#providerUri === undefined)
      throw new OzoneKmsError(
        'ERR_OZONE_KMS_NOT_CONFIGURED',
        `the key is encrypted under ${checked.ezKeyVersionName} and no key provider is set (hadoop.security.key.provider.path)`,
        { keyName: checked.keyName },
      );
    this.#provider ??= new KmsKeyProvider(this.#providerUri, this.#options);
    return this.#provider.dataKey(checked);
  }

  async close(): Promise<void> {
    await this.#provider?.close();
  }
}

/**
 * Where each part of a multipart key starts in the key: its blocks grouped by `partNumber`, in
 * order (Ozone's `KeyInputStream.getStreamsFromKeyInfo`). `[0]` for any other key.
 */
function partStarts(info: hadoop.ozone.IKeyInfo): number[] {
  const versions = info.keyLocationList ?? [];
  const latest = versions[versions.length - 1];
  if (!latest?.isMultipartKey) return [0];
  const starts: number[] = [];
  let offset = 0;
  let part: number | undefined;
  for (const loc of latest.keyLocations ?? []) {
    const n = loc.partNumber ?? -1;
    if (starts.length === 0 || n !== part) starts.push(offset);
    part = n;
    offset += toNumber(loc.length);
  }
  return starts.length > 0 ? starts : [0];
}
