// Which Kerberos principal a client accepts for a server (Hadoop RPC spec §3.5, Hadoop's
// SaslRpcClient#getServerPrincipal): the server advertises `protocol/serverId`; the client takes
// the configured principal (e.g. `ozone.om.kerberos.principal`), with `_HOST` as its host part
// replaced by the canonical name of the server's address, and refuses a server that advertises
// anything else. So a man in the middle holding some other service's key cannot pose as the OM.
import { lookup, lookupService } from 'node:dns/promises';
import { isIP } from 'node:net';

/** `name` split as Hadoop splits a principal: `service/host@REALM` (host and realm optional). */
export function splitPrincipal(name: string): { service: string; host?: string; realm?: string } {
  const match = /^([^/@]+)(?:\/([^/@]*))?(?:@(.*))?$/.exec(name);
  if (match === null) return { service: name };
  return {
    service: match[1] as string,
    ...(match[2] === undefined ? {} : { host: match[2] }),
    ...(match[3] === undefined ? {} : { realm: match[3] }),
  };
}

/**
 * The lower-cased canonical host name of `host` as Java's `InetAddress#getCanonicalHostName` gives
 * it: the address (resolved first if `host` is a name) looked up through the system resolver
 * (`/etc/hosts`, then DNS), any trailing dot removed; the address itself when it has no name.
 */
export async function canonicalHostName(host: string): Promise<string> {
  const address = isIP(host) ? host : (await lookup(host)).address;
  try {
    const { hostname } = await lookupService(address, 1);
    return hostname.replace(/\.$/, '').toLowerCase();
  } catch {
    return address;
  }
}

/** A glob as Hadoop's `GlobFilter` reads `…kerberos.principal.pattern`: `*`, `?`, `[…]`, `{a,b}`. */
export function globToRegExp(glob: string): RegExp {
  let out = '';
  let inGroup = false;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '\\' && i + 1 < glob.length) out += `\\${glob[++i] as string}`;
    else if (c === '*') out += '.*';
    else if (c === '?') out += '.';
    else if (c === '{') {
      inGroup = true;
      out += '(?:';
    } else if (c === '}' && inGroup) {
      inGroup = false;
      out += ')';
    } else if (c === ',' && inGroup) out += '|';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 1);
      if (end === -1) out += '\\[';
      else {
        out += `[${glob
          .slice(i + 1, end)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else out += c.replace(/[.+^$()|\]\\]/g, '\\$&');
  }
  return new RegExp(`^${out}$`);
}

/** What the client expects of the server's principal. */
export interface ServerPrincipalRule {
  /** The configured principal, `_HOST` allowed as its host part. */
  principal?: string | undefined;
  /** A glob the advertised principal must match instead (`…kerberos.principal.pattern`). */
  pattern?: string | undefined;
}

/**
 * Checks the advertised `protocol/serverId` (the realm is the client's default one, as the JDK
 * adds it) against the rule; resolves with the problem's text, or `undefined` when it is accepted.
 */
export async function checkServerPrincipal(
  advertised: { protocol: string; serverId: string },
  rule: ServerPrincipalRule,
  serverHost: string,
  defaultRealm: string,
): Promise<string | undefined> {
  const withRealm = (name: string): string =>
    name.includes('@') || defaultRealm === '' ? name : `${name}@${defaultRealm}`;
  const offered = withRealm(`${advertised.protocol}/${advertised.serverId}`);
  if (rule.pattern !== undefined) {
    return globToRegExp(rule.pattern).test(offered)
      ? undefined
      : `Server has invalid Kerberos principal: ${offered}, doesn't match the pattern: ${rule.pattern}`;
  }
  const configured = rule.principal ?? '';
  const parts = splitPrincipal(configured);
  const host = parts.host === '_HOST' ? await canonicalHostName(serverHost) : parts.host;
  if (host === undefined || host === '') {
    return `the configured server principal ${configured} has no host part (service/host@REALM)`;
  }
  const expected = withRealm(`${parts.service}/${host}${parts.realm === undefined ? '' : `@${parts.realm}`}`);
  return offered === expected
    ? undefined
    : `Server has invalid Kerberos principal: ${offered}, expecting: ${expected}`;
}
