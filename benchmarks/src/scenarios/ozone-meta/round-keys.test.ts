import { describe, expect, it } from '@jest/globals';
import { RoundKeys } from './round-keys.js';

describe("a client's keys in one round", () => {
  it('creates fresh names, goes round them, renames the empty keys back and forth, deletes them then the 1-byte keys', () => {
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
    const m0 = k.nextRename()!;
    expect(m0).toEqual({ key: 0, from: e0, to: `${e0}.renamed` });
    const m1 = k.nextRename()!;
    expect(m1).toEqual({ key: 1, from: e1, to: `${e1}.renamed` });
    // Both keys are moving: none is free until a rename is over.
    expect(k.nextRename()).toBeUndefined();
    k.renamed(m0, true);
    k.renamed(m1, false); // failed: e1 keeps its name
    expect(k.nextRename()).toEqual({ key: 0, from: `${e0}.renamed`, to: e0 });
    const again = k.nextRename()!;
    expect(again).toEqual({ key: 1, from: e1, to: `${e1}.renamed` });
    k.renamed(again, true);
    expect([...k.expected()].sort()).toEqual([`${e0}.renamed`, `${e1}.renamed`, b0].sort());
    expect(k.nextDelete()).toBe(`${e0}.renamed`);
    k.deleted(`${e0}.renamed`);
    expect(k.nextDelete()).toBe(`${e1}.renamed`);
    expect(k.nextDelete()).toBe(b0);
    expect(k.nextDelete()).toBeUndefined();
    expect([...k.expected()].sort()).toEqual([`${e1}.renamed`, b0].sort());
  });

  it('holds a listing against what should be there: missing keys, renamed-away and deleted ones left over', () => {
    const k = new RoundKeys('p');
    const names = [0, 1, 2].map((i) => k.nextCreate('create-empty', i));
    for (const n of names) k.created('create-empty', n);
    const m = k.nextRename()!;
    k.renamed(m, true);
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
      `${m.from} listed but renamed away or never created`,
    );
    expect(() => new RoundKeys('q').nextExisting()).toThrow(/no keys/);
  });
});
