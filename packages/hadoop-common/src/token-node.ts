import { DataInput } from './data-input.js';
import { DataOutput } from './data-output.js';
import { DelegationTokenIdentifier } from './delegation-token-identifier.js';
import { checkBytes, checkLong } from './internal/field-checks.js';
import { TOKEN_MAX_IDENTIFIER_BYTES, TOKEN_MAX_PASSWORD_BYTES } from './token.js';
import { WireFormatError } from './wire-format-error.js';

/** What a ZooKeeper token node (`DT_<sequenceNumber>`) holds. */
export interface TokenNodePayload {
  /** The identifier bytes, as in the token. */
  identifier: Buffer;
  /** Time until which the token is valid unless renewed, epoch ms: a Java `long` (bigint beyond 2^53). */
  renewDate: number | bigint;
  /** The token password. */
  password: Buffer;
}

/** A token node read back, with its identifier parsed. */
export interface DecodedTokenNode {
  /** The identifier, parsed field by field with the `kind` given to {@link decodeTokenNode}. */
  identifier: DelegationTokenIdentifier;
  /** Renew date, epoch ms, as a number: exact up to 2^53, the nearest double beyond. */
  renewDate: number;
  /** Renew date, epoch ms, exactly as stored. */
  renewDateLong: bigint;
  /** The token password (the HMAC of the identifier bytes), as stored; a secret, not to be logged. */
  password: Buffer;
}

/**
 * Serialises a token node the way Hadoop's ZooKeeper secret manager does: identifier bytes, then
 * renewDate as an 8-byte big-endian long, password length as a 4-byte big-endian int, password.
 *
 * @example
 * ```ts
 * zk.create(`/zkdtsm/ZKDTSMRoot/ZKDTSMTokensRoot/DT_${id.sequenceNumber}`,
 *   encodeTokenNode({ identifier: id.bytes, renewDate, password }));
 * ```
 */
export function encodeTokenNode(payload: TokenNodePayload): Buffer {
  if (typeof payload !== 'object' || payload === null)
    throw new WireFormatError('token node must be an object');
  const identifier = checkBytes('token node identifier', payload.identifier, TOKEN_MAX_IDENTIFIER_BYTES);
  const renewDate = checkLong('renewDate', payload.renewDate);
  const password = checkBytes('token node password', payload.password, TOKEN_MAX_PASSWORD_BYTES);
  return new DataOutput(identifier.length + password.length + 12)
    .writeRaw(identifier)
    .writeInt64(renewDate)
    .writeInt32(password.length)
    .writeRaw(password)
    .toBuffer();
}

/**
 * Reads a token node. The identifier has no length prefix, so it is parsed field by field (as
 * Hadoop does) and the renew date follows wherever it ends; the node must end after the password.
 *
 * @example
 * ```ts
 * const { identifier, renewDate, password } = decodeTokenNode('kms-dt', data);
 * ```
 */
export function decodeTokenNode(kind: string, bytes: Uint8Array): DecodedTokenNode {
  const input = new DataInput(bytes);
  const identifier = DelegationTokenIdentifier.read(kind, input);
  const renewDateLong = input.readInt64();
  const passwordLength = input.readInt32();
  if (passwordLength < 0)
    throw new WireFormatError(`token node password length ${passwordLength} is negative`);
  if (passwordLength > TOKEN_MAX_PASSWORD_BYTES) {
    throw new WireFormatError(
      `token node password length ${passwordLength} is more than the maximum ${TOKEN_MAX_PASSWORD_BYTES}`,
    );
  }
  const password = input.readRaw(passwordLength);
  input.expectEnd();
  return { identifier, renewDate: Number(renewDateLong), renewDateLong, password };
}
