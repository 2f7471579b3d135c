/** Options of every acquire call of {@link ReadWriteLock} and {@link Mutex}. */
export interface AcquireOptions {
  /** Gives up waiting when this signal aborts; the call rejects with `ERR_LOCK_ABORTED`. Default: none. */
  signal?: AbortSignal;
  /** Gives up waiting after this many milliseconds; the call rejects with `ERR_LOCK_TIMEOUT`. Default: wait forever. */
  timeoutMs?: number;
}

/** Gives a granted lock back. Calling it a second time throws `ERR_LOCK_STATE`. */
export type Release = () => void;

/** The two ways a lock can be held; used as the `mode` label of lock metrics. */
export type LockMode = 'read' | 'write' | 'exclusive';
