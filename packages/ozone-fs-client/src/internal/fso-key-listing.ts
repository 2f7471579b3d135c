/**
 * Key listings of file-system-optimized (FSO) buckets. Ozone's OM keeps an FSO bucket's files
 * under their parent directory's id, so its `ListKeys` answers such a bucket with no keys at all;
 * Ozone's own Java client lists one by walking the directory tree with `ListStatus` instead. This
 * walk gives what Ozone 2.2.0's Java client gives (checked against it on a real cluster):
 *
 * - a pre-order walk, each directory's children in the OM's (name) order, a directory listed as
 *   `name/` before what it holds;
 * - a prefix that names a file or directory exactly lists that entry and everything under it
 *   (`a/b` and `a/b/` alike, and not a sibling `a/bc`); any other prefix lists the entries of its
 *   parent directory whose names start with its last part, each with everything under it;
 * - repeated slashes and a leading slash in the prefix are ignored, as Ozone normalises key names.
 */

/**
 * The OM calls the walk needs, and how to read the entries they answer. An entry is what the
 * caller keeps of a file or directory (e.g. a key listing), what the listing returns for it: the
 * walk makes no object of its own per entry, a 1,000-entry page is 1,000 objects less garbage.
 */
export interface FsoTree<T> {
  /** The entry named exactly `name`, or `undefined` when there is none. */
  stat(name: string): Promise<T | undefined>;
  /**
   * Up to `limit` children of directory `dir` ('' for the bucket's root) in name order, from
   * `startKey` (a full key name, inclusive, as Ozone's `ListStatus` has it; '' for the first);
   * `undefined` when the directory does not exist.
   */
  children(dir: string, startKey: string, limit: number): Promise<readonly T[] | undefined>;
  /** An entry's full key name without a trailing slash. */
  nameOf(entry: T): string;
  isDirectory(entry: T): boolean;
}

/** What to list. */
export interface FsoListing {
  prefix: string;
  /** Only keys after this one in the walk's order. */
  startAfter: string | undefined;
  count: number;
  /** Entries asked of `ListStatus` per call. */
  pageSize: number;
}

