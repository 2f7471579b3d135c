// The benchmark's side of the profile probe (profile-probe.ts): the environment that loads it
// into a fastpath-kms, and the profiles it wrote once the load generator's second signal stopped
// it, read back, summed over the server's processes and threads and kept in the results folder.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { pollUntil } from '@fastpath/jvm-fixture';
import {
  summarizeCpuProfile,
  topSelfFunctions,
  type CpuProfile,
  type ProfileFunction,
  type ProfileSummary,
} from '../../harness/cpu-profile-summary.js';
import { summarizeThreadProfiles } from '../../harness/thread-profiles.js';
import { probedPids } from './event-loop-probe.js';
import { PROFILE_PROBE_DIR_ENV } from './profile-probe-protocol.js';

/**
 * `env` with the probe (`probePath`, the built module, absolute) loaded too, writing to `dir`: its
 * `--import` added to the NODE_OPTIONS `env` already sets (the event-loop probe's), or to this
 * process's.
 */
export function withProfileProbe(
  env: Readonly<Record<string, string>>,
  dir: string,
  probePath: string,
): Record<string, string> {
  const nodeOptions = env.NODE_OPTIONS ?? process.env.NODE_OPTIONS;
  return {
    ...env,
    [PROFILE_PROBE_DIR_ENV]: dir,
    NODE_OPTIONS: [nodeOptions, `--import=${pathToFileURL(probePath).href}`].filter((o) => o).join(' '),
  };
}

/** The busiest functions a profiled server records. */
const TOP_FUNCTIONS = 8;

/** One server's profiled window, every process and thread of it together. */
export interface ServerProfile {
  profile: ProfileSummary & { threads: number };
  /** The busiest functions of the busiest main thread (a cluster's primary idles). */
  topFunctions: ProfileFunction[];
  /** The `.cpuprofile` files, in the results folder. */
  files: string[];
}

/**
 * The profiles of window `seq` (1 for the first) from every process that loaded the probe into
 * `dir`, waiting up to `timeoutMs` for each to say they are complete; copied to
 * `<resultsPrefix>-<pid>[.worker-<n>].cpuprofile`.
 *
 * @throws Error when a process does not finish in time or reports that profiling failed
 */
export async function collectServerProfile(
  dir: string,
  seq: number,
  resultsPrefix: string,
  timeoutMs: number,
): Promise<ServerProfile> {
  const pids = probedPids(dir);
  if (pids.length === 0) throw new Error(`no process loaded the profile probe into ${dir}`);
  const deadline = Date.now() + timeoutMs;
  for (const pid of pids) {
    const done = path.join(dir, `${pid}-${seq}.done`);
    const written = await pollUntil(() => Promise.resolve(existsSync(done) ? true : undefined), {
      timeoutMs: Math.max(0, deadline - Date.now()),
    });
    if (written === undefined) throw new Error(`process ${pid} wrote no profile within ${timeoutMs} ms`);
    const { error } = JSON.parse(readFileSync(done, 'utf8')) as { error?: string };
    if (error !== undefined) throw new Error(`profiling process ${pid} failed: ${error}`);
  }
  mkdirSync(path.dirname(resultsPrefix), { recursive: true });
  const mains: CpuProfile[] = [];
  const all: CpuProfile[] = [];
  const files: string[] = [];
  for (const pid of pids) {
    const own = readdirSync(dir)
      .filter((f) => f.startsWith(`${pid}-${seq}.`) && f.endsWith('.cpuprofile'))
      // The main thread's file first: `<pid>-<n>.cpuprofile`, then its workers'.
      .sort((a, b) => a.length - b.length || a.localeCompare(b));
    own.forEach((f, i) => {
      const profile = JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as CpuProfile;
      if (i === 0) mains.push(profile);
      all.push(profile);
      const target = `${resultsPrefix}-${f.replace(`-${seq}.`, '.')}`;
      copyFileSync(path.join(dir, f), target);
      files.push(target);
    });
  }
  const busiest = mains
    .map((p) => ({ p, busyMs: summarizeCpuProfile(p).busyMs }))
    .sort((a, b) => b.busyMs - a.busyMs)[0]?.p;
  return {
    profile: summarizeThreadProfiles(all),
    topFunctions: busiest ? topSelfFunctions(busiest, TOP_FUNCTIONS) : [],
    files,
  };
}
