// One client's keys in one round, as fastpath's client process keeps them (the Java client keeps
// the same in OzoneMetaBench.java): the names the create windows made, which the lookup and
// getFileStatus windows go round; the rename window moves the empty keys back and forth within
// their directory (`…/e/x` → `…/e/x.renamed` → `…/e/x`: Ozone's OM renames into an existing
// directory only, as a job's commit does; going back and forth keeps the window from running out
// of keys), one rename of a key at a time; the delete window removes the empty keys (under their
// current names), then the 1-byte ones; and the check of a listing of the round's prefix against
// what should be there.
import type { MetaOp, VerifyCounts } from './meta-workload.js';

/** What a renamed key's name gets: it stays in its directory. */
export const RENAMED_SUFFIX = '.renamed';

export interface Move {
  /** The key's index among the empty keys. */
  key: number;
  from: string;
  to: string;
}

export class RoundKeys {
  readonly #empty: string[] = [];
  /** Each empty key's name now (its created name, or that name with the suffix). */
  readonly #emptyNow: string[] = [];
  readonly #oneByte: string[] = [];
  readonly #perWorker = new Map<string, number>();
  readonly #deleted = new Set<string>();
  #existing: Array<{ name: string; size: number }> | undefined;
  #nextExisting = 0;
  /** Empty keys no rename is moving now, the longest-resting first. */
  #renameQueue: number[] | undefined;
  #deletable: string[] | undefined;
  #nextDelete = 0;

  constructor(readonly prefix: string) {}

  /** A fresh name for worker `w`'s next key of a create window. */
  nextCreate(op: Extract<MetaOp, 'create-empty' | 'create-1b'>, w: number): string {
    const dir = op === 'create-empty' ? 'e' : 'b';
    const key = `${dir}/${w}`;
    const i = this.#perWorker.get(key) ?? 0;
    this.#perWorker.set(key, i + 1);
    return `${this.prefix}/${dir}/w${w}-${i}`;
  }

  /** A key committed. */
  created(op: Extract<MetaOp, 'create-empty' | 'create-1b'>, name: string): void {
    if (op === 'create-1b') return void this.#oneByte.push(name);
    this.#empty.push(name);
    this.#emptyNow.push(name);
  }

  /** The next key to look up or stat, round the keys both create windows committed, with its size. */
  nextExisting(): { name: string; size: number } {
    this.#existing ??= [
      ...this.#emptyNow.map((name) => ({ name, size: 0 })),
      ...this.#oneByte.map((name) => ({ name, size: 1 })),
    ];
    if (this.#existing.length === 0) throw new Error('no keys were created in this round');
    return this.#existing[this.#nextExisting++ % this.#existing.length]!;
  }

  /** The next empty key to rename (to the other of its two names), or undefined when none is free. */
  nextRename(): Move | undefined {
    this.#renameQueue ??= this.#empty.map((_, i) => i);
    const key = this.#renameQueue.shift();
    if (key === undefined) return undefined;
    const from = this.#emptyNow[key]!;
    const created = this.#empty[key]!;
    return { key, from, to: from === created ? `${created}${RENAMED_SUFFIX}` : created };
  }

  /** The rename is over: applied (`done`) or failed (the key keeps its name); the key is free again. */
  renamed(move: Move, done: boolean): void {
    if (done) this.#emptyNow[move.key] = move.to;
    this.#renameQueue?.push(move.key);
  }

  /** The next key to delete (the empty ones, then the 1-byte ones), or undefined when all are taken. */
  nextDelete(): string | undefined {
    this.#deletable ??= [...this.#emptyNow, ...this.#oneByte];
    return this.#deletable[this.#nextDelete++];
  }

  deleted(name: string): void {
    this.#deleted.add(name);
  }

  /** The keys that should exist now: created, under their current names, not deleted. */
  expected(): Set<string> {
    return new Set([...this.#emptyNow, ...this.#oneByte].filter((name) => !this.#deleted.has(name)));
  }

  /** A listing of the round's prefix held against `expected()`. */
  verify(listed: ReadonlySet<string>): VerifyCounts {
    const expected = this.expected();
    let found = 0;
    let firstProblem: string | undefined;
    for (const name of expected)
      if (listed.has(name)) found++;
      else firstProblem ??= `${name} not found`;
    let unexpected = 0;
    for (const name of listed)
      if (!expected.has(name)) {
        unexpected++;
        firstProblem ??= `${name} listed but ${this.#deleted.has(name) ? 'deleted' : 'renamed away or never created'}`;
      }
    return {
      expected: expected.size,
      found,
      missing: expected.size - found,
      unexpected,
      ...(firstProblem === undefined ? {} : { firstProblem }),
    };
  }
}
