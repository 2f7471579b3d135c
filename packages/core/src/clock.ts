/**
 * Time as fastpath code sees it. Logic that depends on time (token expiry, key rolls, pool age)
 * takes a `Clock`, so a test can move time without sleeping.
 */
export interface Clock {
  /** Wall-clock time in milliseconds since the Unix epoch (what goes into tokens). */
  now(): number;
  /** Monotonic milliseconds with sub-millisecond resolution, for measuring durations. */
  monotonicMs(): number;
}

/** The real clock: `Date.now()` and `performance.now()`. */
export const systemClock: Clock = Object.freeze({
  now: () => Date.now(),
  monotonicMs: () => performance.now(),
});

/**
 * A clock that moves only when told to. Both readings advance together.
 *
 * @example
 * ```ts
 * const clock = new ManualClock(Date.parse('2024-01-01T00:00:00Z'));
 * clock.advance(24 * 3600_000); // one day later
 * ```
 */
export class ManualClock implements Clock {
  #nowMs: number;
  #monotonicMs = 0;

  constructor(startMs = 0) {
    this.#nowMs = startMs;
  }

  now(): number {
    return this.#nowMs;
  }

  monotonicMs(): number {
    return this.#monotonicMs;
  }

  /** Moves both readings forward by `ms` (which must not be negative). */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`cannot move a clock back (advance by ${ms} ms)`);
    this.#nowMs += ms;
    this.#monotonicMs += ms;
  }

  /** Sets the wall clock; the monotonic reading moves by the same amount when going forward. */
  set(nowMs: number): void {
    this.advance(Math.max(0, nowMs - this.#nowMs));
    this.#nowMs = nowMs;
  }
}
