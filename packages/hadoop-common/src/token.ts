import { Redacted } from '@fastpath/core';
import { DataInput, TEXT_DEFAULT_MAX_LEN } from './data-input.js';
import { DataOutput } from './data-output.js';
import { DelegationTokenIdentifier } from './delegation-token-identifier.js';
import { checkBytes, checkText } from './internal/field-checks.js';
import { WireFormatError } from './wire-format-error.js';

/**
 * Largest identifier a token may carry. Hadoop sets no limit; this one is above the largest
 * identifier Hadoop can read back (three Text fields below 1 MiB each plus numbers) and keeps a
 * decoder from being driven into arbitrary allocations.
 */
export const TOKEN_MAX_IDENTIFIER_BYTES = 4 * 1024 * 1024;

/** Largest password a token may carry. An HMAC is at most 64 bytes; this leaves ample room. */
export const TOKEN_MAX_PASSWORD_BYTES = 64 * 1024;

/** Largest Writable serialisation of a token that stays within the per-field limits. */
export const TOKEN_MAX_ENCODED_BYTES =
  5 + TOKEN_MAX_IDENTIFIER_BYTES + 5 + TOKEN_MAX_PASSWORD_BYTES + 2 * (5 + TEXT_DEFAULT_MAX_LEN - 1);

/** Longest URL string {@link Token.fromUrlString} decodes (base64 of {@link TOKEN_MAX_ENCODED_BYTES}). */
export const TOKEN_MAX_URL_STRING_LENGTH = Math.ceil(TOKEN_MAX_ENCODED_BYTES / 3) * 4;

/** The parts of a {@link Token}. */
export interface TokenFields {
  /** The serialised identifier (for delegation tokens, {@link DelegationTokenIdentifier.bytes}). */
  identifier: Uint8Array;
  /** The password: an HMAC of the identifier bytes under a master key. */
  password: Redacted<Buffer>;
  /** Token kind, e.g. `kms-dt`. */
  kind: string;
  /** The service the token is for, e.g. `127.0.0.1:9600`; may be empty. */
  service: string;
}

const BASE64_EITHER_ALPHABET = /^([A-Za-z0-9+/_-]*)(={0,2})$/;

/**
 * A Hadoop security token (`org.apache.hadoop.security.token.Token`): identifier bytes, password,
 * kind and service. {@link encode} gives Hadoop's Writable bytes (VInt length + identifier, VInt
 * length + password, kind Text, service Text) and {@link toUrlString} the string Hadoop clients send
 * (base64url without padding). The password is kept in a `Redacted` box and is never printed.
 *
 * @example
 * ```ts
 * const token = new Token({ identifier: id.bytes, password: new Redacted(pw), kind: 'kms-dt', service: '' });
 * const header = token.toUrlString();
 * const back = Token.fromUrlString(header); // accepts base64 or base64url, with or without padding
 * ```
 */
export class Token {
  /**
   * The serialised identifier (a copy), at most {@link TOKEN_MAX_IDENTIFIER_BYTES}; for delegation
   * tokens, {@link DelegationTokenIdentifier.bytes}.
   */
  readonly identifier: Buffer;
  /** The password (a copy, at most {@link TOKEN_MAX_PASSWORD_BYTES}), boxed so it never prints. */
  readonly password: Redacted<Buffer>;
  /** Token kind, e.g. `kms-dt`: tells which identifier layout and secret manager the token belongs to. */
  readonly kind: string;
  /** The service the token is for, e.g. `127.0.0.1:9600`; may be empty. */
  readonly service: string;

