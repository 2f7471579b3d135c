import { BenchmarkInputError } from './benchmark-errors.js';

/** Median, extremes and mean of one case's rounds. */
export interface Summary {
  count: number;
  median: number;
  min: number;
  max: number;
  mean: number;
}

/**
 * A candidate against a baseline measured in the same rounds: the ratio of their medians, and the
 * spread of the per-round ratios (round i of the candidate over round i of the baseline). Pairing
 * by round cancels much of the drift of a shared machine, so the range is narrower than the ratio
 * of the two ranges would be.
 */
export interface RatioSummary {
  /** median(candidate) / median(baseline). */
  ratio: number;
  /** Smallest per-round ratio. */
  min: number;
  /** Largest per-round ratio. */
  max: number;
  /** Number of paired rounds. */
  rounds: number;
}

function checkSamples(values: readonly number[], what: string): void {
  if (values.length === 0) throw new BenchmarkInputError(`${what}: no samples`);
  for (const v of values) {
    if (!Number.isFinite(v)) throw new BenchmarkInputError(`${what}: sample ${v} is not a finite number`);
  }
}

/**
 * The middle value; for an even count, the mean of the two middle values.
 *
 * @example
 * ```ts
 * median([3, 1, 2]); // 2
 * median([4, 1, 3, 2]); // 2.5
 * ```
 */
export function median(values: readonly number[]): number {
  checkSamples(values, 'median');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * Summarises a set of samples (for example ops/s of each measured round).
 *
 * @example
 * ```ts
 * summarize([10, 30, 20]); // { count: 3, median: 20, min: 10, max: 30, mean: 20 }
 * ```
 */
export function summarize(values: readonly number[]): Summary {
  checkSamples(values, 'summarize');
  let min = Infinity;
  let max = -Infinity;
  let sum = 0;
  for (const v of values) {
    if (v < min) min = v;
    if (v > max) max = v;
    sum += v;
  }
  return { count: values.length, median: median(values), min, max, mean: sum / values.length };
}

/** median(candidate) / median(baseline). */
export function ratioOfMedians(candidate: readonly number[], baseline: readonly number[]): number {
  const base = median(baseline);
  if (base === 0) throw new BenchmarkInputError('ratioOfMedians: the baseline median is 0');
  return median(candidate) / base;
}

/**
 * Compares paired rounds of a candidate and a baseline; both arrays hold one sample per round, in
 * round order.
 *
 * @example
 * ```ts
 * compareRounds([200, 210, 190], [100, 100, 95]); // { ratio: 2, min: 2, max: 2.1, rounds: 3 }
 * ```
 */
export function compareRounds(candidate: readonly number[], baseline: readonly number[]): RatioSummary {
  if (candidate.length !== baseline.length) {
    throw new BenchmarkInputError(
      `compareRounds: ${candidate.length} candidate rounds but ${baseline.length} baseline rounds`,
    );
  }
  checkSamples(candidate, 'compareRounds');
  checkSamples(baseline, 'compareRounds');
  if (baseline.some((v) => v === 0)) throw new BenchmarkInputError('compareRounds: a baseline round is 0');
  const perRound = candidate.map((v, i) => v / baseline[i]!);
  return {
    ratio: ratioOfMedians(candidate, baseline),
    min: Math.min(...perRound),
    max: Math.max(...perRound),
    rounds: perRound.length,
  };
}
