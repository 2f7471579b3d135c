import { lookup, lookupService } from 'node:dns/promises';
import { isIP } from 'node:net';

/**
 * The host part of a ZooKeeper server's principal as ZooKeeper's Java client forms it: with
 * canonicalisation (its default) the canonical name of the server's address (the address resolved
 * from `host`, then reverse-resolved through the system resolver), unless that name is only the
 * address again, in which case `host` as written; without it, `host` as written. Lower-cased, as
 * Kerberos names a host-based service.
 */
export async function serverPrincipalHost(host: string, canonicalize: boolean): Promise<string> {
  if (!canonicalize) return host.toLowerCase();
  let address: string;
  try {
    address = isIP(host) ? host : (await lookup(host)).address;
  } catch {
    return host.toLowerCase();
  }
  try {
    const { hostname } = await lookupService(address, 1);
    const name = hostname.replace(/\.$/, '');
    return (name === '' || name === address ? host : name).toLowerCase();
  } catch {
    return host.toLowerCase();
  }
}
