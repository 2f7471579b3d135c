import type { FastCounter, FastCounterSeries, FastHistogramSeries, MetricsRegistry } from '@fastpath/core';

// Request latencies from a pipelined write on loopback (sub-millisecond) to a watch waiting on a
// lagging follower (the server's 30 s watch timeout and beyond).
const SECONDS_BUCKETS = [
  1e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 180,
];

type Kind = 'write' | 'read' | 'watch';

/** The series one client records into, bound once so that a request costs a few additions. */
export class ClientMetrics {
  readonly #seconds: Record<Kind, FastHistogramSeries>;
  readonly #requests: FastCounter<'client' | 'type' | 'outcome'>;
  // The per-request series, bound once: the hot path only adds.
  readonly #ok: Record<Kind, FastCounterSeries>;
  readonly #resends;
  readonly #leaderChanges;
  readonly #name: string;
  readonly #streams: FastCounterSeries;
  readonly #packets: Record<'header' | 'data', FastCounterSeries>;
  readonly #bytes: FastCounterSeries;
  readonly #streamFailures;

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
    this.#requests = metrics.fastCounter(
      'ratis_client_requests_total',
      'Raft requests by final outcome (ok or an error code)',
      ['client', 'type', 'outcome'],
    );
    this.#ok = {
      write: this.#requests.series(name, 'write', 'ok'),
      read: this.#requests.series(name, 'read', 'ok'),
      watch: this.#requests.series(name, 'watch', 'ok'),
    };
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
    this.#streams = metrics
      .fastCounter('ratis_client_datastream_streams_total', 'DataStream streams opened', ['client'])
      .series(name);
    const packets = metrics.fastCounter(
      'ratis_client_datastream_packets_total',
      'DataStream packets written to a connection, by type (header or data)',
      ['client', 'type'],
    );
    this.#packets = { header: packets.series(name, 'header'), data: packets.series(name, 'data') };
    this.#bytes = metrics
      .fastCounter(
        'ratis_client_datastream_bytes_total',
        'Data bytes of DataStream packets written to a connection',
        ['client'],
      )
      .series(name);
    this.#streamFailures = metrics.counter(
      'ratis_client_datastream_failures_total',
      'DataStream streams that failed, by error code',
      ['client', 'code'],
    );
    metrics.gaugeFrom(
      'ratis_client_outstanding_requests',
      'Writes and reads submitted and not yet answered (watches are not counted)',
      'client',
      name,
      outstanding,
    );
  }

  settled(kind: Kind, startedAt: number, error: Error | undefined): void {
    this.#seconds[kind].observe((performance.now() - startedAt) / 1000);
    if (error === undefined) this.#ok[kind].inc();
    else this.#requests.series(this.#name, kind, (error as { code?: string }).code ?? 'error').inc();
  }

  resent(reason: string, count: number): void {
    this.#resends.labels(this.#name, reason).inc(count);
  }

  dataStreamOpened(): void {
    this.#streams.inc();
  }

  dataStreamPacket(type: 'header' | 'data', dataBytes: number): void {
    this.#packets[type].inc();
    if (type === 'data') this.#bytes.inc(dataBytes);
  }

  dataStreamFailed(error: Error): void {
    this.#streamFailures.labels(this.#name, (error as { code?: string }).code ?? 'error').inc();
  }

  leaderChanged(): void {
    this.#leaderChanges.labels(this.#name).inc();
  }
}
