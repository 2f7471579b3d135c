// The one place where the KMS checks what a request carries: key and version names, user names,
// cipher, length, material, attributes, description, query parameters and token strings. Every
// operation runs these checks before it touches the keystore, the token store or the audit log,
// so a refused request leaves all three as they were.
import { Redacted } from '@fastpath/core';
import { KmsRequestError } from '../../kms-errors.js';
import {
  EEK_VERSION_NAME,
  checkCipher,
  checkMaterialLength,
  type EncryptedKeyVersion,
} from '../keys/key-provider.js';

/** Limits of what one request may carry. Every field is in bytes of UTF-8 unless it says otherwise. */
export interface KmsInputLimits {
  /**
   * Longest key name (`fastpath.kms.key.name.max.bytes`). A name travels percent-encoded (up to
   * three characters per byte) in request URLs and in the `Location` of its creation, so it must
   * fit well inside every client's header limit. Default: 1024.
   */
  readonly keyNameMaxBytes: number;
  /** Longest user name, in `user.name`, `doas` and `renewer` (`fastpath.kms.user.name.max.bytes`). Default: 256. */
  readonly userNameMaxBytes: number;
  /** Longest key description (`fastpath.kms.key.description.max.bytes`). Default: 4096. */
  readonly descriptionMaxBytes: number;
  /** Most attributes of one key (`fastpath.kms.key.attributes.max.count`). Default: 64. */
  readonly attributesMaxCount: number;
  /** Longest attribute name or value (`fastpath.kms.key.attribute.max.bytes`). Default: 1024. */
  readonly attributeMaxBytes: number;
}

/** The defaults of {@link KmsInputLimits}. */
export const DEFAULT_KMS_INPUT_LIMITS: KmsInputLimits = Object.freeze({
  keyNameMaxBytes: 1024,
  userNameMaxBytes: 256,
  descriptionMaxBytes: 4096,
  attributesMaxCount: 64,
  attributeMaxBytes: 1024,
});

/** Longest cipher name (`AES/CTR/NoPadding` is 17). */
const CIPHER_MAX_BYTES = 64;
/** Longest `service` of a token request (Hadoop writes it as a Text; host:port lists are short). */
const SERVICE_MAX_BYTES = 1024;

// A UTF-16 unit of a surrogate pair without its partner cannot be encoded as UTF-8: such a string
// cannot be put in a URL (encodeURIComponent throws), a header or the keystore's JSON faithfully.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
// C0 controls, DEL and C1 controls. Tab, line feed and carriage return are kept apart: Hadoop's
// own KMS tests create a key whose name holds a line feed, so key names may carry those three.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// eslint-disable-next-line no-control-regex
const CONTROL_EXCEPT_LINE_BREAKS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
/** Hadoop token URL strings are URL-safe base64 without padding (some writers pad). */
const TOKEN_URL_STRING = /^[A-Za-z0-9_-]+={0,2}$/;
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

function refuse(message: string): KmsRequestError {
  return new KmsRequestError('ERR_KMS_BAD_REQUEST', message);
}

/** Hadoop's `checkNotNull` / type check: a 400 `Parameter '<field>' cannot be null` when absent. */
export function requireString(value: unknown, field: string): string {
  if (value === undefined || value === null) throw refuse(`Parameter '${field}' cannot be null`);
  if (typeof value !== 'string') throw refuse(`Parameter '${field}' must be a string`);
  return value;
}

/** Hadoop's `checkNotEmpty`. */
export function requireNonEmptyString(value: unknown, field: string): string {
  const text = requireString(value, field);
  if (text.length === 0) throw refuse(`Parameter '${field}' cannot be empty`);
  return text;
}

/** A JSON object body (or `{}` for no body); anything else is a 400. */
export function requireObject(value: unknown, what: string): Record<string, unknown> {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw refuse(`${what} must be a JSON object`);
  }
  return value as Record<string, unknown>;
}

/** Optional string field: absent/null gives `undefined`. */
export function optionalString(value: unknown, field: string): string | undefined {
  return value === undefined || value === null ? undefined : requireString(value, field);
}

/**
 * Decodes base64 in either alphabet, padded or not (Hadoop's clients send URL-safe without
 * padding). Unlike Hadoop's lenient decoder, anything else is refused: a 400 naming the field.
 */
