import type { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { FastCounter } from './fast-counter.js';
import { FastHistogram } from './fast-histogram.js';
import { FastpathError } from './fastpath-error.js';
import { promClient } from './internal/heavy-dependencies.js';

/** Options of {@link MetricsRegistry}. */
export interface MetricsRegistryOptions {
  /** Also collect Node's process metrics (CPU, memory, event-loop lag, GC). Default: `false`. */
  processMetrics?: boolean;
  /** Labels added to every series, e.g. `{ instance: 'kms-1' }`. Default: none. */
  defaultLabels?: Record<string, string>;
}

/**
 * The metrics of one process or server, on a private prom-client `Registry` (never the global
 * one, so two servers in one test process do not mix their series). Metrics are got-or-created
 * by name: every lock or manager that asks for `core_lock_wait_seconds` shares one series set,
 * told apart by labels.
 *
 * @example
 * ```ts
 * const metrics = new MetricsRegistry();
 * const lock = new ReadWriteLock({ name: 'tokens', metrics });
 * reply.type(metrics.contentType).send(await metrics.metrics());
 * ```
 */
export class MetricsRegistry {
  /** The underlying prom-client registry, for anything this class does not wrap. */
  readonly registry: Registry;
  // The live sources of each gauge made by `gaugeFrom`, by label value.
  readonly #gaugeSources = new Map<string, Map<string, () => number>>();

  constructor(options: MetricsRegistryOptions = {}) {
    const { Registry, collectDefaultMetrics } = promClient();
    this.registry = new Registry();
    if (options.defaultLabels) this.registry.setDefaultLabels(options.defaultLabels);
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry });
  }

  /** The Content-Type of {@link MetricsRegistry.metrics}'s text. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** All series in the Prometheus text exposition format. */
  metrics(): Promise<string> {
    return this.registry.metrics();
  }

  /**
   * A prom-client counter, got or created by `name`; a later call with the same name returns the
   * first counter (its `help` and `labelNames` win). Throws `ERR_METRIC_TYPE_CONFLICT` when `name`
   * is already a metric of another type. For per-request counts see {@link MetricsRegistry.fastCounter}.
   */
  counter<L extends string>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
    const { Counter } = promClient();
    return this.#getOrCreate(
      name,
      Counter,
      () => new Counter({ name, help, labelNames, registers: [this.registry] }),
    );
  }

  /** A gauge; `collect`, if given, runs before every scrape to set the current values. */
  gauge<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[] = [],
    collect?: (this: Gauge<L>) => void | Promise<void>,
  ): Gauge<L> {
    const { Gauge } = promClient();
    return this.#getOrCreate(
      name,
      Gauge,
      () =>
        new Gauge({ name, help, labelNames, registers: [this.registry], ...(collect ? { collect } : {}) }),
    );
  }

  /**
   * Reports `read()` as gauge `name`'s value for `labelValue` at every scrape, beside the other
   * sources of that gauge (a later source with the same label value replaces the earlier one):
   * for counts that live objects own, such as a client's open connections or outstanding requests.
   *
   * @example
   * ```ts
   * metrics.gaugeFrom('ratis_client_outstanding_requests', 'Requests not yet answered', 'client', name, () => pending.size);
   * ```
   */
  gaugeFrom(name: string, help: string, labelName: string, labelValue: string, read: () => number): void {
    let sources = this.#gaugeSources.get(name);
    if (sources === undefined) {
      const live = new Map<string, () => number>();
      sources = live;
      this.gauge(name, help, [labelName], function collect() {
        this.reset();
        for (const [value, readValue] of live) this.labels(value).set(readValue());
      });
      this.#gaugeSources.set(name, live);
    }
    sources.set(labelValue, read);
  }

  /** A histogram; `buckets` are upper bounds in the metric's unit (seconds for `_seconds`). */
  histogram<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[] = [],
    buckets?: readonly number[],
  ): Histogram<L> {
    const { Histogram } = promClient();
    return this.#getOrCreate(
      name,
      Histogram,
      () =>
        new Histogram({
          name,
          help,
          labelNames,
          registers: [this.registry],
          ...(buckets ? { buckets: [...buckets] } : {}),
        }),
    );
  }

  /**
   * A histogram for hot paths (see {@link FastHistogram}): bind a series once with
   * `series(...labelValues)`, then `observe` costs a few array writes. Prints like `histogram`.
   */
  fastHistogram<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    buckets: readonly number[],
  ): FastHistogram<L> {
    return this.#getOrCreate(
      name,
      FastHistogram,
      () => new FastHistogram(name, help, labelNames, buckets, this.registry),
    ) as FastHistogram<L>;
  }

  /**
   * A counter for hot paths (see {@link FastCounter}): bind a series once with
   * `series(...labelValues)`, then `inc` costs one addition. Prints like `counter`.
   */
  fastCounter<L extends string>(name: string, help: string, labelNames: readonly L[] = []): FastCounter<L> {
    return this.#getOrCreate(
      name,
      FastCounter,
      () => new FastCounter(name, help, labelNames, this.registry),
    ) as FastCounter<L>;
  }

  #getOrCreate<M>(name: string, type: abstract new (...args: never[]) => M, create: () => M): M {
    const existing = this.registry.getSingleMetric(name);
    if (existing === undefined) return create();
    if (!(existing instanceof type)) {
      throw new FastpathError(
        'ERR_METRIC_TYPE_CONFLICT',
        `metric "${name}" already exists with another type`,
      );
    }
    return existing;
  }
}
