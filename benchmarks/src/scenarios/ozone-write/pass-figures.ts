// What one client's writes of one pass measured, and the figures the report shows from them.
import { nearestRank } from '../ratis/load-figures.js';

/** One client's pass of one row, as measured inside that client's own process. */
export interface PassSample {
  /** Keys committed (close() resolved). */
  keys: number;
  /** Keys whose write or commit failed. */
  errors: number;
  /** Bytes of the committed keys. */
  bytes: number;
  /** First CreateKey to the last key's commit, ns. */
  wallNs: number;
  /** CPU time of the client's whole process over the pass, ns. */
  cpuNs: number;
  /** Each committed key's time from CreateKey to the commit, µs. */
  latenciesUs: readonly number[];
  firstError?: string;
}

/** The per-pass figures of one client. */
export interface PassFigures {
  mibPerSec: number;
  keysPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** Client CPU per MiB written, ms. */
  cpuMsPerMiB: number;
}

const MiB = 1024 * 1024;

/** Throughput, latency per key and CPU per MiB of one pass; null when it committed nothing. */
export function passFigures(sample: PassSample): PassFigures | null {
  if (sample.latenciesUs.length !== sample.keys)
    throw new RangeError(`${sample.keys} keys but ${sample.latenciesUs.length} latencies`);
  if (sample.keys === 0 || sample.bytes === 0 || sample.wallNs <= 0) return null;
  const seconds = sample.wallNs / 1e9;
  const mib = sample.bytes / MiB;
  return {
    mibPerSec: mib / seconds,
    keysPerSec: sample.keys / seconds,
    p50Ms: nearestRank(sample.latenciesUs, 0.5) / 1000,
    p99Ms: nearestRank(sample.latenciesUs, 0.99) / 1000,
    cpuMsPerMiB: sample.cpuNs / 1e6 / mib,
  };
}