export function decodeBase64Field(value: unknown, field: string): Buffer {
  const text = requireString(value, field);
  const unpadded = text.replace(/=+$/, '');
  if (!BASE64.test(text) || /[=]/.test(unpadded) || unpadded.length % 4 === 1) {
    throw refuse(`Parameter '${field}' is not valid base64`);
  }
  return Buffer.from(unpadded.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
}

/** Optional material field, decoded and wrapped as a secret. */
export function optionalMaterial(value: unknown, field = 'material'): Redacted<Buffer> | undefined {
  return value === undefined || value === null ? undefined : new Redacted(decodeBase64Field(value, field));
}

/** Whether `text` is a well-formed string (no lone surrogate) without control characters. */
export function isCleanText(text: string, allowLineBreaks = false): boolean {
  return !LONE_SURROGATE.test(text) && !(allowLineBreaks ? CONTROL_EXCEPT_LINE_BREAKS : CONTROL).test(text);
}

/** Whether `text` has the shape of a Hadoop token URL string (checked before any token store lookup). */
export function isTokenUrlString(text: string): boolean {
  return TOKEN_URL_STRING.test(text);
}

/** What `POST /v1/keys` asks for, checked. */
export interface CreateKeyInput {
  readonly name: string;
  readonly cipher: string | undefined;
  /** Bits; `undefined` for the server's default. */
  readonly bitLength: number | undefined;
  readonly description: string | null;
  readonly attributes: Map<string, string>;
  readonly material: Redacted<Buffer> | undefined;
}

/**
 * The checks of every request input against {@link KmsInputLimits}. Each method returns the
 * checked value or throws `ERR_KMS_BAD_REQUEST` (400, Hadoop's `IllegalArgumentException`) with a
 * message naming the parameter.
 *
 * @example
 * ```ts
 * const input = new KmsInput(DEFAULT_KMS_INPUT_LIMITS);
 * input.keyName('k1'); // 'k1'
 * input.keyName('a\ud800b'); // throws ERR_KMS_BAD_REQUEST
 * ```
 */
export class KmsInput {
  readonly limits: KmsInputLimits;

  constructor(limits: KmsInputLimits = DEFAULT_KMS_INPUT_LIMITS) {
    this.limits = limits;
  }

  /** A key name: non-empty, well-formed, no control characters but tab and line breaks, bounded. */
  keyName(value: unknown, field = 'name'): string {
    const name = requireNonEmptyString(value, field);
    this.#text(name, field, this.limits.keyNameMaxBytes, true);
    return name;
  }

  /** A key version name (`<key>@<n>`): the key name's rules, with room for the version number. */
  versionName(value: unknown, field = 'versionName'): string {
    const name = requireNonEmptyString(value, field);
    this.#text(name, field, this.limits.keyNameMaxBytes + 16, true);
    return name;
  }

  /**
   * A user name (`user.name`, `doas`, `renewer`, the `name` of a cookie): well-formed, no control
   * characters, bounded. Whether it can also travel in a cookie is `AuthCookie`'s concern.
   */
  userName(value: string, field: string): string {
    this.#text(value, field, this.limits.userNameMaxBytes, false);
    return value;
  }

  /**
   * The query parameters every request may carry: user names (`user.name`, `doas`, `renewer`)
   * and the token `service`. Called before authentication, so a refused name reaches no store.
   */
  queryParameters(params: URLSearchParams): void {
    for (const [name, value] of params) {
      // `doas` is matched case-insensitively, as the authenticator reads it.
      if (name === 'user.name' || name === 'renewer' || name.toLowerCase() === 'doas') {
        this.userName(value, name);
      } else if (name === 'service') {
        this.#text(value, name, SERVICE_MAX_BYTES, false);
      }
    }
  }

  /** The names of `GET /v1/keys/metadata?key=…`. */
  keyNames(values: readonly string[]): string[] {
    return values.map((v) => this.keyName(v, 'key'));
  }

  /**
   * The body of `POST /v1/keys`, checked in full: the cipher and length the key would get (the
   * request's or the defaults) and the material's length.
   */
  createKey(body: unknown, defaults: { cipher: string; bitLength: number }): CreateKeyInput {
    const json = requireObject(body, 'The request body');
    const name = this.keyName(json.name, 'name');
    const cipher = optionalString(json.cipher, 'cipher');
    if (cipher !== undefined) this.#text(cipher, 'cipher', CIPHER_MAX_BYTES, false);
    const length = json.length === undefined || json.length === null ? 0 : json.length;
    if (typeof length !== 'number' || !Number.isSafeInteger(length) || length < 0) {
      throw refuse("Parameter 'length' must be a non-negative integer");
    }
    const bitLength = length === 0 ? undefined : length;
    checkCipher(cipher ?? defaults.cipher, bitLength ?? defaults.bitLength);
    const description = optionalString(json.description, 'description') ?? null;
    if (description !== null) this.#text(description, 'description', this.limits.descriptionMaxBytes, true);
    const attributes = this.#attributes(json.attributes);
    const material = optionalMaterial(json.material);
    if (material !== undefined) checkMaterialLength(bitLength ?? defaults.bitLength, material);
    return { name, cipher, bitLength, description, attributes, material };
  }

  /** The body of a rollover: optional material (its length is checked against the key's). */
  rolloverMaterial(body: unknown): Redacted<Buffer> | undefined {
    return optionalMaterial(requireObject(body, 'The request body').material);
  }

  /** The decrypt/reencrypt body `{name, iv, material}` for version `versionName`. */
  eekBody(body: unknown, versionName: string): EncryptedKeyVersion {
    const json = requireObject(body, 'The request body');
    const keyName = this.keyName(json.name, 'name');
    const iv = decodeBase64Field(json.iv, 'iv');
    const encryptedKey = decodeBase64Field(json.material, 'material');
    return { keyName, encryptionKeyVersionName: versionName, iv, encryptedKey };
  }

  /** The batch re-encrypt body: an array of EEK JSON objects, all of key `keyName`. */
  eekBatch(body: unknown, keyName: string): EncryptedKeyVersion[] {
    if (!Array.isArray(body)) throw refuse('The request body must be a JSON array of EEKs');
    return body.map((item) => {
      const json = requireObject(item, 'Each EEK');
      const versionName = this.versionName(json.versionName, 'versionName');
      const iv = decodeBase64Field(json.iv, 'iv');
      const inner = requireObject(json.encryptedKeyVersion ?? null, 'encryptedKeyVersion');
      const innerVersion = requireString(inner.versionName, 'versionName');
      if (innerVersion !== EEK_VERSION_NAME) {
        throw refuse(`encryptedKey version name must be '${EEK_VERSION_NAME}', but found '${innerVersion}'`);
      }
      const encryptedKey = decodeBase64Field(inner.material, 'material');
      return { keyName, encryptionKeyVersionName: versionName, iv, encryptedKey };
    });
  }

  #attributes(value: unknown): Map<string, string> {
    const attributes = new Map<string, string>();
    if (value === undefined || value === null) return attributes;
    if (typeof value !== 'object' || Array.isArray(value)) {
      throw refuse("Parameter 'attributes' must be a JSON object of strings");
    }
    const entries = Object.entries(value);
    if (entries.length > this.limits.attributesMaxCount) {
      throw refuse(`Parameter 'attributes' must have at most ${this.limits.attributesMaxCount} entries`);
    }
    for (const [k, v] of entries) {
      if (typeof v !== 'string') throw refuse(`Attribute '${printable(k)}' must be a string`);
      this.#text(k, 'attributes', this.limits.attributeMaxBytes, false);
      this.#text(v, `attributes.${printable(k)}`, this.limits.attributeMaxBytes, false);
      attributes.set(k, v);
    }
    return attributes;
  }

  #text(text: string, field: string, maxBytes: number, allowLineBreaks: boolean): void {
    // A cheap bound first: a UTF-16 unit is at least one byte of UTF-8.
    if (text.length > maxBytes || Buffer.byteLength(text, 'utf8') > maxBytes) {
      throw refuse(`Parameter '${field}' must be at most ${maxBytes} bytes of UTF-8`);
    }
    if (LONE_SURROGATE.test(text)) {
      throw refuse(`Parameter '${field}' contains a lone UTF-16 surrogate (not encodable as UTF-8)`);
    }
    if ((allowLineBreaks ? CONTROL_EXCEPT_LINE_BREAKS : CONTROL).test(text)) {
      throw refuse(`Parameter '${field}' contains a control character`);
    }
  }
}

/** A name for an error message: at most 64 characters, control characters and surrogates escaped. */
function printable(text: string): string {
  const short = text.length > 64 ? `${text.slice(0, 64)}…` : text;
  // eslint-disable-next-line no-control-regex
  return short.replace(/[\u0000-\u001f\u007f-\u009f\ud800-\udfff]/g, (c) => {
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}
