// What one client's load of one round measured, and the figures the report shows from it.

/** One client's load of writes, as measured inside that client's own process. */
export interface LoadSample {
  writes: number;
  /** First send to last reply, ns. */
  wallNs: number;
  /** CPU time of the client's whole process over the load, ns. */
  cpuNs: number;
  /** Each write's latency, send to reply, µs. */
  latenciesUs: readonly number[];
}

/** The per-round figures of one client. */
export interface LoadFigures {
  writesPerSec: number;
  mibPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** Client CPU per write, µs. */
  cpuMicrosPerWrite: number;
}

/**
 * The `q` quantile (0-1) of `values` by the nearest-rank method: the smallest value with at
 * least `q` of the values at or below it.
 */
export function nearestRank(values: readonly number[], q: number): number {
  if (values.length === 0) throw new RangeError('nearestRank of no values');
  if (!(q > 0 && q <= 1)) throw new RangeError(`quantile ${q} outside (0, 1]`);
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil(q * sorted.length) - 1] as number;
}

/** Throughput, latency and CPU per write of one load of `sizeBytes` writes. */
export function loadFigures(sample: LoadSample, sizeBytes: number): LoadFigures {
  if (sample.writes <= 0 || sample.wallNs <= 0) throw new RangeError('a load needs writes and a duration');
  if (sample.latenciesUs.length !== sample.writes) {
    throw new RangeError(`${sample.writes} writes but ${sample.latenciesUs.length} latencies`);
  }
  const seconds = sample.wallNs / 1e9;
  return {
    writesPerSec: sample.writes / seconds,
    mibPerSec: (sample.writes * sizeBytes) / (1024 * 1024) / seconds,
    p50Ms: nearestRank(sample.latenciesUs, 0.5) / 1000,
    p99Ms: nearestRank(sample.latenciesUs, 0.99) / 1000,
    cpuMicrosPerWrite: sample.cpuNs / 1000 / sample.writes,
  };
}

/** Which client runs first in a round: they alternate, so neither always meets a fresher group. */
export function clientOrder<T>(round: number, clients: readonly [T, T]): [T, T] {
  return round % 2 === 0 ? [clients[0], clients[1]] : [clients[1], clients[0]];
}
