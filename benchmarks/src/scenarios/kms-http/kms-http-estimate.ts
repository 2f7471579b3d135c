import type { KmsHttpSettings } from './kms-http-settings.js';
import { fleetMembers } from './kms-fleet.js';
import { profiledCase } from './fleet-profiles.js';
import { PROFILE_WARMUP_MS } from './profiled-window.js';
import { kmsPasses, type KmsPass, type ZooKeeperSetup } from './kms-passes.js';
import type { KmsVersion } from './kms-versions.js';

// What a case costs beyond its warm-up and measured window, from the case logs of full runs on
// this machine kind (2 cores, loaded): a fresh ZooKeeper JVM, the KMS process, the checks, the
// load-generator process, draining, and stopping all three. A full run of the four versions took
// 26-37 s per fastpath case (median 28.5 s, 20 s of it windows) and 53-69 s per Hadoop case
// (40 s of windows and JVM warm-up); an earlier full run of the three fastpath versions on a
// busier machine took 22:38 for 36 cases and 3 baselines, about 35 s a case.
/** A fastpath case, besides its windows and ZooKeeper's warm-up. */
export const FASTPATH_CASE_OVERHEAD_MS = 11_000;
/** Hadoop's KMS JVM starts slower than a fastpath process (10-20 s) and stops through Jetty. */
export const HADOOP_CASE_OVERHEAD_MS = 24_000;
/** The trivial route: a server and a generator process, no ZooKeeper, no checks. */
export const BASELINE_CASE_OVERHEAD_MS = 6000;
/**
 * ZooKeeper's warm-up takes about this long per case here: two short runs on a loaded machine
 * settled in 6-28 s, or reached the bound (`zkWarmupMs`, 20 s by default) first.
 */
export const ZOOKEEPER_WARMUP_TYPICAL_MS = 15_000;

/** An ensemble's two more JVMs and their election, on top of a standalone server's start. */
export const ENSEMBLE_EXTRA_MS = 4000;
/** The delay proxy's Node process (tsx) in front of ZooKeeper. */
export const DELAY_PROXY_EXTRA_MS = 1500;

const STANDALONE: ZooKeeperSetup = Object.freeze({ topology: 'standalone', delayMs: null });

/** The expected length of one KMS case of `version` against `zookeeper` (default: standalone, no proxy). */
export function kmsCaseMs(s: KmsHttpSettings, version: KmsVersion, zookeeper = STANDALONE): number {
  const warmup = Math.min(s.zkWarmupMs, ZOOKEEPER_WARMUP_TYPICAL_MS);
  const windows = s.warmupMs + s.measureMs;
  const start =
    (zookeeper.topology === 'ensemble' ? ENSEMBLE_EXTRA_MS : 0) +
    (zookeeper.delayMs !== null ? DELAY_PROXY_EXTRA_MS : 0);
  return version === 'hadoop'
    ? start + warmup + s.jvmWarmupMs + windows + HADOOP_CASE_OVERHEAD_MS
    : start + warmup + windows + FASTPATH_CASE_OVERHEAD_MS;
}

/**
 * One case of `pass` with `version`: a fleet's members start one after another on the one
 * ZooKeeper (each member's start on top of the first's case), the JVM warm-up once for all.
 */
export function passCaseMs(s: KmsHttpSettings, pass: KmsPass, version: KmsVersion): number {
  if (!pass.fleet) return kmsCaseMs(s, version, pass.zookeeper);
  const members = fleetMembers(pass.fleet);
  const first = kmsCaseMs(s, members[0] as KmsVersion, pass.zookeeper);
  return first + members.slice(1).length * FASTPATH_CASE_OVERHEAD_MS;
}

/** The servers writing their profiles after a profiled window, and the benchmark reading them back. */
const PROFILE_COLLECT_MS = 5000;

/** A profiled window (`--profile-fleet`): its warm-up, the window, and collecting the profiles. */
export function profiledWindowMs(s: KmsHttpSettings): number {
  return PROFILE_WARMUP_MS + s.measureMs + PROFILE_COLLECT_MS;
}

/** One case of `pass` with `version` at `mix` in repetition `rep`, its profiled window included. */
export function caseMs(
  s: KmsHttpSettings,
  pass: KmsPass,
  version: KmsVersion,
  mix: KmsPass['mixes'][number],
  rep: number,
): number {
  return passCaseMs(s, pass, version) + (profiledCase(s, pass, version, mix, rep) ? profiledWindowMs(s) : 0);
}

/** The expected length of one measurement of the trivial route. */
export function baselineCaseMs(s: KmsHttpSettings): number {
  return s.warmupMs + s.measureMs + BASELINE_CASE_OVERHEAD_MS;
}

/**
 * The whole scenario: every repetition's cases of every pass (the matrix, the quorum pass, the
 * sweep's delays) of every mix and version, and its baseline.
 */
export function estimateKmsHttpMs(s: KmsHttpSettings): number {
  const passes = kmsPasses(s);
  let ms = 0;
  for (let rep = 0; rep < s.reps; rep++) {
    for (const pass of passes)
      for (const mix of pass.mixes) for (const v of pass.versions) ms += caseMs(s, pass, v, mix, rep);
    if (s.baseline) ms += baselineCaseMs(s);
  }
  return ms;
}

/** Cases of the whole scenario, the trivial route's included. */
export function kmsHttpCases(s: KmsHttpSettings): number {
  const perRep = kmsPasses(s).reduce((n, pass) => n + pass.mixes.length * pass.versions.length, 0);
  return s.reps * (perRep + (s.baseline ? 1 : 0));
}
