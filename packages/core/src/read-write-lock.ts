import type { AcquireOptions, LockMode, Release } from './acquire-options.js';
import { InvalidOptionError, LockAbortedError, LockStateError, LockTimeoutError } from './fastpath-error.js';
import { LockInstrumentation, type LockState } from './lock-instrumentation.js';
import type { MetricsRegistry } from './metrics-registry.js';
import { WaiterQueue, type Node } from './waiter-queue.js';

/** Options of {@link ReadWriteLock}. */
export interface ReadWriteLockOptions {
  /** Name used in errors and as the `lock` label of metrics. Default: `"rwlock"`. */
  name?: string;
  /** Where wait/hold histograms and holder/waiter gauges go. Default: none (no instrumentation cost). */
  metrics?: MetricsRegistry;
}

/** The defaults {@link ReadWriteLock} applies to options left out (frozen). */
export const DEFAULT_READ_WRITE_LOCK_OPTIONS = Object.freeze({
  /** Lock name when `ReadWriteLockOptions.name` is not given. */
  name: 'rwlock',
});

interface Waiter {
  readonly write: boolean;
  readonly queuedAtMs: number;
  grant(): void;
}

/**
 * An async, fair read-write lock.
 *
 * - Readers share the lock; a writer holds it alone.
 * - Arrival order is kept: a writer that is waiting blocks readers that arrive after it, so a
 *   steady stream of readers cannot starve writers, and a writer cannot overtake earlier readers.
 * - Readers that queued one after another are let in together when the lock frees.
 * - A waiter that times out or is aborted leaves the queue at once; the waiters behind it move up.
 * - When the lock is free and nobody waits, `runRead` and `runWrite` run a synchronous `fn`
 *   straight away, without a trip through the microtask queue.
 *
 * Why not async-mutex's `Semaphore` with "readers take 1, writers take all": its cost grows with
 * its total weight, and it cannot withdraw one queued waiter (only cancel all), which per-call
 * abort and timeout need. The mutual-exclusion primitive ({@link Mutex}) is async-mutex's.
 *
 * @example
 * ```ts
 * const lock = new ReadWriteLock({ name: 'tokens' });
 * const info = await lock.runRead(() => cache.get(id));
 * await lock.runWrite(() => cache.set(id, info), { timeoutMs: 1000 });
 * ```
 */
export class ReadWriteLock {
  /** The `name` option (default `"rwlock"`): shown in lock errors and used as the `lock` metric label. */
  readonly name: string;
  #readers = 0;
  #writer = false;
  #waitingReaders = 0;
  readonly #queue = new WaiterQueue<Waiter>();
  readonly #metrics: LockInstrumentation | undefined;

  constructor(options: ReadWriteLockOptions = {}) {
    const name = options.name ?? DEFAULT_READ_WRITE_LOCK_OPTIONS.name;
    if (typeof name !== 'string' || name.length === 0)
      throw new InvalidOptionError('name', 'must be a non-empty string');
    this.name = name;
    this.#metrics = options.metrics
      ? new LockInstrumentation(options.metrics, this, ['read', 'write'])
      : undefined;
  }

  /** Callers holding the read lock now. */
  get activeReaders(): number {
    return this.#readers;
  }

  /** Whether a writer holds the lock now. */
  get writeLocked(): boolean {
    return this.#writer;
  }

  /** Callers queued now, readers and writers. */
  get waiting(): number {
    return this.#queue.length;
  }

