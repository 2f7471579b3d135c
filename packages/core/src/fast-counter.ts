import type { Registry } from 'prom-client';
import { SeriesByLabels, collected } from './internal/labelled-series.js';

/** One labelled series of a {@link FastCounter}; `inc` is one addition, no hashing. */
export interface FastCounterSeries {
  /** Adds `by` (default 1) to the series; no validation, so pass a finite number >= 0. */
  inc(by?: number): void;
}

interface Series {
  readonly labels: Record<string, string>;
  value: number;
}

/**
 * A Prometheus counter for hot paths, the counting sibling of {@link FastHistogram}. prom-client's
 * `Counter#inc`, even on a bound child, validates the value and hashes the label set on every
 * call; a per-request counter is incremented far more often than it is scraped, so this one binds
 * a series once and only adds. It registers itself in a prom-client `Registry` and prints exactly
 * like a prom-client counter (a counter without labels prints `0` before its first increment).
 */
export class FastCounter<L extends string = string> {
  /** Always `counter`: the metric type prom-client's registry reads to print it. */
  readonly type = 'counter';
  /** Always `sum`: how prom-client combines this metric across cluster workers. */
  readonly aggregator = 'sum';
  readonly #series: SeriesByLabels<Series>;

  constructor(
    /** Prometheus metric name, e.g. `hadoop_rpc_calls_total`; unique in its registry. */
    readonly name: string,
    /** The `# HELP` text printed with the metric. */
    readonly help: string,
    /**
     * Label names, in the order {@link FastCounter.series} takes their values; empty for one
     * unlabelled series.
     */
    readonly labelNames: readonly L[],
    registry: Registry,
  ) {
    this.#series = new SeriesByLabels(labelNames, (labels) => ({ labels, value: 0 }));
    if (labelNames.length === 0) this.#series.of([]);
    registry.registerMetric(this as never);
  }

  /** The series for these label values, in `labelNames` order; create it once and keep it. */
  series(...labelValues: string[]): FastCounterSeries {
    const s = this.#series.of(labelValues);
    return {
      inc(by = 1): void {
        s.value += by;
      },
    };
  }

  /** Called by prom-client when the registry is scraped. */
  get(): ReturnType<
    typeof collected<
      'counter',
      {
        /** The series' labels, name to value. */
        labels: Record<string, string>;
        /** The series' total so far. */
        value: number;
      }
    >
  > {
    return collected(
      this,
      [...this.#series.values()].map((s) => ({ labels: s.labels, value: s.value })),
    );
  }

  /** Sets every series back to 0; the series stay bound, so kept {@link FastCounterSeries} go on counting. */
  reset(): void {
    for (const s of this.#series.values()) s.value = 0;
  }
}
