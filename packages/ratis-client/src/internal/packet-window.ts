// The client's bound on DataStream packets in flight (Ratis's
// `raft.client.data-stream.outstanding-requests.max`), across all its streams. Waiters are
// admitted in arrival order, so packets reach the connections in the order they were written:
// a stream's offsets never go out of order, and its header goes before its data.

/** A counting window with a FIFO of waiters. */
export class PacketWindow {
  readonly #waiters: Array<{ admit: () => void; reject: (error: Error) => void }> = [];
  #inFlight = 0;
  #closed: Error | undefined;

  constructor(private readonly size: number) {}

  /** Packets admitted and not yet released. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** Resolves when there is room (room taken); rejects once the window is closed. */
  acquire(): Promise<void> {
    if (this.#closed) return Promise.reject(this.#closed);
    if (this.#inFlight < this.size && this.#waiters.length === 0) {
      this.#inFlight++;
      return Promise.resolve();
    }
    return new Promise((admit, reject) => this.#waiters.push({ admit, reject }));
  }

  /** Gives room back: to the first waiter, if any. */
  release(): void {
    const next = this.#waiters.shift();
    if (next) next.admit();
    else this.#inFlight--;
  }

  /** Rejects every waiter, and every later acquire, with `error`. */
  close(error: Error): void {
    this.#closed = error;
    for (const waiter of this.#waiters.splice(0)) waiter.reject(error);
  }
}
