/**
 * `@fastpath/core`: the one front door. Everything public is re-exported here by name.
 *
 * @module @fastpath/core
 */
export {
  FastpathError,
  InvalidOptionError,
  LockAbortedError,
  LockStateError,
  LockTimeoutError,
  type FastpathErrorOptions,
} from './fastpath-error.js';
export { Redacted } from './redacted.js';
export { ManualClock, systemClock, type Clock } from './clock.js';
export { checkInteger, checkNonEmptyString, checkNumber, checkOneOf } from './option-checks.js';
export type { AcquireOptions, LockMode, Release } from './acquire-options.js';
export type { LockState } from './lock-instrumentation.js';
export {
  DEFAULT_READ_WRITE_LOCK_OPTIONS,
  ReadWriteLock,
  type ReadWriteLockOptions,
} from './read-write-lock.js';
export { DEFAULT_MUTEX_OPTIONS, Mutex, type MutexOptions } from './mutex.js';
export { FastCounter, type FastCounterSeries } from './fast-counter.js';
export { FastHistogram, type FastHistogramSeries } from './fast-histogram.js';
export { MetricsRegistry, type MetricsRegistryOptions } from './metrics-registry.js';
export { LatencyRecorder, type LatencySummary } from './latency-recorder.js';
export {
  JOIN_LIMIT_BYTES,
  TurnWriter,
  writeChunks,
  type TurnWriterOptions,
  type TurnWriterSocket,
} from './turn-writer.js';
export { DeadlineSet } from './deadline-set.js';
