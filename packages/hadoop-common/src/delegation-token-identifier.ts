import { DataInput, TEXT_DEFAULT_MAX_LEN } from './data-input.js';
import { DataOutput } from './data-output.js';
import { checkInt32, checkLong, checkText, exactLong } from './internal/field-checks.js';
import { WireFormatError } from './wire-format-error.js';

/** The only identifier layout version Hadoop writes and reads. */
export const DELEGATION_TOKEN_IDENTIFIER_VERSION = 0;

/** The fields of a delegation token identifier (Hadoop's `AbstractDelegationTokenIdentifier`). */
export interface DelegationTokenIdentifierFields {
  /** The user the token authenticates as; empty when unknown. */
  owner: string;
  /** The user allowed to renew the token; empty means nobody. */
  renewer: string;
  /** The user that requested the token on behalf of `owner` (proxy users); often empty. */
  realUser: string;
  /**
   * Issue time, epoch ms: a Java `long`. A safe integer, or a bigint for values beyond 2^53 (a
   * number there would already be rounded).
   */
  issueDate: number | bigint;
  /** Time after which the token can no longer be renewed, epoch ms; a Java `long` as `issueDate`. */
  maxDate: number | bigint;
  /** Sequence number handed out by the secret manager (32-bit signed). */
  sequenceNumber: number;
  /** Id of the master key the password was computed with (32-bit signed). */
  masterKeyId: number;
}

/**
 * An immutable delegation token identifier whose {@link bytes} are exactly what Hadoop writes
 * (version 0): version byte, owner, renewer and realUser as Text, issueDate and maxDate as VLong,
 * sequenceNumber and masterKeyId as VInt. The kind is not part of the bytes (the token carries it).
 *
 * Dates are Java longs over their full range (Hadoop writes `Long.MAX_VALUE` as the `maxDate` of
 * tokens that never expire): {@link issueDateLong} and {@link maxDateLong} hold them exactly, and
 * {@link issueDate} and {@link maxDate} as numbers for comparing with clocks (exact up to 2^53,
 * the nearest double beyond, which keeps their order). Sequence number and master key id are Java
 * ints over their full range.
 *
 * A string field whose UTF-8 form is {@link TEXT_DEFAULT_MAX_LEN} bytes or more is refused with
 * "<field> is too long to be serialized!": Hadoop refuses to write more than that limit and its
 * reader refuses exactly that limit, so such an identifier could never be read back anywhere.
 *
 * @example
 * ```ts
 * const id = new DelegationTokenIdentifier('kms-dt', {
 *   owner: 'alice', renewer: 'yarn', realUser: '',
 *   issueDate: now, maxDate: now + 7 * 86_400_000, sequenceNumber: 1, masterKeyId: 1,
 * });
 * const same = DelegationTokenIdentifier.decode('kms-dt', id.bytes);
 * same.key === id.key; // true
 * ```
 */
export class DelegationTokenIdentifier {
  /** Token kind, e.g. `kms-dt`; not part of {@link DelegationTokenIdentifier.bytes} but part of equality. */
  readonly kind: string;
  /** The user the token authenticates as; empty when unknown. */
  readonly owner: string;
  /** The user allowed to renew the token; empty means nobody. */
  readonly renewer: string;
  /** The user that requested the token on behalf of `owner` (proxy users); often empty. */
  readonly realUser: string;
  /** Issue time, epoch ms, as a number (see the class comment for values beyond 2^53). */
  readonly issueDate: number;
  /** Max date, epoch ms, as a number (see the class comment for values beyond 2^53). */
  readonly maxDate: number;
  /** Sequence number handed out by the secret manager (32-bit signed); names the token's `DT_<n>` node. */
  readonly sequenceNumber: number;
  /** Id of the master key ({@link DelegationKey.keyId}) the password was computed with (32-bit signed). */
  readonly masterKeyId: number;
  /** The Hadoop serialisation, computed once. Shared: do not modify it. */
  readonly bytes: Buffer;
  /**
   * A string that is equal for two identifiers exactly when kind and every field are equal
   * (Hadoop's identifier equality), for use as a map key.
   */
  readonly key: string;
  // Private, behind getters, so that JSON.stringify of an identifier (logs, answers) never meets
  // a bigint, which it cannot serialise.
  readonly #issueDateLong: bigint;
  readonly #maxDateLong: bigint;

