// Readers of the KMS's JSON answers for tests. Each checks the shape it names and returns the
// parsed value itself (so its key order is still the server's), typed: a test reads fields
// without `any`, and an answer of the wrong shape fails the test saying what was wrong.

/** A key version, as Hadoop's `KMSUtil.toJSON(KeyVersion)` writes it. */
export interface KeyVersionJson {
  name: string;
  versionName: string;
  /** base64url without padding, or null when the caller may not see the material. */
  material: string | null;
}

/** Key metadata, as Hadoop writes it for an existing key. */
export interface KeyMetadataJson {
  name: string;
  cipher: string;
  length: number;
  description: string | null;
  attributes: Record<string, string>;
  created: number;
  versions: number;
}

/** An encrypted key version: the encryption key version, the IV and the inner `EEK` version. */
export interface EekJson {
  versionName: string;
  iv: string;
  /** Named `EEK`; its material, the encrypted key, is always there. */
  encryptedKeyVersion: KeyVersionJson & { material: string };
}

/** The fields of `/build-info` that the tests read. */
export interface BuildInfoJson {
  pid: number;
  worker: number | null;
  workers: number;
  tls: boolean;
  tokenManager: Record<string, unknown>;
  keystore: Record<string, unknown>;
}

/** The value as a JSON object (not an array, not null). */
export function jsonObjectOf(value: unknown, what = 'a JSON object'): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`expected ${what}, got ${JSON.stringify(value)}`);
  }
  return value as Record<string, unknown>;
}

/** The value as a JSON array. */
export function jsonArrayOf(value: unknown, what = 'a JSON array'): unknown[] {
  if (!Array.isArray(value)) throw new Error(`expected ${what}, got ${JSON.stringify(value)}`);
  return value as unknown[];
}

type FieldType = 'string' | 'number' | 'boolean' | 'object' | 'string|null' | 'number|null';

function checkFields(
  value: unknown,
  what: string,
  fields: Record<string, FieldType>,
): Record<string, unknown> {
  const object = jsonObjectOf(value, what);
  for (const [name, type] of Object.entries(fields)) {
    const field = object[name];
    const nullable = type.endsWith('|null');
    if (nullable && field === null) continue;
    const base = nullable ? type.slice(0, -'|null'.length) : type;
    const ok =
      base === 'object'
        ? typeof field === 'object' && field !== null && !Array.isArray(field)
        : typeof field === base;
    if (!ok) throw new Error(`${what}: field '${name}' is not ${type} in ${JSON.stringify(value)}`);
  }
  return object;
}

/** A key version answer (create, rollover, current version, key version, decrypt). */
export function keyVersionOf(value: unknown): KeyVersionJson {
  return checkFields(value, 'a key version', {
    name: 'string',
    versionName: 'string',
    material: 'string|null',
  }) as unknown as KeyVersionJson;
}

/** A list of key versions (`_versions`). */
export function keyVersionsOf(value: unknown): KeyVersionJson[] {
  return jsonArrayOf(value, 'a list of key versions').map(keyVersionOf);
}

/** The metadata of an existing key (`_metadata`, `GET /key/<name>`). */
export function metadataOf(value: unknown): KeyMetadataJson {
  const metadata = checkFields(value, 'key metadata', {
    name: 'string',
    cipher: 'string',
    length: 'number',
    description: 'string|null',
    attributes: 'object',
    created: 'number',
    versions: 'number',
  });
  for (const [name, attribute] of Object.entries(jsonObjectOf(metadata['attributes']))) {
    if (typeof attribute !== 'string') throw new Error(`key metadata: attribute '${name}' is not a string`);
  }
  return metadata as unknown as KeyMetadataJson;
}

/** One encrypted key version. */
export function eekOf(value: unknown): EekJson {
  const eek = checkFields(value, 'an encrypted key version', {
    versionName: 'string',
    iv: 'string',
    encryptedKeyVersion: 'object',
  });
  if (keyVersionOf(eek['encryptedKeyVersion']).material === null) {
    throw new Error(`an encrypted key version without its encrypted key: ${JSON.stringify(value)}`);
  }
  return eek as unknown as EekJson;
}

/**
 * A non-empty list of encrypted key versions (`_eek?eek_op=generate`, `_reencryptbatch`), typed
 * so that its first element can be destructured: `const [eek] = eeksOf(res.json())`.
 */
export function eeksOf(value: unknown): [EekJson, ...EekJson[]] {
  const list = jsonArrayOf(value, 'a list of encrypted key versions').map(eekOf);
  const [first, ...rest] = list;
  if (first === undefined) throw new Error('expected at least one encrypted key version, got []');
  return [first, ...rest];
}

/** A list of key names (`/keys/names`). */
export function namesOf(value: unknown): string[] {
  return jsonArrayOf(value, 'a list of key names').map((name) => {
    if (typeof name !== 'string') throw new Error(`a key name is not a string: ${JSON.stringify(name)}`);
    return name;
  });
}

/** The URL string of a `GETDELEGATIONTOKEN` answer: `{"Token": {"urlString": "…"}}`. */
export function tokenUrlOf(value: unknown): string {
  const token = jsonObjectOf(jsonObjectOf(value, 'a delegation token answer')['Token'], 'a Token object');
  const urlString = token['urlString'];
  if (typeof urlString !== 'string')
    throw new Error(`Token.urlString is not a string: ${JSON.stringify(value)}`);
  return urlString;
}

/** The new expiry (ms since the epoch) of a `RENEWDELEGATIONTOKEN` answer: `{"long": …}`. */
export function renewalOf(value: unknown): number {
  const expiry = jsonObjectOf(value, 'a renewal answer')['long'];
  if (typeof expiry !== 'number')
    throw new Error(`a renewal answer has no number 'long': ${JSON.stringify(value)}`);
  return expiry;
}

/** The `/build-info` answer. */
export function buildInfoOf(value: unknown): BuildInfoJson {
  return checkFields(value, 'a build-info answer', {
    pid: 'number',
    worker: 'number|null',
    workers: 'number',
    tls: 'boolean',
    tokenManager: 'object',
    keystore: 'object',
  }) as unknown as BuildInfoJson;
}
