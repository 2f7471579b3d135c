/** One sample of the Prometheus text format. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Parses the exposition text a `/metrics` endpoint answers (comments skipped). */
export function parsePrometheusText(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const m = LINE.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(LABEL))
      labels[l[1] as string] = (l[2] as string).replace(/\\(.)/g, '$1');
    samples.push({ name: m[1] as string, labels, value: Number(m[3]) });
  }
  return samples;
}

/** Sum of every sample of `name` whose labels include `match`. */
export function total(samples: readonly Sample[], name: string, match: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(match).every(([k, v]) => s.labels[k] === v))
    .reduce((n, s) => n + s.value, 0);
}

/**
 * Mean of a histogram over the samples' whole life, in the histogram's unit, or null when it
 * counted nothing. Given a `before` scrape, only what happened in between is used.
 */
export function histogramMean(
  after: readonly Sample[],
  name: string,
  match: Record<string, string> = {},
  before: readonly Sample[] = [],
): number | null {
  const count = total(after, `${name}_count`, match) - total(before, `${name}_count`, match);
  const sum = total(after, `${name}_sum`, match) - total(before, `${name}_sum`, match);
  return count > 0 ? sum / count : null;
}
