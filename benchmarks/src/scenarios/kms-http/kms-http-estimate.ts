import type { KmsHttpSettings } from './kms-http-settings.js';
import type { KmsVersion } from './kms-versions.js';

// What a case costs beyond its warm-up and measured window, measured on this machine kind (2
// loaded cores) from the case logs of full runs: a fresh ZooKeeper JVM, the KMS process, the
// checks, the load-generator process, draining, and stopping all three.
/** A fastpath case, besides its windows and ZooKeeper's warm-up. */
export const FASTPATH_CASE_OVERHEAD_MS = 12_000;
/** Hadoop's KMS JVM starts slower than a fastpath process and stops through Jetty. */
export const HADOOP_CASE_OVERHEAD_MS = 25_000;
/** The trivial route: a server and a generator process, no ZooKeeper, no checks. */
export const BASELINE_CASE_OVERHEAD_MS = 5000;
/**
 * ZooKeeper's warm-up settles (three batches of 1000 creations within 10%) in about this long
 * on a fresh JVM here; `zkWarmupMs` bounds it.
 */
export const ZOOKEEPER_WARMUP_TYPICAL_MS = 15_000;

/** The expected length of one KMS case of `version`. */
export function kmsCaseMs(s: KmsHttpSettings, version: KmsVersion): number {
  const zookeeper = Math.min(s.zkWarmupMs, ZOOKEEPER_WARMUP_TYPICAL_MS);
  const windows = s.warmupMs + s.measureMs;
  return version === 'hadoop'
    ? zookeeper + s.jvmWarmupMs + windows + HADOOP_CASE_OVERHEAD_MS
    : zookeeper + windows + FASTPATH_CASE_OVERHEAD_MS;
}

/** The expected length of one measurement of the trivial route. */
export function baselineCaseMs(s: KmsHttpSettings): number {
  return s.warmupMs + s.measureMs + BASELINE_CASE_OVERHEAD_MS;
}

/** The whole scenario: every repetition's cases of every mix and version, and its baseline. */
export function estimateKmsHttpMs(s: KmsHttpSettings): number {
  const perMix = s.versions.reduce((n, v) => n + kmsCaseMs(s, v), 0);
  return s.reps * (s.mixes.length * perMix + (s.baseline ? baselineCaseMs(s) : 0));
}
