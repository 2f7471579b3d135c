// The identifier of an OM delegation token (kind `OzoneToken`): the serialized OMTokenProto with
// no length prefix (Ozone's OzoneTokenIdentifier#write), not Hadoop's Writable identifier layout.
import { OzoneInvalidArgumentError } from './ozone-errors.js';
import { has, om } from './internal/proto/wire.js';

/** The token kind of an Ozone Manager delegation token. */
export const OZONE_TOKEN_KIND = 'OzoneToken';

/** What an OM delegation token's identifier says (times in ms since the epoch). */
export interface OzoneTokenIdentifier {
  /** `DELEGATION_TOKEN` (or `S3AUTHINFO` for the S3 gateway's). */
  readonly type: string;
  /** The user the token authenticates (the full principal the OM saw, e.g. `alice@EXAMPLE.COM`). */
  readonly owner: string;
  /** Who may renew it (a short user name); `''` for nobody. */
  readonly renewer: string;
  /** The real user behind a proxy user; `''` when none. */
  readonly realUser: string;
  /** When the OM issued it. */
  readonly issueDate: number;
  /** Past this the token cannot be renewed any more. */
  readonly maxDate: number;
  /** The OM's number for the token, unique per OM service. */
  readonly sequenceNumber: number;
  /** The OM master key it was signed under (older OMs; current ones name `secretKeyId`). */
  readonly masterKeyId: number;
  /** The SCM secret key that signs it (current OMs); `undefined` for tokens signed otherwise. */
  readonly secretKeyId: string | undefined;
  /** The OM service id, when the OM has one. */
  readonly omServiceId: string | undefined;
}

/**
 * Reads an OM delegation token's identifier bytes.
 *
 * @throws OzoneInvalidArgumentError when the bytes are no OMTokenProto
 * @example
 * ```ts
 * const id = decodeOzoneTokenIdentifier(token.identifier);
 * console.log(id.owner, new Date(id.maxDate));
 * ```
 */
export function decodeOzoneTokenIdentifier(bytes: Uint8Array): OzoneTokenIdentifier {
  let m: ReturnType<typeof om.OMTokenProto.decode>;
  try {
    m = om.OMTokenProto.decode(bytes);
  } catch (error) {
    throw new OzoneInvalidArgumentError(`not an OzoneToken identifier: ${(error as Error).message}`);
  }
  const text = (key: string, value: string): string | undefined => (has(m, key) ? value : undefined);
  return Object.freeze({
    type: om.OMTokenProto.Type[m.type] ?? String(m.type),
    owner: m.owner,
    renewer: m.renewer,
    realUser: m.realUser,
    issueDate: Number(m.issueDate),
    maxDate: Number(m.maxDate),
    sequenceNumber: m.sequenceNumber,
    masterKeyId: m.masterKeyId,
    secretKeyId: text('secretKeyId', m.secretKeyId),
    omServiceId: text('omServiceId', m.omServiceId),
  });
}
