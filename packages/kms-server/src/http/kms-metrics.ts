import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type { MetricsRegistry } from '@fastpath/core';

// Requests range from tens of microseconds (a cached verification) to seconds (a creation
// waiting on ZooKeeper); the buckets cover that on a roughly logarithmic scale.
const REQUEST_SECONDS_BUCKETS = [
  5e-5, 1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

type Child = { observe(v: number): void };

/**
 * The server's own series: requests per operation and status, request latency per operation,
 * and event-loop delay. The token manager and the locks record into the same registry.
 */
export class KmsMetrics {
  readonly #requests;
  readonly #duration;
  readonly #durationChildren = new Map<string, Child>();
  readonly #loop: IntervalHistogram;

  constructor(registry: MetricsRegistry) {
    this.#requests = registry.counter('kms_requests_total', 'KMS requests by operation and HTTP status', [
      'op',
      'status',
    ]);
    this.#duration = registry.histogram(
      'kms_request_duration_seconds',
      'KMS request latency by operation, from arrival to response',
      ['op'],
      REQUEST_SECONDS_BUCKETS,
    );
    this.#loop = monitorEventLoopDelay({ resolution: 10 });
    this.#loop.enable();
    const loop = this.#loop;
    registry.gauge(
      'kms_event_loop_delay_seconds',
      'Event-loop delay since the previous scrape, by quantile',
      ['quantile'],
      function collect() {
        this.set({ quantile: '0.5' }, loop.percentile(50) / 1e9);
        this.set({ quantile: '0.99' }, loop.percentile(99) / 1e9);
        this.set({ quantile: '1' }, loop.max / 1e9);
        loop.reset();
      },
    );
  }

  /** Records one finished request. */
  observe(op: string, status: number, seconds: number): void {
    this.#requests.labels(op, String(status)).inc();
    let child = this.#durationChildren.get(op);
    if (child === undefined) {
      child = this.#duration.labels(op);
      this.#durationChildren.set(op, child);
    }
    child.observe(seconds);
  }

  close(): void {
    this.#loop.disable();
  }
}
