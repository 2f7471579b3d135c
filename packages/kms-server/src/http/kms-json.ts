import { Redacted } from '@fastpath/core';
import { KmsRequestError } from '../kms-errors.js';
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

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/**
 * Decodes base64 in either alphabet, padded or not (Hadoop's clients send URL-safe without
 * padding). Unlike Hadoop's lenient decoder, anything else is refused: a 400 naming the field.
 */
export function decodeBase64Field(value: unknown, field: string): Buffer {
  const text = requireString(value, field);
  const unpadded = text.replace(/=+$/, '');
  if (!BASE64.test(text) || /[=]/.test(unpadded) || unpadded.length % 4 === 1) {
    throw new KmsRequestError('ERR_KMS_BAD_REQUEST', `Parameter '${field}' is not valid base64`);
  }
  return Buffer.from(unpadded.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
}

/** Hadoop's `checkNotNull` / type check: a 400 `Parameter '<field>' cannot be null` when absent. */
export function requireString(value: unknown, field: string): string {
  if (value === undefined || value === null) {
    throw new KmsRequestError('ERR_KMS_BAD_REQUEST', `Parameter '${field}' cannot be null`);
  }
  if (typeof value !== 'string')
    throw new KmsRequestError('ERR_KMS_BAD_REQUEST', `Parameter '${field}' must be a string`);
  return value;
}

/** Hadoop's `checkNotEmpty`. */
export function requireNonEmptyString(value: unknown, field: string): string {
  const text = requireString(value, field);
  if (text.length === 0)
    throw new KmsRequestError('ERR_KMS_BAD_REQUEST', `Parameter '${field}' cannot be empty`);
  return text;
}

/** A JSON object body (or `{}` for no body); anything else is a 400. */
export function requireObject(value: unknown, what: string): Record<string, unknown> {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new KmsRequestError('ERR_KMS_BAD_REQUEST', `${what} must be a JSON object`);
  }
  return value as Record<string, unknown>;
}

/** Optional string field: absent/null gives `undefined`. */
export function optionalString(value: unknown, field: string): string | undefined {
  return value === undefined || value === null ? undefined : requireString(value, field);
}

/** Optional material field, decoded and wrapped as a secret. */
export function optionalMaterial(value: unknown, field = 'material'): Redacted<Buffer> | undefined {
  return value === undefined || value === null ? undefined : new Redacted(decodeBase64Field(value, field));
}

/** The decrypt/reencrypt body `{name, iv, material}` for version `versionName`. */
export function parseEekBody(body: unknown, versionName: string): EncryptedKeyVersion {
  const json = requireObject(body, 'The request body');
  const keyName = requireString(json.name, 'name');
  const iv = decodeBase64Field(json.iv, 'iv');
  const encryptedKey = decodeBase64Field(json.material, 'material');
  return { keyName, encryptionKeyVersionName: versionName, iv, encryptedKey };
}

/** The batch re-encrypt body: an array of EEK JSON objects, all of key `keyName`. */
export function parseEekBatch(body: unknown, keyName: string): EncryptedKeyVersion[] {
  if (!Array.isArray(body))
    throw new KmsRequestError('ERR_KMS_BAD_REQUEST', 'The request body must be a JSON array of EEKs');
  return body.map((item) => {
    const json = requireObject(item, 'Each EEK');
    const versionName = requireNonEmptyString(json.versionName, 'versionName');
    const iv = decodeBase64Field(json.iv, 'iv');
    const inner = requireObject(json.encryptedKeyVersion ?? null, 'encryptedKeyVersion');
    const innerVersion = requireString(inner.versionName, 'versionName');
    if (innerVersion !== EEK_VERSION_NAME) {
      throw new KmsRequestError(
        'ERR_KMS_BAD_REQUEST',
        `encryptedKey version name must be '${EEK_VERSION_NAME}', but found '${innerVersion}'`,
      );
    }
    const encryptedKey = decodeBase64Field(inner.material, 'material');
    return { keyName, encryptionKeyVersionName: versionName, iv, encryptedKey };
  });
}
