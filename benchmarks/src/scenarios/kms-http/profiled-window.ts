// kms-http --profile-fleet, the window itself: after a case's measured window, one more at the
// case's mix with every fastpath instance's profile probe (profile-probe.ts) started and stopped
// by the load generator at the window's boundaries, where it reads each instance's CPU too.
import { formatProfileShares } from '../../harness/cpu-profile-summary.js';
import type { ScenarioContext } from '../../harness/index.js';
import type { RoundRobinProxy } from '@fastpath/hadoop-fixture';
import type { CaseServer } from './case-server.js';
import { cpuPerRequest } from './cpu-per-request.js';
import { instanceRequests, type ProfiledInstance } from './fleet-profiles.js';
import type { KmsHttpSettings } from './kms-http-settings.js';
import type { LoadInput, LoadOutput } from './load-generator-main.js';
import { collectServerProfile } from './server-profile-probe.js';

/**
 * The profiled window's own warm-up: the server is warm from the measured window; the load
 * generator's connections and its log-in are new.
 */
export const PROFILE_WARMUP_MS = 1000;
/** How long a server has to write its profiles after the window (a few MB of JSON per process). */
const PROFILE_WRITE_TIMEOUT_MS = 60_000;

/**
 * A window after the measured one with every fastpath member under the profiler (profile-probe.ts):
 * the load generator signals the probes at its boundaries, where it reads each member's CPU too;
 * `load` runs it with the watch given. Each member's profiles are read back and kept in the
 * results folder as `profiles/<case>[-i<n>]-<pid>.cpuprofile`.
 */
export async function profiledWindow(
  ctx: ScenarioContext<KmsHttpSettings>,
  id: string,
  members: readonly CaseServer[],
  balancer: RoundRobinProxy | undefined,
  measuredUsPerRequest: number | null,
  load: (watch: NonNullable<LoadInput['watch']>) => Promise<LoadOutput>,
): Promise<Array<Omit<ProfiledInstance, 'fleet' | 'mix'>>> {
  const profileDirs = members.flatMap((m) => (m.profileProbeDir === null ? [] : [m.profileProbeDir]));
  const servedBefore = balancer?.served() ?? null;
  const out = await load({
    cpu: Object.fromEntries(members.map((m, i) => [`instance${i}`, [m.pid]])),
    probeDirs: [],
    profileDirs,
  });
  const requests = instanceRequests(
    cpuPerRequest(out.window, out.windowCpu).requests,
    members.length,
    servedBefore,
    balancer?.served() ?? null,
  );
  const profiled: Array<Omit<ProfiledInstance, 'fleet' | 'mix'>> = [];
  for (const [i, m] of members.entries()) {
    if (m.profileProbeDir === null) continue;
    const name = members.length > 1 || balancer ? `${id}-i${i}` : id;
    // A profile that failed costs its row, not the run's measured figures.
    const server = await collectServerProfile(
      m.profileProbeDir,
      1,
      ctx.results.path(`profiles/${name}`),
      PROFILE_WRITE_TIMEOUT_MS,
    ).catch((error: unknown) => {
      ctx.note(`profiled ${name}: no profile, ${error instanceof Error ? error.message : String(error)}`);
      return null;
    });
    if (server === null) continue;
    const seconds = out.windowCpu.seconds[`instance${i}`];
    const entry = {
      instance: i,
      pid: m.pid,
      requests: requests[i] ?? 0,
      cpuMs: seconds == null ? null : seconds * 1000,
      measuredUsPerRequest,
      ...server,
    };
    profiled.push(entry);
    const perRequest = (ms: number | null): string =>
      ms === null || !(entry.requests > 0) ? '—' : `${((ms * 1000) / entry.requests).toFixed(0)} µs`;
    ctx.note(
      `profiled ${name}: ${entry.requests.toFixed(0)} requests, CPU ${perRequest(entry.cpuMs)}/request, ` +
        `sampled ${perRequest(server.profile.busyMs)}/request (${formatProfileShares(server.profile)})`,
    );
  }
  return profiled;
}
