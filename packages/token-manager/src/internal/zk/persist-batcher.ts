/** One token node waiting to be written. */
export interface PersistRequest {
  readonly path: string;
  readonly data: Buffer;
}

/**
 * Group commit for token nodes: requests that arrive while the previous writes are in flight (or
 * in the same turn of the event loop) are written together by `write`, which must write a batch
 * atomically (one ZooKeeper multi-operation). Each submitter is answered when its batch is: all
 * confirmed, or all failed with the batch's error.
 */
export class PersistBatcher {
  readonly #write: (batch: readonly PersistRequest[]) => Promise<void>;
  readonly #maxBatch: number;
  readonly #maxInFlight: number;
  #queue: Array<{ request: PersistRequest; resolve: () => void; reject: (error: unknown) => void }> = [];
  #scheduled = false;
  #inFlight = 0;

  constructor(
    write: (batch: readonly PersistRequest[]) => Promise<void>,
    maxBatch: number,
    maxInFlight: number,
  ) {
    this.#write = write;
    this.#maxBatch = maxBatch;
    this.#maxInFlight = maxInFlight;
  }

  submit(request: PersistRequest): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ request, resolve, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled || this.#inFlight >= this.#maxInFlight || this.#queue.length === 0) return;
    this.#scheduled = true;
    // Wait for the end of this turn: creations that finished preparing together go together.
    setImmediate(() => {
      this.#scheduled = false;
      this.#flush();
    });
  }

  #flush(): void {
    while (this.#queue.length > 0 && this.#inFlight < this.#maxInFlight) {
      const batch = this.#queue.splice(0, this.#maxBatch);
      this.#inFlight++;
      this.#write(batch.map((b) => b.request))
        .then(
          () => {
            for (const b of batch) b.resolve();
          },
          (error: unknown) => {
            for (const b of batch) b.reject(error);
          },
        )
        .finally(() => {
          this.#inFlight--;
          this.#schedule();
        });
    }
  }
}
