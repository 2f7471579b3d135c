import { DeadlineSet } from './deadline-set.js';

/** Resolves once `set` has expired `n` items, with what it expired in order. */
function expiring<T>(): { set: DeadlineSet<T>; expired: T[]; after: (n: number) => Promise<T[]> } {
  const expired: T[] = [];
  let waiting: { n: number; resolve: (items: T[]) => void } | undefined;
  const set = new DeadlineSet<T>((item) => {
    expired.push(item);
    if (waiting && expired.length >= waiting.n) waiting.resolve([...expired]);
  });
  return {
    set,
    expired,
    after: (n) =>
      new Promise((resolve) => {
        if (expired.length >= n) resolve([...expired]);
        else waiting = { n, resolve };
      }),
  };
}

describe('DeadlineSet', () => {
  it('expires each item at its own deadline, the later-added earlier ones first', async () => {
    const started = performance.now();
    const at: Array<[string, number]> = [];
    let done!: () => void;
    const all = new Promise<void>((resolve) => (done = resolve));
    const set = new DeadlineSet<string>((item) => {
      at.push([item, performance.now() - started]);
      if (at.length === 3) done();
    });
    set.add('a', 300);
    set.add('b', 50);
    set.add('c', 150);
    await all;
    expect(at.map(([item]) => item)).toEqual(['b', 'c', 'a']);
    // None before its time.
    for (const [item, ms] of at) expect(ms).toBeGreaterThanOrEqual({ a: 299, b: 49, c: 149 }[item]!);
    expect(set.size).toBe(0);
  });

  it('never expires an item deleted in time, and clear() forgets them all', async () => {
    const { set, expired, after } = expiring<object>();
    const answered = {};
    const late = {};
    set.add(answered, 30);
    set.add(late, 60);
    expect(set.delete(answered)).toBe(true);
    expect(await after(1)).toEqual([late]);
    const forgotten = {};
    set.add(forgotten, 20);
    set.clear();
    expect(set.size).toBe(0);
    const marker = {};
    set.add(marker, 80);
    expect(await after(2)).toEqual([late, marker]);
    expect(expired).not.toContain(answered);
    expect(expired).not.toContain(forgotten);
  });

  it('moves an item added again to its new deadline', async () => {
    const { set, after } = expiring<string>();
    set.add('x', 40);
    set.add('y', 120);
    set.add('x', 200);
    expect(await after(2)).toEqual(['y', 'x']);
  });
});
