// Reading and writing the KMS JSON shapes. A shape error here becomes a KmsBadResponseError in
// the client, with the operation that received it.
import { Redacted } from '@fastpath/core';
import type { EncryptedKeyVersion } from '../encrypted-key-version.js';
import type { KeyMetadata } from '../key-metadata.js';
import type { KeyVersion } from '../key-version.js';
import { decodeBase64, encodeBase64Url } from './base64.js';

/** The answer does not have the shape the protocol gives it. */
export class ShapeError extends Error {}

type Json = Record<string, unknown>;

function object(value: unknown, what: string): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ShapeError(`${what} is not a JSON object`);
  }
  return value as Json;
}

export function array(value: unknown, what: string): unknown[] {
  if (!Array.isArray(value)) throw new ShapeError(`${what} is not a JSON array`);
  return value;
}

function string(o: Json, field: string, what: string): string {
  const v = o[field];
  if (typeof v !== 'string') throw new ShapeError(`${what}.${field} is not a string`);
  return v;
}

function integer(o: Json, field: string, what: string): number {
  const v = o[field];
  if (typeof v !== 'number' || !Number.isSafeInteger(v))
    throw new ShapeError(`${what}.${field} is not an integer`);
  return v;
}

function bytes(o: Json, field: string, what: string): Buffer {
  const b = decodeBase64(string(o, field, what));
  if (b === undefined) throw new ShapeError(`${what}.${field} is not Base64`);
  return b;
}

const isEmpty = (o: Json): boolean => Object.keys(o).length === 0;

/** A KeyVersion, or `undefined` for the `{}` the server sends for a missing key or version. */
export function parseKeyVersion(value: unknown, what = 'key version'): KeyVersion | undefined {
  const o = object(value, what);
  if (isEmpty(o)) return undefined;
  const material =
    o['material'] === null || o['material'] === undefined ? null : new Redacted(bytes(o, 'material', what));
  return { name: string(o, 'name', what), versionName: string(o, 'versionName', what), material };
}

export function requireKeyVersion(value: unknown, what = 'key version'): KeyVersion {
  const v = parseKeyVersion(value, what);
  if (v === undefined) throw new ShapeError(`${what} is empty`);
  return v;
}

/** Metadata, or `undefined` for `{}` (missing key). */
export function parseMetadata(value: unknown, what = 'metadata'): KeyMetadata | undefined {
  const o = object(value, what);
  if (isEmpty(o)) return undefined;
  const rawAttributes = o['attributes'] ?? {};
  const attrs = object(rawAttributes, `${what}.attributes`);
  const attributes: Record<string, string> = {};
  for (const [k, v] of Object.entries(attrs)) {
    if (typeof v !== 'string') throw new ShapeError(`${what}.attributes.${k} is not a string`);
    attributes[k] = v;
  }
  const description = o['description'];
  if (description !== null && description !== undefined && typeof description !== 'string') {
    throw new ShapeError(`${what}.description is not a string`);
  }
  return {
    name: string(o, 'name', what),
    cipher: string(o, 'cipher', what),
    length: integer(o, 'length', what),
    description: description ?? null,
    attributes: Object.freeze(attributes),
    created: integer(o, 'created', what),
    versions: integer(o, 'versions', what),
  };
}

export function parseEncryptedKeyVersion(value: unknown, what = 'encrypted key'): EncryptedKeyVersion {
  const o = object(value, what);
  const inner = requireKeyVersion(o['encryptedKeyVersion'], `${what}.encryptedKeyVersion`);
  if (inner.material === null) throw new ShapeError(`${what}.encryptedKeyVersion.material is null`);
  return {
    encryptionKeyName: inner.name,
    encryptionKeyVersionName: string(o, 'versionName', what),
    iv: bytes(o, 'iv', what),
    encryptedKeyVersion: inner,
  };
}

/** The EEK JSON the server reads in `_reencryptbatch`. */
export function encryptedKeyVersionJson(eek: EncryptedKeyVersion, material: Buffer): Json {
  return {
    versionName: eek.encryptionKeyVersionName,
    iv: encodeBase64Url(eek.iv),
    encryptedKeyVersion: {
      name: eek.encryptionKeyName,
      versionName: eek.encryptedKeyVersion.versionName,
      material: encodeBase64Url(material),
    },
  };
}

/** `{"Token":{"urlString":"…"}}` → the URL string. */
export function parseTokenAnswer(value: unknown): string {
  const token = object(object(value, 'answer')['Token'], 'answer.Token');
  return string(token, 'urlString', 'answer.Token');
}

/** `{"long": <expiry ms>}` → the expiry. */
export function parseRenewAnswer(value: unknown): number {
  return integer(object(value, 'answer'), 'long', 'answer');
}
