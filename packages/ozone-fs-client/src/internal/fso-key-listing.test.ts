import { describe, expect, it } from '@jest/globals';
import { compareInWalk, listFsoKeys, normaliseFsoPrefix, type FsoTree } from './fso-key-listing.js';

// A bucket's directory tree held in memory, answering as the OM does: children in name order,
// startKey inclusive, an absent directory as undefined. Counts calls, so that pruning shows.
function tree(
  files: string[],
  options: { pageCap?: number } = {},
): FsoTree<string> & { calls: number; stats: number; served: number } {
  const entries = new Map<string, boolean>();
  for (const f of files) {
    const parts = f.split('/');
    for (let i = 1; i < parts.length; i++) entries.set(parts.slice(0, i).join('/'), true);
    entries.set(f, false);
  }
  // As the client's own values: a directory listed as `name/`.
  const entry = (name: string): string => (entries.get(name) === true ? `${name}/` : name);
  const t = {
    nameOf: (value: string) => value.replace(/\/$/, ''),
    isDirectory: (value: string) => value.endsWith('/'),
    calls: 0,
    stats: 0,
    /** Entries answered by every children() call. */
    served: 0,
    stat(name: string) {
      t.calls++;
      t.stats++;
      return Promise.resolve(entries.has(name) ? entry(name) : undefined);
    },
    children(dir: string, startKey: string, limit: number) {
      t.calls++;
      // ListStatus of a file answers the file itself, as Ozone's OM does.
      if (entries.get(dir) === false) return Promise.resolve(startKey <= dir ? [entry(dir)] : []);
      if (dir !== '' && entries.get(dir) !== true) return Promise.resolve(undefined);
      const under = dir === '' ? '' : `${dir}/`;
      const page = [...entries.keys()]
        .filter((n) => n.startsWith(under) && !n.slice(under.length).includes('/'))
        .sort()
        .filter((n) => n >= startKey)
        // pageCap: a page shorter than asked although more follow, as a real OM may answer
        // (its FSO listing drops entries deleted or renamed in its cache after counting them).
        .slice(0, Math.min(limit, options.pageCap ?? limit))
        .map(entry);
      t.served += page.length;
      return Promise.resolve(page);
    },
  };
  return t;
}

// The keys Ozone 2.2.0's Java client was given, and what its listKeys answered for each prefix
// on a real cluster (OzoneBucket.listKeys of a FILE_SYSTEM_OPTIMIZED bucket).
const FILES = ['fso/a', 'fso/d/b', 'fso/d/e/c', 'fsox', 'fso-y/z', 'fso/d/f'];
const FSO_SUBTREE = ['fso/', 'fso/a', 'fso/d/', 'fso/d/b', 'fso/d/e/', 'fso/d/e/c', 'fso/d/f'];
const D_SUBTREE = ['fso/d/', 'fso/d/b', 'fso/d/e/', 'fso/d/e/c', 'fso/d/f'];
const JAVA_LISTINGS: Array<[string, string[]]> = [
  ['', [...FSO_SUBTREE, 'fso-y/', 'fso-y/z', 'fsox']],
  ['fs', [...FSO_SUBTREE, 'fso-y/', 'fso-y/z', 'fsox']],
  ['fso', FSO_SUBTREE],
  ['fso/', FSO_SUBTREE],
  ['fso-', ['fso-y/', 'fso-y/z']],
  ['fso/d', D_SUBTREE],
  ['fso/d/', D_SUBTREE],
  ['fso//d', D_SUBTREE],
  ['fso/d/e', ['fso/d/e/', 'fso/d/e/c']],
  ['fso/d/e/', ['fso/d/e/', 'fso/d/e/c']],
  ['fso/d/e/c', ['fso/d/e/c']],
  ['fso/x', []],
  ['nope/', []],
];

const list = (
  t: FsoTree<string>,
  prefix: string,
  more: { startAfter?: string | undefined; count?: number; pageSize?: number } = {},
) =>
  listFsoKeys(t, {
    prefix,
    startAfter: more.startAfter,
    count: more.count ?? 1000,
    pageSize: more.pageSize ?? 1000,
  });

