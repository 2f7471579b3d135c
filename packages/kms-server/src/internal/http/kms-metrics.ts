import {
  monitorEventLoopDelay,
  performance,
  type EventLoopUtilization,
  type IntervalHistogram,
} from 'node:perf_hooks';
import type {
  FastCounter,
  FastCounterSeries,
  FastHistogram,
  FastHistogramSeries,
  MetricsRegistry,
} from '@fastpath/core';

// Requests range from tens of microseconds (a cached verification) to seconds (a creation
// waiting on ZooKeeper); the buckets cover that on a roughly logarithmic scale.
const REQUEST_SECONDS_BUCKETS = [
  5e-5, 1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

/**
 * How often the event-loop monitor's timer fires. Each sample is the interval between two of its
 * ticks, so it holds the resolution itself plus the delay: a 10 ms timer costs 100 wake-ups a
 * second (a 1 ms one, ten times that on an idle server) and the delay is what lies beyond it.
 */
export const EVENT_LOOP_RESOLUTION_MS = 10;

/** A quantile of the monitor's tick intervals as event-loop delay in seconds: the part beyond the resolution. */
export function eventLoopDelaySeconds(intervalNs: number, resolutionMs: number): number {
  return Math.max(0, intervalNs / 1e9 - resolutionMs / 1e3);
}

/**
 * The server's own series: requests per operation and status, request latency per operation,
 * and event-loop delay. The token manager and the locks record into the same registry.
 */
export class KmsMetrics {
  readonly #requests: FastCounter<'op' | 'status'>;
  readonly #requestChildren = new Map<string, FastCounterSeries>();
  readonly #duration: FastHistogram<'op'>;
  readonly #durationChildren = new Map<string, FastHistogramSeries>();
  readonly #loop: IntervalHistogram;

  constructor(registry: MetricsRegistry) {
    // Both are recorded on every request: the counting histogram and counter bind each series
    // once instead of validating and hashing the label set per observation (prom-client's way),
    // and print the same exposition.
    this.#requests = registry.fastCounter('kms_requests_total', 'KMS requests by operation and HTTP status', [
      'op',
      'status',
    ]);
    this.#duration = registry.fastHistogram(
      'kms_request_duration_seconds',
      'KMS request latency by operation, from arrival to response',
      ['op'],
      REQUEST_SECONDS_BUCKETS,
    );
    this.#loop = monitorEventLoopDelay({ resolution: EVENT_LOOP_RESOLUTION_MS });
    this.#loop.enable();
    const loop = this.#loop;
    const delay = (ns: number): number => eventLoopDelaySeconds(ns, EVENT_LOOP_RESOLUTION_MS);
    registry.gauge(
      'kms_event_loop_delay_seconds',
      `Event-loop delay since the previous scrape, by quantile: how late the monitor's ${EVENT_LOOP_RESOLUTION_MS} ms timer fired`,
      ['quantile'],
      function collect() {
        // An empty histogram (no tick since the last scrape) reads 0: no delay seen.
        this.set({ quantile: '0.5' }, delay(loop.percentile(50)));
        this.set({ quantile: '0.99' }, delay(loop.percentile(99)));
        this.set({ quantile: '1' }, delay(loop.max));
        loop.reset();
      },
    );
    // The share of wall time the loop was busy: what a delay quantile cannot show on a loop that
    // is busy all the time in short turns.
    let since: EventLoopUtilization = performance.eventLoopUtilization();
    registry.gauge(
      'kms_event_loop_utilization',
      'Share of the time since the previous scrape that the event loop was busy (0 to 1)',
      [],
      function collect() {
        const now = performance.eventLoopUtilization();
        this.set(performance.eventLoopUtilization(now, since).utilization);
        since = now;
      },
    );
  }

  /** Records one finished request. */
  observe(op: string, status: number, seconds: number): void {
    const key = `${op} ${status}`;
    let counted = this.#requestChildren.get(key);
    if (counted === undefined) {
      counted = this.#requests.series(op, String(status));
      this.#requestChildren.set(key, counted);
    }
    counted.inc();
    let timed = this.#durationChildren.get(op);
    if (timed === undefined) {
      timed = this.#duration.series(op);
      this.#durationChildren.set(op, timed);
    }
    timed.observe(seconds);
  }

  close(): void {
    this.#loop.disable();
  }
}
