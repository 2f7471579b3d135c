// What the counting metrics (FastCounter, FastHistogram) share: their series kept by label
// values, each created once, and the shape prom-client's registry reads at scrape time.

/** A series: its labels, and whatever it counts. */
export interface LabelledSeries {
  readonly labels: Record<string, string>;
}

/** The series of one metric by label values. */
export class SeriesByLabels<S extends LabelledSeries> {
  readonly #series = new Map<string, S>();
  readonly #create: (labels: Record<string, string>) => S;

  constructor(
    readonly labelNames: readonly string[],
    create: (labels: Record<string, string>) => S,
  ) {
    this.#create = create;
  }

  /** The series of these label values (in `labelNames` order), created on first use. */
  of(labelValues: readonly string[]): S {
    const key = labelValues.join('\u0000');
    let series = this.#series.get(key);
    if (!series) {
      const labels: Record<string, string> = {};
      this.labelNames.forEach((name, i) => (labels[name] = labelValues[i] ?? ''));
      series = this.#create(labels);
      this.#series.set(key, series);
    }
    return series;
  }

  values(): IterableIterator<S> {
    return this.#series.values();
  }
}

/** A metric as prom-client's registry collects it; its collector interface is async. */
export function collected<T extends string, V>(
  metric: { readonly name: string; readonly help: string; readonly type: T; readonly aggregator: 'sum' },
  values: V[],
): Promise<{
  /** The metric's Prometheus name. */
  name: string;
  /** The metric's `# HELP` text. */
  help: string;
  /** The metric's Prometheus type (`counter`, `histogram`). */
  type: T;
  /** How prom-client combines the metric across cluster workers: always `sum`. */
  aggregator: 'sum';
  /** One sample per series (per bucket, sum and count for a histogram). */
  values: V[];
}> {
  const { name, help, type, aggregator } = metric;
  return Promise.resolve({ name, help, type, aggregator, values });
}
