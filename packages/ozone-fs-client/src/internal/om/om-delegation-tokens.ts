// The OM's delegation token calls (GetDelegationToken, RenewDelegationToken, CancelDelegationToken)
// and the service a token is given, as Ozone's Java client gives it: the `ip:port` of every OM of
// the service, sorted as text and joined with `,`, so that one token serves whichever OM leads.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { Redacted } from '@fastpath/core';
import { Token } from '@fastpath/hadoop-common';
import { OzoneProtocolError } from '../../ozone-errors.js';
import { has, type hadoop } from '../proto/wire.js';
import type { OmClient } from './om-client.js';

/** `host:port` (an IPv6 host in brackets) → `ip:port`, as Hadoop's buildTokenService with use_ip. */
async function ipAndPort(address: string): Promise<string> {
  const cut = address.lastIndexOf(':');
  const host = address.slice(0, cut).replace(/^\[(.*)\]$/, '$1');
  const port = address.slice(cut + 1);
  const ip = isIP(host) ? host : (await lookup(host)).address;
  return `${ip.includes(':') ? `[${ip}]` : ip}:${port}`;
}

/** The token service of an OM (one address) or an OM service (every node's address). */
export async function omTokenService(addresses: readonly string[]): Promise<string> {
  const each = await Promise.all(addresses.map(ipAndPort));
  return [...new Set(each)].sort().join(',');
}

function tokenProto(token: Token): hadoop.common.ITokenProto {
  return {
    identifier: token.identifier,
    password: token.password.unwrap(),
    kind: token.kind,
    service: token.service,
  };
}

/** GetDelegationToken; `undefined` when the OM runs no secret manager (security off). */
export async function getOmDelegationToken(
  om: OmClient,
  renewer: string,
  service: string,
): Promise<Token | undefined> {
  const r = await om.submit('GetDelegationToken', { getDelegationTokenRequest: { renewer } });
  const inner = r.getDelegationTokenResponse?.response;
  const t = inner !== undefined && inner !== null && has(inner, 'token') ? inner.token : undefined;
  if (t === undefined || t === null) return undefined;
  // The OM names itself in the service; Java's client puts the service of the whole OM service.
  return new Token({
    identifier: t.identifier,
    password: new Redacted(Buffer.from(t.password)),
    kind: t.kind,
    service,
  });
}

/** RenewDelegationToken: the token's new expiry, in ms since the epoch. */
export async function renewOmDelegationToken(om: OmClient, token: Token): Promise<number> {
  const r = await om.submit('RenewDelegationToken', {
    renewDelegationTokenRequest: { token: tokenProto(token) },
  });
  const inner = r.renewDelegationTokenResponse?.response;
  if (inner === undefined || inner === null || !has(inner, 'newExpiryTime')) {
    throw new OzoneProtocolError(om.address, 'RenewDelegationToken answered no new expiry time');
  }
  return Number(inner.newExpiryTime);
}

/** CancelDelegationToken. */
export async function cancelOmDelegationToken(om: OmClient, token: Token): Promise<void> {
  await om.submit('CancelDelegationToken', { cancelDelegationTokenRequest: { token: tokenProto(token) } });
}
