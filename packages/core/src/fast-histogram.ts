import type { Registry } from 'prom-client';
import { SeriesByLabels, collected } from './internal/labelled-series.js';

/** One labelled series of a {@link FastHistogram}; `observe` is a few array writes, no hashing. */
export interface FastHistogramSeries {
  /**
   * Counts one observation, in the metric's unit (seconds for a `_seconds` histogram), into its
   * bucket and the sum.
   */
  observe(value: number): void;
}

interface Series {
  readonly labels: Record<string, string>;
  readonly counts: Float64Array; // per bucket, not cumulative; the last slot is +Inf
  sum: number;
  count: number;
}

/**
 * A Prometheus histogram for hot paths. prom-client's `Histogram#observe` validates and hashes the
 * label set on every call (about a microsecond); a lock is acquired far more often than it is
 * scraped, so this one binds a series once and only counts, building the exposition at scrape time.
 * It registers itself in a prom-client `Registry` and prints exactly like a prom-client histogram.
 */
export class FastHistogram<L extends string = string> {
  /** Always `histogram`: the metric type prom-client's registry reads to print it. */
  readonly type = 'histogram';
  /** Always `sum`: how prom-client combines this metric across cluster workers. */
  readonly aggregator = 'sum';
  readonly #upperBounds: readonly number[];
  readonly #series: SeriesByLabels<Series>;

  constructor(
    /** Prometheus metric name, e.g. `core_lock_wait_seconds`; unique in its registry. */
    readonly name: string,
    /** The `# HELP` text printed with the metric. */
    readonly help: string,
    /** Label names, in the order {@link FastHistogram.series} takes their values. */
    readonly labelNames: readonly L[],
    upperBounds: readonly number[],
    registry: Registry,
  ) {
    this.#upperBounds = [...upperBounds].sort((a, b) => a - b);
    const buckets = this.#upperBounds.length + 1;
    this.#series = new SeriesByLabels(labelNames, (labels) => ({
      labels,
      counts: new Float64Array(buckets),
      sum: 0,
      count: 0,
    }));
    registry.registerMetric(this as never);
  }

  /** The series for these label values, in `labelNames` order; create it once and keep it. */
  series(...labelValues: string[]): FastHistogramSeries {
    const s = this.#series.of(labelValues);
    const bounds = this.#upperBounds;
    return {
      observe(value: number): void {
        let i = 0;
        while (i < bounds.length && value > (bounds[i] as number)) i++;
        s.counts[i] = (s.counts[i] as number) + 1;
        s.sum += value;
        s.count++;
      },
    };
  }

  /** Called by prom-client when the registry is scraped; prom-client's collector interface is async. */
  get(): Promise<{
    /** The metric's Prometheus name. */
    name: string;
    /** The metric's `# HELP` text. */
    help: string;
    /** Always `histogram`. */
    type: 'histogram';
    /** Always `sum` (see {@link FastHistogram.aggregator}). */
    aggregator: 'sum';
    /** Per series: one cumulative sample per bucket (`le` label, `+Inf` last), then `_sum` and `_count`. */
    values: Array<{
      /** The series' labels, plus `le` (the bucket's upper bound) on bucket samples. */
      labels: Record<string, string | number>;
      /** Cumulative count for a bucket, total of observed values for `_sum`, observations for `_count`. */
      value: number;
      /** The printed name: the metric's name with `_bucket`, `_sum` or `_count` appended. */
      metricName: string;
    }>;
  }> {
    const values: Array<{ labels: Record<string, string | number>; value: number; metricName: string }> = [];
    for (const s of this.#series.values()) {
      let cumulative = 0;
      this.#upperBounds.forEach((le, i) => {
        cumulative += s.counts[i] as number;
        values.push({ labels: { le, ...s.labels }, value: cumulative, metricName: `${this.name}_bucket` });
      });
      values.push({ labels: { le: '+Inf', ...s.labels }, value: s.count, metricName: `${this.name}_bucket` });
      values.push({ labels: s.labels, value: s.sum, metricName: `${this.name}_sum` });
      values.push({ labels: s.labels, value: s.count, metricName: `${this.name}_count` });
    }
    return collected(this, values);
  }

  /** Empties every series (buckets, sum, count); kept {@link FastHistogramSeries} go on counting. */
  reset(): void {
    for (const s of this.#series.values()) {
      s.counts.fill(0);
      s.sum = 0;
      s.count = 0;
    }
  }
}
