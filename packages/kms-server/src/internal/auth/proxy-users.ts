import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { KmsRequestError } from '../../kms-errors.js';
import { AccessControlList } from '../acl/access-control-list.js';
import type { KmsUser } from '../acl/kms-user.js';

interface Rule {
  acl: AccessControlList;
  hosts: { any: boolean; list: BlockList } | undefined;
}

const PROXY_KEY = /^hadoop\.kms\.proxyuser\.(.+)\.(users|groups|hosts)$/;

/** Normalises an address as the socket reports it (`::ffff:10.0.0.1` → `10.0.0.1`). */
export function normaliseAddress(address: string | undefined): string {
  if (address === undefined) return '';
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

/**
 * Hadoop's proxy-user rules (`DefaultImpersonationProvider`) from `hadoop.kms.proxyuser.<user>.users`,
 * `.groups` and `.hosts`: the real user may act as a user named in `users`, or in a group of
 * `groups`, and only from an address in `hosts` (IPs, CIDRs, host names, `*`). As in Hadoop, a
 * rule without `hosts` allows no address.
 *
 * @example
 * ```ts
 * const proxies = await ProxyUsers.fromProperties(settings.proxyUserProperties);
 * proxies.authorize(realUser, proxiedUser, '10.0.0.7'); // throws a 403 error if not allowed
 * ```
 */
export class ProxyUsers {
  readonly #rules: ReadonlyMap<string, Rule>;
  readonly warnings: readonly string[];

  private constructor(rules: Map<string, Rule>, warnings: string[]) {
    this.#rules = rules;
    this.warnings = warnings;
  }

  /** Reads the rules; host names are resolved to addresses now (unresolvable ones are warned about). */
  static async fromProperties(properties: ReadonlyMap<string, string>): Promise<ProxyUsers> {
    const parts = new Map<string, { users?: string; groups?: string; hosts?: string }>();
    for (const [key, value] of properties) {
      const m = PROXY_KEY.exec(key);
      if (!m) continue;
      const entry = parts.get(m[1] as string) ?? {};
      entry[m[2] as 'users' | 'groups' | 'hosts'] = value;
      parts.set(m[1] as string, entry);
    }
    const warnings: string[] = [];
    const rules = new Map<string, Rule>();
    for (const [user, p] of parts) {
      const acl = new AccessControlList(`${p.users ?? ''} ${p.groups ?? ''}`);
      let hosts: Rule['hosts'];
      if (p.hosts !== undefined) {
        const list = new BlockList();
        let any = false;
        for (const entry of p.hosts
          .split(',')
          .map((h) => h.trim())
          .filter((h) => h !== '')) {
          if (entry === '*') {
            any = true;
          } else if (entry.includes('/')) {
            const [net, bits] = entry.split('/') as [string, string];
            const family = isIP(net);
            if (family === 0 || !/^\d+$/.test(bits)) {
              warnings.push(`hadoop.kms.proxyuser.${user}.hosts: "${entry}" is not a CIDR range, ignored`);
              continue;
            }
            list.addSubnet(net, Number(bits), family === 6 ? 'ipv6' : 'ipv4');
          } else if (isIP(entry) !== 0) {
            list.addAddress(entry, isIP(entry) === 6 ? 'ipv6' : 'ipv4');
          } else {
            try {
              for (const resolved of await lookup(entry, { all: true })) {
                list.addAddress(resolved.address, resolved.family === 6 ? 'ipv6' : 'ipv4');
              }
            } catch {
              warnings.push(`hadoop.kms.proxyuser.${user}.hosts: cannot resolve "${entry}", ignored`);
            }
          }
        }
        hosts = { any, list };
      }
      rules.set(user, { acl, hosts });
    }
    return new ProxyUsers(rules, warnings);
  }

  /** Throws `ERR_KMS_ACCESS_DENIED` (403) with Hadoop's message unless the rules allow it. */
  authorize(realUser: KmsUser, proxied: KmsUser, remoteAddress: string): void {
    const rule = this.#rules.get(realUser.shortName);
    if (rule === undefined || !rule.acl.isUserAllowed(proxied)) {
      throw new KmsRequestError(
        'ERR_KMS_ACCESS_DENIED',
        `User: ${realUser.name} is not allowed to impersonate ${proxied.name}`,
      );
    }
    const address = normaliseAddress(remoteAddress);
    const family = isIP(address);
    const allowed =
      rule.hosts !== undefined &&
      (rule.hosts.any || (family !== 0 && rule.hosts.list.check(address, family === 6 ? 'ipv6' : 'ipv4')));
    if (!allowed) {
      throw new KmsRequestError(
        'ERR_KMS_ACCESS_DENIED',
        `Unauthorized connection for super-user: ${realUser.name} from IP ${address}`,
      );
    }
  }
}
