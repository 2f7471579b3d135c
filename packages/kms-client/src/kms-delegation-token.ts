import { inspect } from 'node:util';
import { Redacted } from '@fastpath/core';
import { decodeBase64 } from './internal/base64.js';
import { WritableFormatError, WritableReader } from './internal/writable-reader.js';
import { KmsMalformedTokenError } from './kms-errors.js';

/** Token kind of KMS delegation tokens (`KMSDelegationToken.TOKEN_KIND_STR`). */
export const KMS_DELEGATION_TOKEN_KIND = 'kms-dt';

// Bounds on what the client agrees to parse. Real tokens are about a hundred characters; the
// limits only keep a pasted file or a hostile answer from costing more than a quick refusal.
const MAX_URL_STRING_LENGTH = 1024 * 1024;
const MAX_TEXT_BYTES = 1024 * 1024;
const MAX_PASSWORD_BYTES = 64 * 1024;

type TokenFields = Pick<
  KmsDelegationToken,
  | 'kind'
  | 'service'
  | 'owner'
  | 'renewer'
  | 'realUser'
  | 'issueDate'
  | 'maxDate'
  | 'sequenceNumber'
  | 'masterKeyId'
  | 'identifier'
  | 'password'
>;

/**
 * A Hadoop delegation token as the KMS hands it out: the identifier fields (readable by anyone),
 * the password (secret, kept in a `Redacted`), the kind and the service. Printing, logging or
 * `JSON.stringify` shows the identifier only; {@link KmsDelegationToken.toUrlString} is the one
 * deliberate way to get the full secret string back, to store it or to give it to another process.
 *
 * @example
 * ```ts
 * const token = await kms.getDelegationToken({ renewer: 'yarn' });
 * console.log(`${token}`); // kms-dt token of alice (renewer yarn, sequence number 7)
 * const asToken = kms.withAuth({ delegationToken: token });
 * await asToken.getKeyNames();
 * ```
 */
export class KmsDelegationToken {
  /** Token kind, `kms-dt` for tokens of a KMS. */
  readonly kind: string;
  /** Service the token is for (often empty as issued; set by clients that route tokens). */
  readonly service: string;
  /** Who the token authenticates (the identity of requests made with it). */
  readonly owner: string;
  /** Who may renew the token. */
  readonly renewer: string;
  /** The real user when the owner was impersonated (`doas`); empty otherwise. */
  readonly realUser: string;
  /** Issue time, epoch milliseconds. */
  readonly issueDate: number;
  /** The token cannot be renewed past this time, epoch milliseconds. */
  readonly maxDate: number;
  /** Sequence number the issuing secret manager gave the token. */
  readonly sequenceNumber: number;
  /** Id of the master key that signed the password. */
  readonly masterKeyId: number;
  /** The serialized identifier (not secret). */
  readonly identifier: Buffer;
  /** The token's password: HMAC of the identifier under the server's master key. */
  readonly password: Redacted<Buffer>;
  readonly #urlString: string;

  private constructor(urlString: string, fields: TokenFields) {
    this.#urlString = urlString;
    this.kind = fields.kind;
    this.service = fields.service;
    this.owner = fields.owner;
    this.renewer = fields.renewer;
    this.realUser = fields.realUser;
    this.issueDate = fields.issueDate;
    this.maxDate = fields.maxDate;
    this.sequenceNumber = fields.sequenceNumber;
    this.masterKeyId = fields.masterKeyId;
    this.identifier = fields.identifier;
    this.password = fields.password;
  }

  /**
   * Reads a token URL string (`Token.encodeToUrlString()`: URL-safe Base64 of the token Writable;
   * either Base64 alphabet is accepted). Throws {@link KmsMalformedTokenError}, whose message
   * never repeats the string, when it is not a token.
   */
  static fromUrlString(urlString: string | Redacted<string>): KmsDelegationToken {
    const text = urlString instanceof Redacted ? urlString.unwrap() : urlString;
    const fail = (reason: string): never => {
      throw new KmsMalformedTokenError('KmsDelegationToken.fromUrlString', reason);
    };
    if (typeof text !== 'string') fail(`expected a string, got ${typeof text}`);
    const trimmed = text.trim();
    if (trimmed.length === 0) fail('the string is empty');
    if (trimmed.length > MAX_URL_STRING_LENGTH) fail(`longer than ${MAX_URL_STRING_LENGTH} characters`);
    const bytes = decodeBase64(trimmed) ?? fail('not Base64');
    try {
      const token = new WritableReader(bytes);
      const identifier = Buffer.from(token.lengthPrefixed('identifier', MAX_URL_STRING_LENGTH));
      const password = Buffer.from(token.lengthPrefixed('password', MAX_PASSWORD_BYTES));
      const kind = token.text('kind', MAX_TEXT_BYTES);
      const service = token.text('service', MAX_TEXT_BYTES);
      if (token.remaining !== 0) fail(`${token.remaining} bytes after the token`);
      const id = new WritableReader(identifier);
      const version = id.byte();
      if (version !== 0) fail(`unknown identifier version ${version}`);
      const owner = id.text('owner', MAX_TEXT_BYTES);
      const renewer = id.text('renewer', MAX_TEXT_BYTES);
      const realUser = id.text('realUser', MAX_TEXT_BYTES);
      const issueDate = id.safeLong('issueDate');
      const maxDate = id.safeLong('maxDate');
      const sequenceNumber = id.vint();
      const masterKeyId = id.vint();
      // Subclasses of the identifier may append fields; they are kept in `identifier` untouched.
      return new KmsDelegationToken(trimmed, {
        kind,
        service,
        owner,
        renewer,
        realUser,
        issueDate,
        maxDate,
        sequenceNumber,
        masterKeyId,
        identifier,
        password: new Redacted(password),
      });
    } catch (err) {
      if (err instanceof WritableFormatError) fail(err.message);
      throw err;
    }
  }

  /** Takes a token or its URL string (plain or redacted) and returns the token. */
  static from(token: KmsDelegationToken | string | Redacted<string>): KmsDelegationToken {
    return token instanceof KmsDelegationToken ? token : KmsDelegationToken.fromUrlString(token);
  }

  /**
   * The token URL string, password included: the form the KMS takes in `X-Hadoop-Delegation-Token`
   * and in `token=`. A secret: store it like a password, never log it.
   */
  toUrlString(): string {
    return this.#urlString;
  }

  /** The identifier fields; never the password or the URL string. */
  toJSON(): Record<string, string | number> {
    return {
      kind: this.kind,
      service: this.service,
      owner: this.owner,
      renewer: this.renewer,
      realUser: this.realUser,
      issueDate: this.issueDate,
      maxDate: this.maxDate,
      sequenceNumber: this.sequenceNumber,
      masterKeyId: this.masterKeyId,
    };
  }

  toString(): string {
    const real = this.realUser === '' || this.realUser === this.owner ? '' : ` via ${this.realUser}`;
    return `${this.kind} token of ${this.owner}${real} (renewer ${this.renewer || '-'}, sequence number ${this.sequenceNumber})`;
  }

  [inspect.custom](): string {
    return `KmsDelegationToken ${inspect(this.toJSON())}`;
  }
}
