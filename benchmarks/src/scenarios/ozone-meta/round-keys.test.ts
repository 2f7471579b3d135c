import { describe, expect, it } from '@jest/globals';
import { RoundKeys } from './round-keys.js';

describe("a client's keys in one round", () => {
  it('creates fresh names, goes round them, renames the empty keys, deletes renamed then 1-byte keys', () => {
    const k = new RoundKeys('c/r1');
    const e0 = k.nextCreate('create-empty', 0);
    const e1 = k.nextCreate('create-empty', 0);
    const b0 = k.nextCreate('create-1b', 3);
    expect([e0, e1, b0]).toEqual(['c/r1/e/w0-0', 'c/r1/e/w0-1', 'c/r1/b/w3-0']);
    for (const n of [e0, e1]) k.created('create-empty', n);
    k.created('create-1b', b0);
    expect([k.nextExisting(), k.nextExisting(), k.nextExisting(), k.nextExisting()]).toEqual([
      { name: e0, size: 0 },
      { name: e1, size: 0 },
      { name: b0, size: 1 },
      { name: e0, size: 0 },
    ]);
    const m = k.nextRename()!;
    expect(m).toEqual({ from: e0, to: 'c/r1/e/w0-0.renamed' });
    k.renamed(m);
    expect(k.nextRename()).toEqual({ from: e1, to: 'c/r1/e/w0-1.renamed' }); // taken, its rename failed
    expect(k.nextRename()).toBeUndefined();
    expect(k.nextDelete()).toBe('c/r1/e/w0-0.renamed');
    k.deleted('c/r1/e/w0-0.renamed');
    expect(k.nextDelete()).toBe(b0);
    expect(k.nextDelete()).toBeUndefined();
    expect([...k.expected()].sort()).toEqual([e1, b0].sort());
  });

  it('holds a listing against what should be there: missing keys, renamed-away and deleted ones left over', () => {
    const k = new RoundKeys('p');
    const names = [0, 1, 2].map((i) => k.nextCreate('create-empty', i));
    for (const n of names) k.created('create-empty', n);
    const m = k.nextRename()!;
    k.renamed(m);
    expect(k.verify(new Set([m.to, names[1]!, names[2]!]))).toEqual({
      expected: 3,
      found: 3,
      missing: 0,
      unexpected: 0,
    });
    const bad = k.verify(new Set([m.from, m.to, names[1]!]));
    expect(bad).toMatchObject({ expected: 3, found: 2, missing: 1, unexpected: 1 });
    expect(bad.firstProblem).toBe(`${names[2]} not found`);
    expect(k.verify(new Set([m.from, m.to, names[1]!, names[2]!])).firstProblem).toBe(
      `${m.from} listed but renamed away`,
    );
    expect(() => new RoundKeys('q').nextExisting()).toThrow(/no keys/);
  });
});
