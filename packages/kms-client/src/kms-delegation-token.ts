import { inspect } from 'node:util';
import { Redacted } from '@fastpath/core';
import { DataInput, DelegationTokenIdentifier, Token, WireFormatError } from '@fastpath/hadoop-common';
import { KmsMalformedTokenError } from './kms-errors.js';

/** Token kind of KMS delegation tokens (`KMSDelegationToken.TOKEN_KIND_STR`). */
export const KMS_DELEGATION_TOKEN_KIND = 'kms-dt';

// Bound on what the client agrees to parse. Real tokens are about a hundred characters; the
// limit only keeps a pasted file or a hostile answer from costing more than a quick refusal.
const MAX_URL_STRING_LENGTH = 1024 * 1024;

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
  /**
   * Issue time, epoch milliseconds. Hadoop writes any Java long here: beyond 2^53 this is the
   * nearest double, and {@link KmsDelegationToken.decodedIdentifier} has the exact value.
   */
  readonly issueDate: number;
  /**
   * The token cannot be renewed past this time, epoch milliseconds (`Long.MAX_VALUE` for a token
   * that never expires: the nearest double here, exact in {@link KmsDelegationToken.decodedIdentifier}).
   */
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
  readonly #decoded: DelegationTokenIdentifier;

  private constructor(urlString: string, fields: TokenFields, decodedIdentifier: DelegationTokenIdentifier) {
    this.#urlString = urlString;
    this.#decoded = decodedIdentifier;
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
    try {
      const token = Token.fromUrlString(trimmed);
      // Subclasses of the identifier may append fields: the common part is read and the rest is
      // kept in `identifier` untouched.
      const id = DelegationTokenIdentifier.read(token.kind, new DataInput(token.identifier));
      return new KmsDelegationToken(
        trimmed,
        {
          kind: token.kind,
          service: token.service,
          owner: id.owner,
          renewer: id.renewer,
          realUser: id.realUser,
          issueDate: id.issueDate,
          maxDate: id.maxDate,
          sequenceNumber: id.sequenceNumber,
          masterKeyId: id.masterKeyId,
          identifier: token.identifier,
          password: token.password,
        },
        id,
      );
    } catch (err) {
      if (err instanceof WireFormatError) fail(err.message);
      throw err;
    }
  }

  /**
   * The identifier's common fields as Hadoop wrote them, dates exact (bigint beyond 2^53): what a
   * caller needs to compare with or re-create Hadoop's identifier byte for byte.
   */
  get decodedIdentifier(): DelegationTokenIdentifier {
    return this.#decoded;
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

  /**
   * A one-line summary for logs, e.g. `kms-dt token of alice via hive (renewer yarn, sequence
   * number 7)`; never the password or the URL string.
   */
  toString(): string {
    const real = this.realUser === '' || this.realUser === this.owner ? '' : ` via ${this.realUser}`;
    return `${this.kind} token of ${this.owner}${real} (renewer ${this.renewer || '-'}, sequence number ${this.sequenceNumber})`;
  }

  /** What `util.inspect` and `console.log` print: the class name and {@link toJSON}, no secret. */
  [inspect.custom](): string {
    return `KmsDelegationToken ${inspect(this.toJSON())}`;
  }
}
