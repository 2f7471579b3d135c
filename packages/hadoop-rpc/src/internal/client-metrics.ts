import type { FastCounterSeries, FastHistogramSeries, MetricsRegistry } from '@fastpath/core';

// Call latencies from a loopback echo (tens of microseconds) to a slow server call that runs up
// to the default call timeout (120 s).
const SECONDS_BUCKETS = [
  1e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120,
];

interface MethodSeries {
  calls: FastCounterSeries;
  seconds: FastHistogramSeries;
}

/** The series one client records into; a method's series are bound on its first call. */
export class ClientMetrics {
  readonly #name: string;
  readonly #calls;
  readonly #errors;
  readonly #seconds;
  readonly #pings: FastCounterSeries;
  readonly #byMethod = new Map<string, MethodSeries>();

  constructor(metrics: MetricsRegistry, name: string, connectionsOpen: () => number) {
    this.#name = name;
    this.#calls = metrics.fastCounter('hadoop_rpc_client_calls_total', 'Hadoop RPC calls made, by method', [
      'client',
      'method',
    ]);
    this.#errors = metrics.fastCounter(
      'hadoop_rpc_client_errors_total',
      'Hadoop RPC calls failed, by the server exception class or the client error code',
      ['client', 'method', 'exception'],
    );
    this.#seconds = metrics.fastHistogram(
      'hadoop_rpc_client_call_seconds',
      'Time from sending a Hadoop RPC call (connection set-up included) to its answer',
      ['client', 'method'],
      SECONDS_BUCKETS,
    );
    this.#pings = metrics
      .fastCounter(
        'hadoop_rpc_client_pings_total',
        'Pings sent on connections silent with calls outstanding',
        ['client'],
      )
      .series(name);
    metrics.gaugeFrom(
      'hadoop_rpc_client_connections_open',
      'Hadoop RPC connections open (connecting or ready)',
      'client',
      name,
      connectionsOpen,
    );
  }

  pingSent(): void {
    this.#pings.inc();
  }

  /** Records one call's end: `exception` is the remote class or error code, `undefined` on success. */
  settled(method: string, startedAt: number, exception: string | undefined): void {
    let series = this.#byMethod.get(method);
    if (series === undefined) {
      series = {
        calls: this.#calls.series(this.#name, method),
        seconds: this.#seconds.series(this.#name, method),
      };
      this.#byMethod.set(method, series);
    }
    series.calls.inc();
    series.seconds.observe((performance.now() - startedAt) / 1000);
    if (exception !== undefined) this.#errors.series(this.#name, method, exception).inc();
  }
}
