import type { KmsUser } from './kms-user.js';

/**
 * Hadoop's `AccessControlList` string syntax: `"users groups"`: two comma-separated lists split
 * at the first space; `*` (alone, after trimming, in either part) allows everyone; a single space
 * (two empty lists) allows nobody. Users are matched by short name.
 *
 * @example
 * ```ts
 * const acl = new AccessControlList('alice,bob admins');
 * acl.isUserAllowed(user); // alice, bob, or anyone in group admins
 * ```
 */
export class AccessControlList {
  readonly allAllowed: boolean;
  readonly users: ReadonlySet<string>;
  readonly groups: ReadonlySet<string>;

  constructor(acl: string) {
    const space = acl.indexOf(' ');
    const parts = space === -1 ? [acl] : [acl.slice(0, space), acl.slice(space + 1)];
    this.allAllowed = parts.some((p) => p.includes('*') && p.trim() === '*');
    this.users = new Set(this.allAllowed ? [] : splitList(parts[0] ?? ''));
    this.groups = new Set(this.allAllowed || parts.length < 2 ? [] : splitList(parts[1] ?? ''));
  }

  /** Whether `user` is in the list: everyone with `*`, else by short name or by a group. */
  isUserAllowed(user: KmsUser): boolean {
    if (this.allAllowed || this.users.has(user.shortName)) return true;
    if (this.groups.size === 0) return false;
    return user.groups().some((g) => this.groups.has(g));
  }

  toString(): string {
    if (this.allAllowed) return '*';
    return `${[...this.users].join(',')} ${[...this.groups].join(',')}`;
  }
}

function splitList(list: string): string[] {
  return list
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}