describe('listFsoKeys', () => {
  it.each(JAVA_LISTINGS)('lists prefix %j as Ozone’s Java client does', async (prefix, expected) => {
    expect(await list(tree(FILES), prefix)).toEqual(expected);
  });

  it('gives the same listing with a page of one entry per ListStatus call', async () => {
    for (const [prefix, expected] of JAVA_LISTINGS)
      expect(await list(tree(FILES), prefix, { pageSize: 1 })).toEqual(expected);
  });

  it('walks on after a ListStatus page shorter than asked, and ends a directory only on an empty page', async () => {
    const files = Array.from({ length: 50 }, (_, i) => `d/f${String(i).padStart(2, '0')}`);
    const whole = await list(tree(files), 'd/');
    expect(whole).toHaveLength(51);
    // (A cap of 1 cannot work with any client: a page after the first repeats its start key.)
    for (const pageCap of [2, 3, 999])
      expect(await list(tree(files, { pageCap }), 'd/', { pageSize: 1000 })).toEqual(whole);
  });

  it('continues after startAfter, in the walk’s order, and stops at count', async () => {
    const all = await list(tree(FILES), '');
    for (let i = 0; i < all.length; i++) {
      expect(await list(tree(FILES), '', { startAfter: all[i] })).toEqual(all.slice(i + 1));
      expect(await list(tree(FILES), '', { startAfter: all[i], count: 2 })).toEqual(all.slice(i + 1, i + 3));
    }
    // A startAfter that names no key still places the listing.
    expect(await list(tree(FILES), '', { startAfter: 'fso/d/c' })).toEqual([
      'fso/d/e/',
      'fso/d/e/c',
      'fso/d/f',
      'fso-y/',
      'fso-y/z',
      'fsox',
    ]);
  });

  it('pages a whole bucket by count and startAfter without losing or repeating a key', async () => {
    const files = Array.from({ length: 40 }, (_, i) => `d${i % 3}/s${i % 5}/f${i}`);
    const all = await list(tree(files), '');
    const paged: string[] = [];
    for (let last: string | undefined; ;) {
      const page = await list(tree(files), '', { startAfter: last, count: 7, pageSize: 4 });
      if (page.length === 0) break;
      paged.push(...page);
      last = page[page.length - 1];
    }
    expect(paged).toEqual(all);
    expect(new Set(all).size).toBe(40 + 3 + 15);
  });

  it('does not walk subtrees wholly before startAfter', async () => {
    const files = Array.from({ length: 50 }, (_, i) => `a${String(i).padStart(2, '0')}/x/y`);
    const t = tree(files);
    expect(await list(t, '', { startAfter: 'a48/x/y' })).toEqual(['a49/', 'a49/x/', 'a49/x/y']);
    // Root, a48 and its x, a49 and its x, each directory asked once more to see that it ends:
    // not one call per directory before a48 (walking them would take over 100).
    expect(t.calls).toBeLessThanOrEqual(12);
  });

  it('pages a large directory by startAfter reading each entry about once, not again from its start', async () => {
    const files = Array.from({ length: 3000 }, (_, i) => `big/k-${String(i).padStart(5, '0')}`);
    const t = tree(files);
    const paged: string[] = [];
    for (let last: string | undefined; ;) {
      const page = await list(t, 'big/', { startAfter: last, count: 1000 });
      if (page.length === 0) break;
      paged.push(...page);
      last = page[page.length - 1];
    }
    expect(paged).toEqual(['big/', ...files]);
    // Each page of 1,000 is read once, plus the repeated start entry and the empty page that ends
    // the directory; reading the directory again from its start each time serves 6,000 and more.
    expect(t.served).toBeLessThanOrEqual(3000 + 10);
    // A startAfter under a directory that is gone from the prefix's parent places the walk too.
    expect(await list(tree(files), '', { startAfter: 'big/k-02997' })).toEqual([
      'big/k-02998',
      'big/k-02999',
    ]);
  });

  it('asks no stat of a directory for a later page of its listing', async () => {
    const files = Array.from({ length: 30 }, (_, i) => `d/k-${String(i).padStart(2, '0')}`);
    const t = tree([...files, 'f']);
    expect(await list(t, 'd/', { startAfter: 'd/k-27' })).toEqual(['d/k-28', 'd/k-29']);
    expect(await list(t, 'd/', { startAfter: 'd/' })).toEqual(files);
    expect(t.stats).toBe(0);
    // A prefix naming a file or nothing, with a startAfter past its own entry, lists nothing.
    expect(await list(t, 'f/', { startAfter: 'f/' })).toEqual([]);
    expect(await list(t, 'nope/', { startAfter: 'nope/a' })).toEqual([]);
    // The first page still stats the directory: its own entry leads the listing.
    expect(await list(t, 'd/', { count: 2 })).toEqual(['d/', 'd/k-00']);
    expect(t.stats).toBe(1);
  });

  it('lists nothing for count 0', async () => {
    expect(await list(tree(FILES), '', { count: 0 })).toEqual([]);
  });
});

describe('compareInWalk', () => {
  it('puts a directory before what it holds and siblings in name order', () => {
    expect(compareInWalk('fso/', 'fso/a')).toBeLessThan(0);
    expect(compareInWalk('fso/d/f', 'fso-y/')).toBeLessThan(0); // 'fso' < 'fso-y' as names
    expect(compareInWalk('fso/d/', 'fso/d')).toBe(0);
    expect(compareInWalk('fsox', 'fso-y/z')).toBeGreaterThan(0);
  });
});

describe('normaliseFsoPrefix', () => {
  it('drops a leading slash and repeated slashes', () => {
    expect(normaliseFsoPrefix('/a//b///c/')).toBe('a/b/c/');
  });
});