/** Ozone's key-name normalisation as far as a listing prefix needs it. */
export function normaliseFsoPrefix(prefix: string): string {
  return prefix.replace(/\/{2,}/g, '/').replace(/^\//, '');
}

function components(key: string): string[] {
  return key.replace(/\/+$/, '').split('/');
}

/**
 * Where `a` comes relative to `b` in the walk: negative before, 0 the same entry, positive after.
 * A directory comes before everything under it; siblings in name order.
 */
export function compareInWalk(a: string, b: string): number {
  const x = components(a);
  const y = components(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const [p, q] = [x[i] as string, y[i] as string];
    if (p !== q) return p < q ? -1 : 1;
  }
  return x.length - y.length;
}

function isAncestor(dir: string, key: string): boolean {
  const x = components(dir);
  const y = components(key);
  return x.length < y.length && x.every((c, i) => c === y[i]);
}

/**
 * Lists an FSO bucket's keys as Ozone's Java client does (see the module comment): the values of
 * the entries listed, in the walk's order.
 */
export async function listFsoKeys<T>(tree: FsoTree<T>, listing: FsoListing): Promise<T[]> {
  // Made at the size most listings end with (one page, or `count` when less) and trimmed to what
  // was listed: grown by pushes, a 1,000-entry listing's array is reallocated nine times.
  const out = new Array<T>(Math.max(0, Math.min(listing.count, listing.pageSize)));
  out.length = await walkFso(tree, listing, out);
  return out;
}

/** The walk behind {@link listFsoKeys}: places the entries listed in `out` from index 0; how many. */
async function walkFso<T>(tree: FsoTree<T>, listing: FsoListing, out: T[]): Promise<number> {
  let n = 0;
  const { startAfter, count, pageSize } = listing;
  const full = () => n >= count;

  // Lists an entry unless it comes at or before startAfter, and says whether the walk goes into it:
  // a directory, unless it and everything under it come before startAfter. Synchronous, so that a
  // page of files costs no promise per entry.
  const place = (entry: T): boolean => {
    const isDirectory = tree.isDirectory(entry);
    if (startAfter !== undefined) {
      const key = isDirectory ? `${tree.nameOf(entry)}/` : tree.nameOf(entry);
      if (compareInWalk(key, startAfter) <= 0)
        return isDirectory && (isAncestor(key, startAfter) || compareInWalk(key, startAfter) === 0);
    }
    out[n++] = entry;
    return isDirectory;
  };

  // Walks what a directory the walk goes into holds.
  const descend = (dir: T): Promise<void> => {
    const name = tree.nameOf(dir);
    return walkChildren(name, seekFrom(name, ''), () => true);
  };

  // Where a directory's children start to matter: at its child on the path to startAfter when
  // startAfter lies under it (ListStatus's startKey is inclusive, so that child is visited again
  // and what it holds up to startAfter skipped). Everything before it in name order comes before
  // startAfter in the walk, so a caller paging a large directory by startAfter reads each page
  // once instead of the directory again from its start.
  const afterPath = startAfter === undefined ? undefined : components(startAfter);
  const seekFrom = (dir: string, from: string): string => {
    const path = afterPath;
    if (startAfter === undefined || path === undefined) return from;
    const depth = dir === '' ? 0 : components(dir).length;
    if (path.length <= depth || (dir !== '' && !isAncestor(`${dir}/`, startAfter))) return from;
    const child = path.slice(0, depth + 1).join('/');
    return child > from ? child : from;
  };

  const walkChildren = async (dir: string, from: string, keep: (e: T) => boolean): Promise<void> => {
    let startKey = from;
    for (let first = true; ; first = false) {
      // startKey is inclusive: a page after the first repeats the previous page's last entry, so
      // it asks for one more, and always moves on. Never more than the listing can still take
      // (plus that repeated entry): a caller paging by startAfter would drop the rest.
      const ask = Math.min(first ? pageSize : pageSize + 1, count - n + 1);
      const page = await tree.children(dir, startKey, ask);
      if (page === undefined) return;
      const fresh = first ? page : page.filter((e) => tree.nameOf(e) !== startKey);
      // Indexed, not for-of: in an async function the iterator's result objects are not optimised
      // away, one more object per entry of a 1,000-entry page.
      for (let i = 0; i < fresh.length; i++) {
        const entry = fresh[i] as T;
        if (!keep(entry)) return;
        if (place(entry) && !full()) await descend(entry);
        if (full()) return;
      }
      // A short page does not mean the directory is done: Ozone's OM may answer fewer entries
      // than asked while more follow (its FSO listing drops, after counting them, entries its
      // cache holds as deleted or renamed). Only a page with nothing new ends it, as in Ozone's
      // Java client, at the price of one more call per directory.
      if (fresh.length === 0) return;
      startKey = tree.nameOf(page[page.length - 1] as T);
    }
  };

  if (count <= 0) return n;
  const prefix = normaliseFsoPrefix(listing.prefix);
  const base = prefix.replace(/\/+$/, '');
  if (
    base !== '' &&
    prefix.endsWith('/') &&
    startAfter !== undefined &&
    compareInWalk(`${base}/`, startAfter) <= 0
  ) {
    // A later page of a directory's listing: the directory's own entry came before startAfter,
    // so it needs no stat, only what it holds (nothing when there is no such directory).
    await walkChildren(base, seekFrom(base, ''), () => true);
    return n;
  }
  if (base !== '') {
    const exact = await tree.stat(base);
    if (exact !== undefined) {
      if (place(exact) && !full()) await descend(exact);
      return n;
    }
    // A prefix ending in '/' names a directory; there is none.
    if (prefix.endsWith('/')) return n;
  }
  const slash = base.lastIndexOf('/');
  const parent = slash < 0 ? '' : base.slice(0, slash);
  const leaf = base.slice(slash + 1);
  const leafOf = (e: T) => {
    const name = tree.nameOf(e);
    return name.slice(name.lastIndexOf('/') + 1);
  };
  // Children come in name order, so those starting with `leaf` are one run from `parent/leaf`.
  await walkChildren(
    parent,
    seekFrom(parent, leaf === '' ? '' : parent === '' ? leaf : `${parent}/${leaf}`),
    (e) => leafOf(e).startsWith(leaf),
  );
  return n;
}
