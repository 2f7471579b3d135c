// Who wants to hear that a connection went (DatanodeConnection.watchLoss): fastpath's own HTTP/2
// sessions keep them here and tell them when a session they were open on goes.

/** The watchers of one connection; watching twice with the same `onLost` is one watch. */
export class LossWatchers {
  readonly #watchers = new Set<{ onLost: () => void; keepWatching: () => boolean }>();

  add(onLost: () => void, keepWatching: () => boolean): void {
    for (const w of this.#watchers) if (w.onLost === onLost) return;
    this.#watchers.add({ onLost, keepWatching });
  }

  /** A connection went: each watcher that still wants to hears it; the others are dropped. */
  lost(): void {
    for (const w of [...this.#watchers]) {
      if (!w.keepWatching()) {
        this.#watchers.delete(w);
        continue;
      }
      w.onLost();
    }
  }

  clear(): void {
    this.#watchers.clear();
  }
}
