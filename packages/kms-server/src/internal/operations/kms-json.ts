import {
  EEK_VERSION_NAME,
  type EncryptedKeyVersion,
  type KeyMetadata,
  type KeyVersion,
} from '../keys/key-provider.js';

/** KeyVersion JSON: `{name, versionName, material}`; material is base64url without padding, or null. */
export interface KeyVersionJson {
  name: string;
  versionName: string;
  material: string | null;
}

/** Metadata JSON, or `{}` for a missing key (as Hadoop answers). */
export type MetadataJson =
  | {
      name: string;
      cipher: string;
      length: number;
      description: string | null;
      attributes: Record<string, string>;
      created: number;
      versions: number;
    }
  | Record<string, never>;

/** EEK JSON: the encryption key version, the IV, and the inner `EEK` version with the encrypted DEK. */
export interface EekJson {
  versionName: string;
  iv: string;
  encryptedKeyVersion: KeyVersionJson;
}

export function keyVersionJson(version: KeyVersion): KeyVersionJson {
  return {
    name: version.name,
    versionName: version.versionName,
    material: version.material === null ? null : version.material.unwrap().toString('base64url'),
  };
}

export function metadataJson(metadata: KeyMetadata | undefined): MetadataJson {
  if (metadata === undefined) return {};
  return {
    name: metadata.name,
    cipher: metadata.cipher,
    length: metadata.length,
    description: metadata.description,
    attributes: { ...metadata.attributes },
    created: metadata.created,
    versions: metadata.versions,
  };
}

export function eekJson(eek: EncryptedKeyVersion): EekJson {
  return {
    versionName: eek.encryptionKeyVersionName,
    iv: eek.iv.toString('base64url'),
    encryptedKeyVersion: {
      name: eek.keyName,
      versionName: EEK_VERSION_NAME,
      material: eek.encryptedKey.toString('base64url'),
    },
  };
}
