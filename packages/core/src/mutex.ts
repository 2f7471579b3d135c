import { Mutex as AsyncMutex } from 'async-mutex';
import type { AcquireOptions, Release } from './acquire-options.js';
import { InvalidOptionError, LockAbortedError, LockStateError, LockTimeoutError } from './fastpath-error.js';
import { LockInstrumentation, type LockState } from './lock-instrumentation.js';
import type { MetricsRegistry } from './metrics-registry.js';

/** Options of {@link Mutex}. */
export interface MutexOptions {
  /** Name used in errors and as the `lock` label of metrics. Default: `"mutex"`. */
  name?: string;
  /** Where wait/hold histograms and holder/waiter gauges go. Default: none. */
  metrics?: MetricsRegistry;
}

/** The defaults {@link Mutex} applies to options left out (frozen). */
export const DEFAULT_MUTEX_OPTIONS = Object.freeze({
  /** Lock name when `MutexOptions.name` is not given. */
  name: 'mutex',
});

/**
 * async-mutex's FIFO mutex with fastpath's conventions: a name, per-call `timeoutMs` and
 * `AbortSignal`, typed errors, double-release detection and the same metrics as
 * {@link ReadWriteLock}.
 *
 * async-mutex cannot withdraw one queued waiter, so a caller that gives up is answered at once
 * and its place in the queue is handed straight on when it comes up: nobody waits for it, and
 * the queue stays consistent.
 *
 * @example
 * ```ts
 * const allocator = new Mutex({ name: 'seq-allocator' });
 * const seq = await allocator.runExclusive(() => nextSequenceNumber());
 * ```
 */
export class Mutex {
  /** The `name` option (default `"mutex"`): shown in lock errors and used as the `lock` metric label. */
  readonly name: string;
  readonly #mutex = new AsyncMutex();
  readonly #metrics: LockInstrumentation | undefined;
  #held = false;
  #waiting = 0;

  constructor(options: MutexOptions = {}) {
    const name = options.name ?? DEFAULT_MUTEX_OPTIONS.name;
    if (typeof name !== 'string' || name.length === 0)
      throw new InvalidOptionError('name', 'must be a non-empty string');
    this.name = name;
    this.#metrics = options.metrics
      ? new LockInstrumentation(options.metrics, this, ['exclusive'])
      : undefined;
  }

  /** Whether a caller holds the mutex now (granted and not yet released). */
  isLocked(): boolean {
    return this.#held;
  }

  /** Callers waiting now (those that gave up are not counted). */
  get waiting(): number {
    return this.#waiting;
  }

  /**
   * Holders and waiters now, both under mode `exclusive`: what the `core_lock_holders` and
   * `core_lock_waiters` gauges show for this mutex at scrape time.
   */
  state(): LockState {
    return { holders: { exclusive: this.#held ? 1 : 0 }, waiters: { exclusive: this.#waiting } };
  }

  /**
   * Runs `fn` holding the mutex and releases it when `fn` settles, whether it returns or throws;
   * resolves to `fn`'s result. If the wait ends first (`options.timeoutMs` or `options.signal`),
   * rejects with {@link LockTimeoutError} or {@link LockAbortedError} and `fn` never runs; a
   * `timeoutMs` that is not >= 0 rejects with {@link InvalidOptionError}.
   */
  async runExclusive<T>(fn: () => T | PromiseLike<T>, options?: AcquireOptions): Promise<Awaited<T>> {
    const release = await this.acquire(options);
    try {
      return await fn();
    } finally {
      release();
    }
  }

  /**
   * Waits for the mutex in FIFO order and resolves to its {@link Release} function, which the
   * caller must call exactly once (a second call throws {@link LockStateError}). Rejects with
   * {@link LockTimeoutError} after `options.timeoutMs` ms, with {@link LockAbortedError} when
   * `options.signal` aborts (at once if it already has), and with {@link InvalidOptionError} for a
   * `timeoutMs` that is not >= 0. Prefer {@link Mutex.runExclusive}, which cannot forget the release.
   */
  acquire(options?: AcquireOptions): Promise<Release> {
    const askedAtMs = performance.now();
    const signal = options?.signal;
    const timeoutMs = options?.timeoutMs;
    if (timeoutMs !== undefined && !(timeoutMs >= 0)) {
      return Promise.reject(new InvalidOptionError('timeoutMs', `must be >= 0, got ${timeoutMs}`));
    }
    if (signal?.aborted) {
      this.#metrics?.failed('exclusive', 'abort');
      return Promise.reject(new LockAbortedError(this.name, 'exclusive', signal.reason));
    }
    const granted = this.#mutex.acquire();
    if (!signal && timeoutMs === undefined) {
      this.#waiting++;
      return granted.then((inner) => {
        this.#waiting--;
        return this.#enter(inner, askedAtMs);
      });
    }
    return new Promise<Release>((resolve, reject) => {
      let settled = false;
      let timer: ReturnType<typeof setTimeout> | undefined;
      this.#waiting++;
      const finish = (): boolean => {
        if (settled) return false;
        settled = true;
        this.#waiting--;
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        return true;
      };
      const giveUp = (error: Error, reason: 'timeout' | 'abort'): void => {
        if (!finish()) return;
        this.#metrics?.failed('exclusive', reason);
        reject(error);
      };
      const onAbort = (): void =>
        giveUp(new LockAbortedError(this.name, 'exclusive', signal?.reason), 'abort');
      signal?.addEventListener('abort', onAbort, { once: true });
      if (timeoutMs !== undefined) {
        timer = setTimeout(
          () => giveUp(new LockTimeoutError(this.name, 'exclusive', timeoutMs), 'timeout'),
          timeoutMs,
        );
      }
      void granted.then((inner) => {
        if (finish()) resolve(this.#enter(inner, askedAtMs));
        else inner(); // the caller gave up: pass the turn on
      });
    });
  }

  #enter(inner: () => void, askedAtMs: number): Release {
    this.#held = true;
    const grantedAtMs = performance.now();
    this.#metrics?.waited('exclusive', grantedAtMs - askedAtMs);
    let released = false;
    return () => {
      if (released) throw new LockStateError(`mutex "${this.name}" released twice`);
      released = true;
      this.#held = false;
      this.#metrics?.held('exclusive', performance.now() - grantedAtMs);
      inner();
    };
  }
}
