/**
 * The one error base class of fastpath. Every error a fastpath package throws on purpose is a
 * `FastpathError` with a stable `code` string: callers branch on `code`, never on the message,
 * and a code is never reused for a different meaning.
 *
 * @example
 * ```ts
 * try {
 *   await lock.runWrite(work, { timeoutMs: 50 });
 * } catch (err) {
 *   if (err instanceof FastpathError && err.code === 'ERR_LOCK_TIMEOUT') retryLater();
 * }
 * ```
 */
export class FastpathError extends Error {
  /** Stable machine-readable code, e.g. `ERR_LOCK_TIMEOUT`. */
  readonly code: string;
  /**
   * Whether repeating the same call can succeed (a timeout, a lost connection), as opposed to an
   * error that repeats until the input or the configuration changes.
   */
  readonly retriable: boolean;

  constructor(code: string, message: string, options: FastpathErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.retriable = options.retriable ?? false;
  }

  /** The concrete class's name (`LockTimeoutError`), so logs and stack traces show it, not `Error`. */
  override get name(): string {
    return this.constructor.name;
  }
}

/** Options of {@link FastpathError}. */
export interface FastpathErrorOptions {
  /** The foreign error this one wraps; kept as `error.cause`. Default: none. */
  cause?: unknown;
  /** Whether a retry can help. Default: `false`. */
  retriable?: boolean;
}

/** A constructor or factory got an option value it cannot use. The message names the field. */
export class InvalidOptionError extends FastpathError {
  /** The option's field name, e.g. `timeoutMs`. */
  readonly option: string;
  constructor(option: string, message: string) {
    super('ERR_INVALID_OPTION', `invalid option "${option}": ${message}`);
    this.option = option;
  }
}

/** A lock or mutex was not acquired before `timeoutMs` ran out. The caller no longer waits. */
export class LockTimeoutError extends FastpathError {
  /** The lock's `name` option (defaults: `mutex`, `rwlock`). */
  readonly lock: string;
  /** How long the caller waited, in milliseconds: the `timeoutMs` it passed. */
  readonly timeoutMs: number;
  constructor(lock: string, mode: string, timeoutMs: number) {
    super('ERR_LOCK_TIMEOUT', `timed out after ${timeoutMs} ms waiting for ${mode} lock "${lock}"`, {
      retriable: true,
    });
    this.lock = lock;
    this.timeoutMs = timeoutMs;
  }
}

/** The `AbortSignal` given to an acquire fired before the lock was granted. */
export class LockAbortedError extends FastpathError {
  /** The lock's `name` option, as given at construction. */
  readonly lock: string;
  constructor(lock: string, mode: string, cause: unknown) {
    super('ERR_LOCK_ABORTED', `aborted while waiting for ${mode} lock "${lock}"`, { cause, retriable: true });
    this.lock = lock;
  }
}

/** A lock was released more often than it was acquired: a bug in the caller. */
export class LockStateError extends FastpathError {
  constructor(message: string) {
    super('ERR_LOCK_STATE', message);
  }
}
