import type { FastHistogramSeries } from './fast-histogram.js';
import type { LockMode } from './acquire-options.js';
import type { MetricsRegistry } from './metrics-registry.js';

/** What a lock reports about itself at any moment; also what the holder/waiter gauges show. */
export interface LockState {
  /** Number of callers holding the lock in each mode right now. */
  holders: Partial<Record<LockMode, number>>;
  /** Number of callers queued for each mode right now. */
  waiters: Partial<Record<LockMode, number>>;
}

interface Observed {
  readonly name: string;
  state(): LockState;
}

// Lock waits in this code base range from sub-microsecond (uncontended) to seconds (a creator
// stuck on ZooKeeper); the buckets cover that span on a roughly logarithmic scale.
const LOCK_SECONDS_BUCKETS = [1e-6, 1e-5, 5e-5, 1e-4, 5e-4, 1e-3, 5e-3, 0.01, 0.05, 0.1, 0.5, 1, 5, 30];

// One set of series per registry, shared by every lock registered with it. The gauges read the
// live locks only when scraped, so holding a lock costs nothing for them.
const observedByRegistry = new WeakMap<MetricsRegistry, Map<string, Observed>>();

/**
 * Records wait and hold times of one named lock. Each lock owns one; the histogram series are
 * bound once here, so the hot path only counts.
 */
export class LockInstrumentation {
  readonly #wait: Partial<Record<LockMode, FastHistogramSeries>> = {};
  readonly #hold: Partial<Record<LockMode, FastHistogramSeries>> = {};
  readonly #failures;
  readonly #lockName: string;

  constructor(metrics: MetricsRegistry, lock: Observed, modes: readonly LockMode[]) {
    this.#lockName = lock.name;
    const wait = metrics.fastHistogram(
      'core_lock_wait_seconds',
      'Time from asking for a lock to getting it',
      ['lock', 'mode'],
      LOCK_SECONDS_BUCKETS,
    );
    const hold = metrics.fastHistogram(
      'core_lock_hold_seconds',
      'Time a lock was held, from grant to release',
      ['lock', 'mode'],
      LOCK_SECONDS_BUCKETS,
    );
    this.#failures = metrics.counter(
      'core_lock_acquire_failures_total',
      'Acquires that gave up before the lock was granted',
      ['lock', 'mode', 'reason'],
    );
    for (const mode of modes) {
      this.#wait[mode] = wait.series(lock.name, mode);
      this.#hold[mode] = hold.series(lock.name, mode);
    }
    let observed = observedByRegistry.get(metrics);
    if (!observed) {
      observed = new Map();
      observedByRegistry.set(metrics, observed);
      registerStateGauges(metrics, observed);
    }
    observed.set(lock.name, lock);
  }

  waited(mode: LockMode, ms: number): void {
    this.#wait[mode]?.observe(ms / 1000);
  }

  held(mode: LockMode, ms: number): void {
    this.#hold[mode]?.observe(ms / 1000);
  }

  failed(mode: LockMode, reason: 'timeout' | 'abort'): void {
    this.#failures.labels(this.#lockName, mode, reason).inc();
  }
}

function registerStateGauges(metrics: MetricsRegistry, observed: Map<string, Observed>): void {
  for (const [name, help, field] of [
    ['core_lock_holders', 'Callers holding a lock right now', 'holders'],
    ['core_lock_waiters', 'Callers queued for a lock right now', 'waiters'],
  ] as const) {
    metrics.gauge(name, help, ['lock', 'mode'], function collect() {
      this.reset();
      for (const lock of observed.values()) {
        for (const [mode, n] of Object.entries(lock.state()[field])) this.labels(lock.name, mode).set(n);
      }
    });
  }
}