  constructor(fields: TokenFields) {
    if (typeof fields !== 'object' || fields === null)
      throw new WireFormatError('token fields must be an object');
    if (!(fields.password instanceof Redacted)) {
      throw new WireFormatError('token password must be a Redacted byte array');
    }
    this.identifier = checkBytes('token identifier', fields.identifier, TOKEN_MAX_IDENTIFIER_BYTES);
    this.password = new Redacted(
      checkBytes('token password', fields.password.unwrap(), TOKEN_MAX_PASSWORD_BYTES),
    );
    this.kind = checkText('token kind', fields.kind, TEXT_DEFAULT_MAX_LEN);
    this.service = checkText('token service', fields.service, TEXT_DEFAULT_MAX_LEN);
    if (new.target === Token) Object.freeze(this);
  }

  /** Hadoop's Writable serialisation of the token. */
  encode(): Buffer {
    return new DataOutput(this.identifier.length + this.password.unwrap().length + 32)
      .writeVIntBytes(this.identifier)
      .writeVIntBytes(this.password.unwrap())
      .writeText(this.kind)
      .writeText(this.service)
      .toBuffer();
  }

  /** Hadoop's `encodeToUrlString()`: base64url of {@link encode}, without `=` padding. */
  toUrlString(): string {
    return this.encode().toString('base64url');
  }

  /** Reads a token that must fill `bytes` exactly. */
  static decode(bytes: Uint8Array): Token {
    const input = new DataInput(bytes);
    const token = Token.read(input);
    input.expectEnd();
    return token;
  }

  /** Reads one token's Writable bytes from `input` (as inside a Credentials file), leaving what follows. */
  static read(input: DataInput): Token {
    const identifier = readLengthPrefixed(input, 'token identifier', TOKEN_MAX_IDENTIFIER_BYTES);
    const password = readLengthPrefixed(input, 'token password', TOKEN_MAX_PASSWORD_BYTES);
    const kind = input.readText(TEXT_DEFAULT_MAX_LEN);
    const service = input.readText(TEXT_DEFAULT_MAX_LEN);
    return new Token({ identifier, password: new Redacted(password), kind, service });
  }

  /**
   * Hadoop's `decodeFromUrlString()`: accepts the URL-safe and the standard base64 alphabet (even
   * mixed) with or without `=` padding. Anything else, including whitespace, is refused, and so is a
   * string longer than {@link TOKEN_MAX_URL_STRING_LENGTH}, before any decoding.
   */
  static fromUrlString(s: string): Token {
    if (typeof s !== 'string') throw new WireFormatError('token URL string must be a string');
    if (s.length > TOKEN_MAX_URL_STRING_LENGTH) {
      throw new WireFormatError(
        `token URL string is ${s.length} characters long, more than the maximum ${TOKEN_MAX_URL_STRING_LENGTH}`,
      );
    }
    const match = BASE64_EITHER_ALPHABET.exec(s);
    if (match === null) {
      throw new WireFormatError(
        'token URL string contains characters outside the base64 and base64url alphabets',
      );
    }
    const body = match[1] ?? '';
    const padding = match[2] ?? '';
    if (body.length % 4 === 1 || (padding.length > 0 && (body.length + padding.length) % 4 !== 0)) {
      throw new WireFormatError(`token URL string has an impossible base64 length ${s.length}`);
    }
    // Node's base64 decoder reads both alphabets; the checks above leave it nothing to skip.
    return Token.decode(Buffer.from(body, 'base64'));
  }

  /** Hadoop's format: kind, service and the identifier (decoded when it can be). Never the password. */
  toString(): string {
    let ident: string;
    try {
      ident = DelegationTokenIdentifier.decode(this.kind, this.identifier).toString();
    } catch {
      ident = this.identifier.toString('hex');
    }
    return `Kind: ${this.kind}, Service: ${this.service}, Ident: (${ident})`;
  }
}

function readLengthPrefixed(input: DataInput, field: string, maxBytes: number): Buffer {
  const length = input.readVInt();
  if (length < 0) throw new WireFormatError(`${field} length ${length} is negative`);
  if (length > maxBytes) {
    throw new WireFormatError(`${field} length ${length} is more than the maximum ${maxBytes}`);
  }
  return input.readRaw(length);
}
