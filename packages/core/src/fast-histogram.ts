import type { Registry } from 'prom-client';
import { SeriesByLabels, collected } from './internal/labelled-series.js';

/** One labelled series of a {@link FastHistogram}; `observe` is a few array writes, no hashing. */
export interface FastHistogramSeries {
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
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly #upperBounds: readonly number[];
  readonly #series: SeriesByLabels<Series>;

  constructor(
    readonly name: string,
    readonly help: string,
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
    name: string;
    help: string;
    type: 'histogram';
    aggregator: 'sum';
    values: Array<{ labels: Record<string, string | number>; value: number; metricName: string }>;
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

  reset(): void {
    for (const s of this.#series.values()) {
      s.counts.fill(0);
      s.sum = 0;
      s.count = 0;
    }
  }
}
