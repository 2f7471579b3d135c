import type { KmsOperation, OperationMix } from './operation-mix.js';

/** Requests per block: every block holds exactly the mix's counts, in shuffled order. */
export const BLOCK_SIZE = 100;

/**
 * Hands out operations so that the mix holds exactly, not just on average: each block of 100
 * requests is the mix's fixed multiset (e.g. 90 verify + 10 create) shuffled. Without this, a
 * 99:1 run of a few thousand requests per second could see its creations bunch up or vanish by
 * chance, and the comparison between versions would measure luck.
 */
export class BlockScheduler {
  readonly #template: KmsOperation[];
  readonly #random: () => number;
  #block: KmsOperation[] = [];
  #position = BLOCK_SIZE;
  #blocksStarted = 0;

  constructor(mix: OperationMix, random: () => number) {
    this.#template = [
      ...Array<KmsOperation>(mix.verify).fill('verify'),
      ...Array<KmsOperation>(mix.create).fill('create'),
    ];
    this.#random = random;
  }

  /** The next operation to submit. */
  next(): KmsOperation {
    if (this.#position === BLOCK_SIZE) {
      this.#block = shuffle([...this.#template], this.#random);
      this.#position = 0;
      this.#blocksStarted++;
    }
    return this.#block[this.#position++] as KmsOperation;
  }

  /** Whole blocks handed out so far. */
  get completeBlocks(): number {
    return this.#position === BLOCK_SIZE ? this.#blocksStarted : this.#blocksStarted - 1;
  }

  /**
   * Operations handed out from the block that is not finished: the "block tail". They are
   * recorded apart, because a cut-off block does not hold the mix exactly.
   */
  get tailSubmissions(): Record<KmsOperation, number> {
    const tail = { verify: 0, create: 0 };
    if (this.#position < BLOCK_SIZE) for (const op of this.#block.slice(0, this.#position)) tail[op]++;
    return tail;
  }
}

/** Fisher-Yates, in place. */
function shuffle<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}
