// The block token the OM hands out with each block location (KeyLocation.token, kind
// HDDS_BLOCK_TOKEN) in the form a datanode command carries it: Hadoop's Token URL string in
// ContainerCommandRequestProto.encodedToken (Ozone's ContainerProtocolCalls). On a cluster without
// `hdds.block.token.enabled` the OM sends none, and commands carry none.
import { Redacted } from '@fastpath/core';
import { Token } from '@fastpath/hadoop-common';
import { DatanodeResultError } from '../ozone-errors.js';
import { has, type hadoop } from './proto/wire.js';

/**
 * Whether a datanode refused the block token a command carried (expired, signed with a key it does
 * not hold, for another block or mode). Every replica checks a token alike, so another replica or
 * a wait does not help: only a new token from the OM does.
 */
export function isBlockTokenRefusal(error: unknown): boolean {
  return error instanceof DatanodeResultError && error.result === 'BLOCK_TOKEN_VERIFICATION_FAILED';
}

/** The encoded block token of a key location; `undefined` when the OM sent none. */
export function encodedBlockToken(location: hadoop.ozone.IKeyLocation): string | undefined {
  const t = location.token;
  if (t === undefined || t === null || !has(t, 'identifier')) return undefined;
  return new Token({
    identifier: t.identifier ?? new Uint8Array(0),
    password: new Redacted(Buffer.from(t.password ?? new Uint8Array(0))),
    kind: t.kind ?? '',
    service: t.service ?? '',
  }).toUrlString();
}
