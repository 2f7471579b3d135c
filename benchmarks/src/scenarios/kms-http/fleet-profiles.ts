// kms-http --profile-fleet, the pure part: which cases run a profiled window, the requests each
// instance served in it, and the report's table of where each instance's CPU per request went.
import type { ProfileFunction, ProfileSummary } from '../../harness/cpu-profile-summary.js';
import { profileCells } from '../../harness/profile-cells.js';
import type { TableColumn } from '../../harness/index.js';
import type { OperationMix } from '../../harness/mixed-load/operation-mix.js';
import { FLEET_KINDS, FLEET_VERSION, fleetRowLabel, type FleetSetup } from './kms-fleet.js';
import type { KmsHttpSettings } from './kms-http-settings.js';
import type { KmsPass } from './kms-passes.js';
import type { KmsVersion } from './kms-versions.js';

/**
 * Whether a case runs a profiled window after its measured one: with `--profile-fleet`, in the
 * first repetition (one row per case and instance in the table, and the run's length nearly
 * unchanged), every fleet case and the single instance's cookie case the fleet rows compare with
 * (the fleet's version, a mix with creations).
 */
export function profiledCase(
  s: Pick<KmsHttpSettings, 'profileFleet'>,
  pass: Pick<KmsPass, 'part' | 'creationAuth' | 'fleet'>,
  version: KmsVersion,
  mix: OperationMix,
  rep: number,
): boolean {
  if (!s.profileFleet || rep !== 0) return false;
  if (pass.fleet) return true;
  return (
    pass.part === 'kerberos' && pass.creationAuth === 'cookie' && version === FLEET_VERSION && mix.create > 0
  );
}

/**
 * The requests of a window each instance served: the window's requests split as the balancer's
 * counts over the call (warm-up and drain included: round robin keeps the shares the same);
 * without a balancer, all of them to the one instance.
 */
export function instanceRequests(
  windowRequests: number,
  instances: number,
  servedBefore: readonly number[] | null,
  servedAfter: readonly number[] | null,
): number[] {
  if (servedBefore === null || servedAfter === null) return [windowRequests];
  const served = Array.from({ length: instances }, (_, i) => (servedAfter[i] ?? 0) - (servedBefore[i] ?? 0));
  const total = served.reduce((a, b) => a + b, 0);
  return served.map((n) => (total > 0 ? (windowRequests * n) / total : 0));
}

/** One fastpath instance's profiled window. */
export interface ProfiledInstance {
  /** The fleet of the case; null for the single instance's cookie case. */
  fleet: FleetSetup | null;
  mix: string;
  /** Its place behind the balancer, from 0 (0 for the single instance). */
  instance: number;
  pid: number;
  /** Requests it served in the profiled window. */
  requests: number;
  /** Its process tree's CPU over the profiled window (the profiler's included), ms. */
  cpuMs: number | null;
  /** The case's server µs per request in its measured window, without the profiler, every instance summed. */
  measuredUsPerRequest: number | null;
  profile: ProfileSummary & { threads: number };
  topFunctions: ProfileFunction[];
  /** The `.cpuprofile` files, in the results folder. */
  files: string[];
}

/** Where the table puts a row: by mix, the single instance first, then the fleets as the fleet table orders them. */
function rowOrder(p: ProfiledInstance): number {
  if (p.fleet === null) return 0;
  return 1 + p.fleet.instances * FLEET_KINDS.length + FLEET_KINDS.indexOf(p.fleet.kind);
}

/** The table: per case and instance, its CPU per request, the sampled busy time by category, the busiest functions. */
export function fleetProfileTable(profiled: readonly ProfiledInstance[]): {
  columns: TableColumn[];
  rows: string[][];
} {
  const mixes = [...new Set(profiled.map((p) => p.mix))];
  const rows = [...profiled].sort(
    (a, b) =>
      mixes.indexOf(a.mix) - mixes.indexOf(b.mix) || rowOrder(a) - rowOrder(b) || a.instance - b.instance,
  );
  const right = (header: string): TableColumn => ({ header, align: 'right' });
  return {
    columns: [
      { header: 'Verify:create' },
      { header: 'Instances' },
      right('instance'),
      right('measured µs/request (all instances)'),
      right('requests'),
      right('CPU/request'),
      right('sampled/request'),
      { header: 'by category, µs per request' },
      { header: 'busiest functions' },
    ],
    rows: rows.map((p) => [
      p.mix,
      fleetRowLabel({ kind: p.fleet?.kind ?? null, instances: p.fleet?.instances ?? 1 }),
      String(p.instance + 1),
      p.measuredUsPerRequest === null ? '—' : p.measuredUsPerRequest.toFixed(0),
      p.requests.toFixed(0),
      ...profileCells({
        units: p.requests,
        cpuMs: p.cpuMs,
        profile: p.profile,
        topFunctions: p.topFunctions,
      }),
    ]),
  };
}

/** What the table's figures are, for the report. */
export const FLEET_PROFILE_NOTE =
  "Each row: one fastpath instance in a window of its own after the case's measured window (first repetition " +
  "only, the case's load and mix), with V8's sampling profiler on every thread of its processes (500 µs between " +
  'samples), started and stopped by the load generator at the boundaries of that window. Measured µs/request: ' +
  "the case's server CPU per request in its measured window, without the profiler, every instance summed (the " +
  "fleet table's column). Requests: those the instance served in the profiled window (the window's, split as " +
  "the balancer counted them). CPU/request: the instance's process tree over those requests, the profiler's " +
  'cost included; sampled/request: the busy (non-idle) time the samples stand for, split by the category of ' +
  "each sample's own function (categories of 1 µs or more), so that the rows subtract: what an instance of a " +
  'fleet pays per request beyond the single instance, and where. Busiest functions: self time, share of the ' +
  "busiest main thread's busy time. The `.cpuprofile` files are in `profiles/`; Hadoop's KMS (a JVM) is not profiled.";
