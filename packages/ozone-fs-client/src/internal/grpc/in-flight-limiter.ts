// Bounds the requests in flight on one channel (Java's XceiverClientGrpc semaphore). FIFO, and a
// waiter whose call is abandoned leaves the queue.
export class InFlightLimiter {
  #active = 0;
  readonly #waiting: Array<() => void> = [];
  constructor(readonly limit: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#active >= this.limit) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#active++;
    try {
      return await work();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#active--;
    }
  }

  get active(): number {
    return this.#active;
  }
}
