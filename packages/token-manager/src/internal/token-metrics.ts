import { LatencyRecorder, type LatencySummary, type MetricsRegistry } from '@fastpath/core';

/** The timed steps of the manager: the three creation stages, and verification. */
export type TimedStep = 'allocate' | 'prepare' | 'persist' | 'verify';

/** Operations whose failures are counted (Hadoop's `tokenFailure`, split by operation). */
export type CountedOperation = 'create' | 'verify' | 'renew' | 'cancel' | 'expire';

// Creation stages range from microseconds (prepare) to seconds (a persist waiting on a slow
// ZooKeeper); the buckets cover that span on a roughly logarithmic scale.
const SECONDS_BUCKETS = [
  1e-5, 5e-5, 1e-4, 2.5e-4, 5e-4, 1e-3, 2.5e-3, 5e-3, 0.01, 0.025, 0.05, 0.1, 0.5, 1, 5, 30,
];
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128];

type Child = { observe(v: number): void };
type CounterChild = { inc(v?: number): void };

/**
 * Everything one manager records: Prometheus series (through the shared registry) and exact
 * in-process percentiles per step (for benchmarks and `manager.latency()`). Label children are
 * bound once here so the hot paths do no label hashing.
 */
export class TokenMetrics {
  readonly #steps: Record<TimedStep, Child>;
  readonly #recorders: Record<TimedStep, LatencyRecorder>;
  readonly #created: CounterChild;
  readonly #verified: CounterChild;
  readonly #renewed: CounterChild;
  readonly #cancelled: CounterChild;
  readonly #cacheMisses: CounterChild;
  readonly #failed: Record<CountedOperation, CounterChild>;
  readonly #zkOps;
  readonly #zkChildren = new Map<string, Child>();
  readonly #batch: Child;

  constructor(registry: MetricsRegistry) {
    // Counting histograms and counters (bound once, no label hashing per call): verification
    // records here on every request.
    const step = (name: string, help: string): Child =>
      registry.fastHistogram(name, help, [], SECONDS_BUCKETS).series();
    this.#steps = {
      allocate: step(
        'token_manager_create_allocate_seconds',
        'Token creation, stage 1: sequence number allocation',
      ),
      prepare: step(
        'token_manager_create_prepare_seconds',
        'Token creation, stage 2: identifier and password under the write lock',
      ),
      persist: step(
        'token_manager_create_persist_seconds',
        'Token creation, stage 3: persistence until confirmed',
      ),
      verify: step('token_manager_verify_seconds', 'Token verification, lock wait included'),
    };
    this.#recorders = {
      allocate: new LatencyRecorder(),
      prepare: new LatencyRecorder(),
      persist: new LatencyRecorder(),
      verify: new LatencyRecorder(),
    };
    const counter = (name: string, help: string): CounterChild => registry.fastCounter(name, help).series();
    this.#created = counter('token_manager_tokens_created_total', 'Tokens created and confirmed persisted');
    this.#verified = counter('token_manager_tokens_verified_total', 'Successful token verifications');
    this.#renewed = counter('token_manager_tokens_renewed_total', 'Successful token renewals');
    this.#cancelled = counter('token_manager_tokens_cancelled_total', 'Successful token cancellations');
    this.#cacheMisses = counter(
      'token_manager_cache_misses_total',
      'Lookups that missed the local token cache and read the token store',
    );
    const failed = registry.fastCounter('token_manager_tokens_failed_total', 'Token operations that failed', [
      'operation',
    ]);
    this.#failed = {
      create: failed.series('create'),
      verify: failed.series('verify'),
      renew: failed.series('renew'),
      cancel: failed.series('cancel'),
      expire: failed.series('expire'),
    };
    this.#zkOps = registry.fastHistogram(
      'token_manager_zookeeper_operation_seconds',
      'ZooKeeper operations of the token manager, from request to answer',
      ['operation'],
      SECONDS_BUCKETS,
    );
    this.#batch = registry
      .fastHistogram(
        'token_manager_persist_batch_size',
        'Tokens written per ZooKeeper request',
        [],
        BATCH_BUCKETS,
      )
      .series();
  }

  step(step: TimedStep, ms: number): void {
    this.#steps[step].observe(ms / 1000);
    this.#recorders[step].recordMs(ms);
  }

  zookeeper(operation: string, ms: number): void {
    let child = this.#zkChildren.get(operation);
    if (!child) {
      child = this.#zkOps.series(operation);
      this.#zkChildren.set(operation, child);
    }
    child.observe(ms / 1000);
  }

  persistBatch(size: number): void {
    this.#batch.observe(size);
  }

  created(): void {
    this.#created.inc();
  }
  verified(): void {
    this.#verified.inc();
  }
  renewed(): void {
    this.#renewed.inc();
  }
  cancelled(): void {
    this.#cancelled.inc();
  }
  cacheMiss(): void {
    this.#cacheMisses.inc();
  }
  failed(operation: CountedOperation): void {
    this.#failed[operation].inc();
  }

  summaries(): Record<TimedStep, LatencySummary> {
    return {
      allocate: this.#recorders.allocate.summary(),
      prepare: this.#recorders.prepare.summary(),
      persist: this.#recorders.persist.summary(),
      verify: this.#recorders.verify.summary(),
    };
  }

  resetLatency(): void {
    for (const r of Object.values(this.#recorders)) r.reset();
  }
}
