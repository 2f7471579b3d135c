// The deadlines of many pending things (calls in flight on a connection) on one timer. A timer per
// call costs a Timeout object, its closure and its list entry, made and cleared for every call:
// on a client making tens of thousands of small calls a second, a share of its CPU. Here a call
// costs a map entry; the one timer is due at the earliest deadline. The calls of one connection
// mostly share one timeout, so a new call's deadline is the latest and the timer stays as it is.

/**
 * Pending items each with a deadline; an item still here when its deadline passes is removed and
 * handed to `onExpired`. The timer never keeps the process alive.
 */
export class DeadlineSet<T> {
  readonly #due = new Map<T, number>();
  readonly #onExpired: (item: T) => void;
  #timer: NodeJS.Timeout | undefined;
  #timerDue = Infinity;

  constructor(onExpired: (item: T) => void) {
    this.#onExpired = onExpired;
  }

  /** Items waiting for their deadline. */
  get size(): number {
    return this.#due.size;
  }

  /** `item` expires in `timeoutMs` unless deleted first (added again: its deadline moves). */
  add(item: T, timeoutMs: number): void {
    const deadline = performance.now() + timeoutMs;
    this.#due.set(item, deadline);
    if (deadline < this.#timerDue) this.#arm(deadline);
  }

  /** `item` settled in time: it does not expire. */
  delete(item: T): boolean {
    return this.#due.delete(item);
  }

  /** Forgets every item and stops the timer (their owner failed them all). */
  clear(): void {
    this.#due.clear();
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerDue = Infinity;
  }

  #arm(deadline: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timerDue = deadline;
    // A timer may fire a fraction of a ms before its time by performance.now(): then it finds
    // nothing due and is armed again for what is left.
    this.#timer = setTimeout(this.#expire, Math.max(1, Math.ceil(deadline - performance.now())));
    this.#timer.unref();
  }

  readonly #expire = (): void => {
    this.#timer = undefined;
    this.#timerDue = Infinity;
    const now = performance.now();
    const expired: T[] = [];
    let next = Infinity;
    for (const [item, deadline] of this.#due) {
      if (deadline <= now) expired.push(item);
      else if (deadline < next) next = deadline;
    }
    for (const item of expired) this.#due.delete(item);
    if (next !== Infinity) this.#arm(next);
    // After the timer is set again: an expiry may add or delete items.
    for (const item of expired) this.#onExpired(item);
  };
}
