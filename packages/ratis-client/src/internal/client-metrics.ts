import type { FastHistogramSeries, MetricsRegistry } from '@fastpath/core';

// Request latencies from a pipelined write on loopback (sub-millisecond) to a watch waiting on a
// lagging follower (the server's 30 s watch timeout and beyond).
const SECONDS_BUCKETS = [
  1e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 180,
];

type Kind = 'write' | 'read' | 'watch';

// One outstanding-requests gauge per registry, read from the live clients when scraped.
const outstandingByRegistry = new WeakMap<MetricsRegistry, Map<string, () => number>>();

/** The series one client records into, bound once so that a request costs a few additions. */
export class ClientMetrics {
  readonly #seconds: Record<Kind, FastHistogramSeries>;
  readonly #requests;
  readonly #resends;
  readonly #leaderChanges;
  readonly #name: string;

  constructor(metrics: MetricsRegistry, name: string, outstanding: () => number) {
    this.#name = name;
    const seconds = metrics.fastHistogram(
      'ratis_client_request_seconds',
      'Time from submitting a Raft request to its final answer, through every re-send',
      ['client', 'type'],
      SECONDS_BUCKETS,
    );
    this.#seconds = {
      write: seconds.series(name, 'write'),
      read: seconds.series(name, 'read'),
      watch: seconds.series(name, 'watch'),
    };
    this.#requests = metrics.counter(
      'ratis_client_requests_total',
      'Raft requests by final outcome (ok or an error code)',
      ['client', 'type', 'outcome'],
    );
    this.#resends = metrics.counter(
      'ratis_client_resends_total',
      'Requests sent again on a new stream, by reason',
      ['client', 'reason'],
    );
    this.#leaderChanges = metrics.counter(
      'ratis_client_leader_changes_total',
      'Times the client moved to another member',
      ['client'],
    );
    let clients = outstandingByRegistry.get(metrics);
    if (!clients) {
      const live = new Map<string, () => number>();
      clients = live;
      outstandingByRegistry.set(metrics, live);
      metrics.gauge(
        'ratis_client_outstanding_requests',
        'Requests submitted and not yet answered',
        ['client'],
        function collect() {
          this.reset();
          for (const [client, count] of live) this.labels(client).set(count());
        },
      );
    }
    clients.set(name, outstanding);
  }

  settled(kind: Kind, startedAt: number, error: Error | undefined): void {
    this.#seconds[kind].observe((performance.now() - startedAt) / 1000);
    const outcome = error === undefined ? 'ok' : ((error as { code?: string }).code ?? 'error');
    this.#requests.labels(this.#name, kind, outcome).inc();
  }

  resent(reason: string, count: number): void {
    this.#resends.labels(this.#name, reason).inc(count);
  }

  leaderChanged(): void {
    this.#leaderChanges.labels(this.#name).inc();
  }
}