  /**
   * Holders and waiters now, by mode `read` and `write`: what the `core_lock_holders` and
   * `core_lock_waiters` gauges show for this lock at scrape time.
   */
  state(): LockState {
    const waitingWriters = this.#queue.length - this.#waitingReaders;
    return {
      holders: { read: this.#readers, write: this.#writer ? 1 : 0 },
      waiters: { read: this.#waitingReaders, write: waitingWriters },
    };
  }

  /**
   * Takes a shared read lock and resolves to its {@link Release} function, to call exactly once (a
   * second call throws {@link LockStateError}). Granted at once, options unread, when no writer
   * holds the lock and nobody is queued; otherwise queued in arrival order. A queued call rejects
   * with {@link LockTimeoutError} after `options.timeoutMs` ms, with {@link LockAbortedError} when
   * `options.signal` aborts (at once if it already has), and with {@link InvalidOptionError} for a
   * `timeoutMs` that is not >= 0.
   */
  acquireRead(options?: AcquireOptions): Promise<Release> {
    if (this.#canReadNow()) return Promise.resolve(this.#enterRead(performance.now()));
    return this.#enqueue(false, options);
  }

  /**
   * Takes the exclusive write lock and resolves to its {@link Release} function, to call exactly
   * once. Granted at once, options unread, when nobody holds the lock or is queued; otherwise queued
   * in arrival order behind the callers already waiting, and rejects like
   * {@link ReadWriteLock.acquireRead}.
   */
  acquireWrite(options?: AcquireOptions): Promise<Release> {
    if (this.#canWriteNow()) return Promise.resolve(this.#enterWrite(performance.now()));
    return this.#enqueue(true, options);
  }

  /** Runs `fn` holding the read lock, and releases it when `fn` settles. */
  runRead<T>(fn: () => T | PromiseLike<T>, options?: AcquireOptions): Promise<Awaited<T>> {
    if (this.#canReadNow()) return runHeld(fn, this.#enterRead(performance.now()));
    return this.#enqueue(false, options).then((release) => runHeld(fn, release));
  }

  /** Runs `fn` holding the write lock, and releases it when `fn` settles. */
  runWrite<T>(fn: () => T | PromiseLike<T>, options?: AcquireOptions): Promise<Awaited<T>> {
    if (this.#canWriteNow()) return runHeld(fn, this.#enterWrite(performance.now()));
    return this.#enqueue(true, options).then((release) => runHeld(fn, release));
  }

  #canReadNow(): boolean {
    return !this.#writer && this.#queue.length === 0;
  }

  #canWriteNow(): boolean {
    return !this.#writer && this.#readers === 0 && this.#queue.length === 0;
  }

  #enterRead(askedAtMs: number): Release {
    this.#readers++;
    const grantedAtMs = performance.now();
    this.#metrics?.waited('read', grantedAtMs - askedAtMs);
    let released = false;
    return () => {
      if (released) throw new LockStateError(`read lock "${this.name}" released twice`);
      released = true;
      this.#readers--;
      this.#metrics?.held('read', performance.now() - grantedAtMs);
      if (this.#readers === 0) this.#dispatch();
    };
  }

  #enterWrite(askedAtMs: number): Release {
    this.#writer = true;
    const grantedAtMs = performance.now();
    this.#metrics?.waited('write', grantedAtMs - askedAtMs);
    let released = false;
    return () => {
      if (released) throw new LockStateError(`write lock "${this.name}" released twice`);
      released = true;
      this.#writer = false;
      this.#metrics?.held('write', performance.now() - grantedAtMs);
      this.#dispatch();
    };
  }

  /** Lets in whoever stands first: one writer, or every reader up to the next writer. */
  #dispatch(): void {
    for (;;) {
      const next = this.#queue.peek();
      if (!next || this.#writer) return;
      if (next.write) {
        if (this.#readers === 0) {
          this.#queue.shift();
          next.grant();
        }
        return;
      }
      this.#queue.shift();
      this.#waitingReaders--;
      next.grant();
    }
  }

  #enqueue(write: boolean, options: AcquireOptions | undefined): Promise<Release> {
    const mode: LockMode = write ? 'write' : 'read';
    const signal = options?.signal;
    const timeoutMs = options?.timeoutMs;
    if (timeoutMs !== undefined && !(timeoutMs >= 0)) {
      return Promise.reject(new InvalidOptionError('timeoutMs', `must be >= 0, got ${timeoutMs}`));
    }
    if (signal?.aborted) {
      this.#metrics?.failed(mode, 'abort');
      return Promise.reject(new LockAbortedError(this.name, mode, signal.reason));
    }
    return new Promise<Release>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const cleanup = (): void => {
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const giveUp = (error: Error, reason: 'timeout' | 'abort'): void => {
        if (!this.#queue.remove(node)) return;
        if (!write) this.#waitingReaders--;
        cleanup();
        this.#metrics?.failed(mode, reason);
        // Answer the caller that gave up first, then let in whoever it was blocking (a writer
        // leaving the head may unblock the readers queued behind it).
        reject(error);
        this.#dispatch();
      };
      const onAbort = (): void => giveUp(new LockAbortedError(this.name, mode, signal?.reason), 'abort');
      const waiter: Waiter = {
        write,
        queuedAtMs: performance.now(),
        grant: () => {
          cleanup();
          resolve(write ? this.#enterWrite(waiter.queuedAtMs) : this.#enterRead(waiter.queuedAtMs));
        },
      };
      const node: Node<Waiter> = this.#queue.push(waiter);
      if (!write) this.#waitingReaders++;
      signal?.addEventListener('abort', onAbort, { once: true });
      if (timeoutMs !== undefined) {
        timer = setTimeout(
          () => giveUp(new LockTimeoutError(this.name, mode, timeoutMs), 'timeout'),
          timeoutMs,
        );
      }
    });
  }
}

/**
 * Runs `fn` while holding `release`'s lock. A synchronous `fn` is released before returning, so an
 * uncontended synchronous section costs one resolved promise.
 */
export function runHeld<T>(fn: () => T | PromiseLike<T>, release: Release): Promise<Awaited<T>> {
  let result: T | PromiseLike<T>;
  try {
    result = fn();
  } catch (error) {
    release();
    return Promise.reject(error);
  }
  if (isThenable(result)) {
    return Promise.resolve(result).then<Awaited<T>, never>(
      (value) => {
        release();
        return value;
      },
      (error: unknown) => {
        release();
        throw error;
      },
    );
  }
  release();
  return Promise.resolve(result as Awaited<T>);
}

function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
