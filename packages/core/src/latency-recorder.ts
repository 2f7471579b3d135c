import type * as hdr from 'hdr-histogram-js';
import { FastpathError } from './fastpath-error.js';
import { hdrHistogram } from './internal/heavy-dependencies.js';

/** Percentiles of a {@link LatencyRecorder}, in milliseconds (resolution: 1 µs, 3 significant digits). */
export interface LatencySummary {
  /** Durations recorded (merged ones included); the other fields are 0 when it is 0. */
  count: number;
  /** Shortest duration recorded, ms (durations that round to 0 µs are left out). */
  minMs: number;
  /** Arithmetic mean of the durations, ms. */
  meanMs: number;
  /** Median, ms. */
  p50Ms: number;
  /** 90th percentile, ms. */
  p90Ms: number;
  /** 99th percentile, ms. */
  p99Ms: number;
  /** 99.9th percentile, ms. */
  p999Ms: number;
  /** Longest duration recorded, ms (durations above one hour are recorded as one hour). */
  maxMs: number;
}

// Values are kept in whole microseconds: fine enough for a lock hand-off, and an hour still fits.
const US_PER_MS = 1000;
const HIGHEST_TRACKABLE_US = 3_600_000_000;

function newHistogram(): hdr.Histogram {
  return hdrHistogram().build({
    bitBucketSize: 64,
    lowestDiscernibleValue: 1,
    highestTrackableValue: HIGHEST_TRACKABLE_US,
    numberOfSignificantValueDigits: 3,
    autoResize: true,
    useWebAssembly: false,
  });
}

/**
 * Exact latency percentiles (an HDR histogram), where a Prometheus histogram only has buckets.
 * Recorders from worker threads or other processes are combined by sending
 * {@link LatencyRecorder.toBase64} across and calling {@link LatencyRecorder.merge}.
 *
 * @example
 * ```ts
 * const verify = new LatencyRecorder();
 * const t0 = performance.now();
 * await manager.verifyToken(token);
 * verify.recordMs(performance.now() - t0);
 * console.log(verify.summary().p99Ms);
 * ```
 */
export class LatencyRecorder {
  #histogram: hdr.Histogram;

  constructor() {
    this.#histogram = newHistogram();
  }

  /** Records one duration in milliseconds; negative or NaN values are bugs and throw. */
  recordMs(ms: number): void {
    if (!(ms >= 0)) throw new FastpathError('ERR_INVALID_LATENCY', `latency must be >= 0 ms, got ${ms}`);
    this.#histogram.recordValue(Math.min(HIGHEST_TRACKABLE_US, Math.round(ms * US_PER_MS)));
  }

  /** Durations recorded so far, merged ones included. */
  get count(): number {
    return this.#histogram.totalCount;
  }

  /** Percentiles of everything recorded so far, computed now (the recorder keeps recording). */
  summary(): LatencySummary {
    const h = this.#histogram;
    const at = (p: number): number => h.getValueAtPercentile(p) / US_PER_MS;
    const empty = h.totalCount === 0;
    return {
      count: h.totalCount,
      minMs: empty ? 0 : h.minNonZeroValue / US_PER_MS,
      meanMs: empty ? 0 : h.mean / US_PER_MS,
      p50Ms: at(50),
      p90Ms: at(90),
      p99Ms: at(99),
      p999Ms: at(99.9),
      maxMs: empty ? 0 : h.maxValue / US_PER_MS,
    };
  }

  /** Adds every value recorded by `other` to this recorder. */
  merge(other: LatencyRecorder): void {
    this.#histogram.add(other.#histogram);
  }

  /** Forgets every recorded duration, as if newly made. */
  reset(): void {
    this.#histogram.reset();
  }

  /** A compact, compressed form to send to another thread or process. */
  toBase64(): string {
    return hdrHistogram().encodeIntoCompressedBase64(this.#histogram);
  }

  /** Rebuilds a recorder from {@link LatencyRecorder.toBase64}; bad input throws `ERR_INVALID_LATENCY`. */
  static fromBase64(encoded: string): LatencyRecorder {
    const recorder = new LatencyRecorder();
    let decoded: hdr.Histogram;
    try {
      decoded = hdrHistogram().decodeFromCompressedBase64(encoded, 64, false);
    } catch (cause) {
      throw new FastpathError('ERR_INVALID_LATENCY', 'not an encoded latency histogram', { cause });
    }
    recorder.#histogram.add(decoded);
    return recorder;
  }
}
