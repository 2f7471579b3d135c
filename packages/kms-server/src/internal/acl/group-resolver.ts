import { readFileSync } from 'node:fs';
import { systemClock, type Clock } from '@fastpath/core';

/** Options of {@link GroupResolver}. */
export interface GroupResolverOptions {
  /** Fixed groups per user, consulted first (Hadoop's static mapping overrides). */
  staticMapping?: ReadonlyMap<string, readonly string[]>;
  /** `unix`: the user's primary and supplementary groups from /etc/passwd and /etc/group; `none`: no groups. */
  mapping?: 'unix' | 'none';
  /** How long the group files' content is reused, in ms. Default: 300 000. */
  cacheMs?: number;
  /** The files to read (tests). Default: `/etc/passwd`, `/etc/group`. */
  passwdFile?: string;
  groupFile?: string;
  clock?: Clock;
}

interface UnixGroups {
  readonly loadedMs: number;
  readonly byUser: Map<string, string[]>;
}

/**
 * Finds a user's groups for ACLs, like Hadoop's `Groups` with the static overrides in front of a
 * Unix mapping. The Unix mapping reads the local group files (not NSS/LDAP) and caches them.
 */
export class GroupResolver {
  readonly #static: ReadonlyMap<string, readonly string[]>;
  readonly #mapping: 'unix' | 'none';
  readonly #cacheMs: number;
  readonly #passwdFile: string;
  readonly #groupFile: string;
  readonly #clock: Clock;
  #unix: UnixGroups | undefined;

  constructor(options: GroupResolverOptions = {}) {
    this.#static = options.staticMapping ?? new Map();
    this.#mapping = options.mapping ?? 'unix';
    this.#cacheMs = options.cacheMs ?? 300_000;
    this.#passwdFile = options.passwdFile ?? '/etc/passwd';
    this.#groupFile = options.groupFile ?? '/etc/group';
    this.#clock = options.clock ?? systemClock;
  }

  groupsOf(shortName: string): readonly string[] {
    const fixed = this.#static.get(shortName);
    if (fixed !== undefined) return fixed;
    if (this.#mapping === 'none') return [];
    const now = this.#clock.now();
    if (this.#unix === undefined || now - this.#unix.loadedMs > this.#cacheMs) {
      this.#unix = { loadedMs: now, byUser: this.#loadUnix() };
    }
    return this.#unix.byUser.get(shortName) ?? [];
  }

  #loadUnix(): Map<string, string[]> {
    const read = (file: string): string[] => {
      try {
        return readFileSync(file, 'utf8').split('\n');
      } catch {
        return [];
      }
    };
    const groupNameById = new Map<string, string>();
    const byUser = new Map<string, string[]>();
    const add = (user: string, group: string): void => {
      const list = byUser.get(user) ?? [];
      if (!list.includes(group)) list.push(group);
      byUser.set(user, list);
    };
    const groupLines = read(this.#groupFile).map((l) => l.split(':'));
    for (const [name, , gid] of groupLines) if (name && gid) groupNameById.set(gid, name);
    for (const [user, , , gid] of read(this.#passwdFile).map((l) => l.split(':'))) {
      const primary = gid === undefined ? undefined : groupNameById.get(gid);
      if (user && primary) add(user, primary);
    }
    for (const [name, , , members] of groupLines) {
      if (!name || !members) continue;
      for (const member of members.split(',').map((m) => m.trim())) if (member) add(member, name);
    }
    return byUser;
  }
}
