// One client's keys in one round, as fastpath's client process keeps them (the Java client keeps
// the same in OzoneMetaBench.java): the names the create windows made, which the lookup and
// getFileStatus windows go round; the rename window moves the empty keys within their directory
// (`…/e/x` → `…/e/x.renamed`: Ozone's OM renames into an existing directory only, as a job's
// commit does); the delete window removes the renamed keys, then the 1-byte ones; and the check of
// a listing of the round's prefix against what should be there.
import type { MetaOp, VerifyCounts } from './meta-workload.js';

/** What a renamed key's name gets: it stays in its directory. */
export const RENAMED_SUFFIX = '.renamed';

export interface Move {
  from: string;
  to: string;
}

export class RoundKeys {
  readonly #empty: string[] = [];
  readonly #oneByte: string[] = [];
  readonly #perWorker = new Map<string, number>();
  readonly #renamedFrom = new Set<string>();
  readonly #renamedTo: string[] = [];
  readonly #deleted = new Set<string>();
  #existing: Array<{ name: string; size: number }> | undefined;
  #nextExisting = 0;
  #nextRename = 0;
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
    (op === 'create-empty' ? this.#empty : this.#oneByte).push(name);
  }

  /** The next key to look up or stat, round the keys both create windows committed, with its size. */
  nextExisting(): { name: string; size: number } {
    this.#existing ??= [
      ...this.#empty.map((name) => ({ name, size: 0 })),
      ...this.#oneByte.map((name) => ({ name, size: 1 })),
    ];
    if (this.#existing.length === 0) throw new Error('no keys were created in this round');
    return this.#existing[this.#nextExisting++ % this.#existing.length]!;
  }

  /** The next empty key to rename, or undefined when all are taken. */
  nextRename(): Move | undefined {
    const from = this.#empty[this.#nextRename++];
    return from === undefined ? undefined : { from, to: `${from}${RENAMED_SUFFIX}` };
  }

  renamed(move: Move): void {
    this.#renamedFrom.add(move.from);
    this.#renamedTo.push(move.to);
  }

  /** The next key to delete (renamed ones, then 1-byte ones), or undefined when all are taken. */
  nextDelete(): string | undefined {
    this.#deletable ??= [...this.#renamedTo, ...this.#oneByte];
    return this.#deletable[this.#nextDelete++];
  }

  deleted(name: string): void {
    this.#deleted.add(name);
  }

  /** The keys that should exist now: created, neither renamed away nor deleted. */
  expected(): Set<string> {
    const keep = (name: string): boolean => !this.#renamedFrom.has(name) && !this.#deleted.has(name);
    return new Set([...this.#empty, ...this.#renamedTo, ...this.#oneByte].filter(keep));
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
        firstProblem ??= `${name} listed but ${this.#deleted.has(name) ? 'deleted' : this.#renamedFrom.has(name) ? 'renamed away' : 'never created'}`;
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