  constructor(kind: string, fields: DelegationTokenIdentifierFields) {
    if (typeof fields !== 'object' || fields === null) {
      throw new WireFormatError('identifier fields must be an object');
    }
    this.kind = checkText('kind', kind, TEXT_DEFAULT_MAX_LEN);
    this.owner = checkText('owner', fields.owner, TEXT_DEFAULT_MAX_LEN);
    this.renewer = checkText('renewer', fields.renewer, TEXT_DEFAULT_MAX_LEN);
    this.realUser = checkText('realUser', fields.realUser, TEXT_DEFAULT_MAX_LEN);
    this.#issueDateLong = checkLong('issueDate', fields.issueDate);
    this.#maxDateLong = checkLong('maxDate', fields.maxDate);
    this.issueDate = Number(this.#issueDateLong);
    this.maxDate = Number(this.#maxDateLong);
    this.sequenceNumber = checkInt32('sequenceNumber', fields.sequenceNumber);
    this.masterKeyId = checkInt32('masterKeyId', fields.masterKeyId);
    this.bytes = new DataOutput()
      .writeByte(DELEGATION_TOKEN_IDENTIFIER_VERSION)
      .writeText(this.owner)
      .writeText(this.renewer)
      .writeText(this.realUser)
      .writeVLong(this.#issueDateLong)
      .writeVLong(this.#maxDateLong)
      .writeVInt(this.sequenceNumber)
      .writeVInt(this.masterKeyId)
      .toBuffer();
    // The kind is length-prefixed, so kind and bytes cannot run into each other.
    this.key = new DataOutput(this.bytes.length + 16)
      .writeText(this.kind)
      .writeRaw(this.bytes)
      .toBuffer()
      .toString('hex');
    if (new.target === DelegationTokenIdentifier) Object.freeze(this);
  }

  /** Issue time, epoch ms, exactly as on the wire. */
  get issueDateLong(): bigint {
    return this.#issueDateLong;
  }

  /** Max date, epoch ms, exactly as on the wire. */
  get maxDateLong(): bigint {
    return this.#maxDateLong;
  }

  /**
   * Reads an identifier that must fill `bytes` exactly. Accepts everything Hadoop's reader accepts
   * (for instance a non-minimal VLong); {@link DelegationTokenIdentifier.bytes} of the result are then the canonical form.
   */
  static decode(kind: string, bytes: Uint8Array): DelegationTokenIdentifier {
    const input = new DataInput(bytes);
    const identifier = DelegationTokenIdentifier.read(kind, input);
    input.expectEnd();
    return identifier;
  }

  /** Reads one identifier from `input` and leaves the reader just after it (for enclosing records). */
  static read(kind: string, input: DataInput): DelegationTokenIdentifier {
    const version = input.readByte();
    if (version !== DELEGATION_TOKEN_IDENTIFIER_VERSION) {
      throw new WireFormatError(`Unknown version of delegation token ${version}`);
    }
    const owner = input.readText(TEXT_DEFAULT_MAX_LEN);
    const renewer = input.readText(TEXT_DEFAULT_MAX_LEN);
    const realUser = input.readText(TEXT_DEFAULT_MAX_LEN);
    const issueDate = input.readVLong();
    const maxDate = input.readVLong();
    const sequenceNumber = input.readVInt();
    const masterKeyId = input.readVInt();
    return new DelegationTokenIdentifier(kind, {
      owner,
      renewer,
      realUser,
      issueDate,
      maxDate,
      sequenceNumber,
      masterKeyId,
    });
  }

  /** A copy with some fields replaced; this identifier is unchanged. */
  with(changes: Partial<DelegationTokenIdentifierFields>): DelegationTokenIdentifier {
    return new DelegationTokenIdentifier(this.kind, { ...this.toFields(), ...changes });
  }

  /** The fields as a plain object, dates exact (numbers where safe, bigints beyond). */
  toFields(): DelegationTokenIdentifierFields {
    return {
      owner: this.owner,
      renewer: this.renewer,
      realUser: this.realUser,
      issueDate: exactLong(this.#issueDateLong),
      maxDate: exactLong(this.#maxDateLong),
      sequenceNumber: this.sequenceNumber,
      masterKeyId: this.masterKeyId,
    };
  }

  /** Hadoop equality: same kind and all fields equal. */
  equals(other: unknown): boolean {
    return other instanceof DelegationTokenIdentifier && other.key === this.key;
  }

  /**
   * Hadoop's form: the kind, then every field by name (`owner=…, renewer=…, …, masterKeyId=…`),
   * dates exact.
   */
  toString(): string {
    return (
      `${this.kind} owner=${this.owner}, renewer=${this.renewer}, realUser=${this.realUser}, ` +
      `issueDate=${this.#issueDateLong}, maxDate=${this.#maxDateLong}, sequenceNumber=${this.sequenceNumber}, ` +
      `masterKeyId=${this.masterKeyId}`
    );
  }
}
