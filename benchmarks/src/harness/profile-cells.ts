// The cells a report's profile table gives one profiled window: its CPU and sampled busy time per
// unit of work (an operation, a request), that busy time split by category in µs per unit, and
// its busiest functions. In µs per unit rather than shares, so that two rows of the same work
// subtract: what one setting adds over another, and in which category.
import { PROFILE_CATEGORIES, type ProfileFunction, type ProfileSummary } from './cpu-profile-summary.js';

/** One profiled window, as its table row needs it. */
export interface ProfiledWork {
  /** Units of work done in the window (operations, requests). */
  units: number;
  /** The process's CPU over the window (the profiler's included), ms; null where it was not read. */
  cpuMs: number | null;
  profile: ProfileSummary;
  /** Busiest first, as `topSelfFunctions` lists them. */
  topFunctions: readonly ProfileFunction[];
}

/** Busiest functions a row names. */
export const PROFILE_CELL_FUNCTIONS = 4;

/** Categories under this many µs per unit are left out of a row: below the sampling's resolution. */
const MIN_CATEGORY_US = 1;

/** `ms` of CPU over `units`, in µs per unit (`125.0 µs`); — without a figure or units. */
export function usPerUnitCell(ms: number | null, units: number): string {
  return ms === null || !(units > 0) ? '—' : `${((ms * 1000) / units).toFixed(1)} µs`;
}

/** The busy time per unit by category, busiest first (`fastpath server 31, Fastify 12`), in µs. */
export function categoryUsCell(profile: ProfileSummary, units: number): string {
  if (!(units > 0)) return '—';
  return [...PROFILE_CATEGORIES]
    .map((c) => ({ c, us: (profile.busyMs * 1000 * profile.shares[c]) / units }))
    .filter((e) => e.us >= MIN_CATEGORY_US)
    .sort((a, b) => b.us - a.us)
    .map((e) => `${e.c} ${e.us.toFixed(0)}`)
    .join(', ');
}

/** The busiest functions by self time, with their share of the profile's busy time (`decode 40%`). */
export function busiestFunctionsCell(functions: readonly ProfileFunction[]): string {
  return functions
    .slice(0, PROFILE_CELL_FUNCTIONS)
    .map((f) => `${f.functionName || '(anonymous)'} ${Math.round(f.share * 100)}%`)
    .join(', ');
}

/** A row's four profile cells: CPU per unit, sampled busy time per unit, by category, busiest functions. */
export function profileCells(w: ProfiledWork): [string, string, string, string] {
  return [
    usPerUnitCell(w.cpuMs, w.units),
    usPerUnitCell(w.profile.busyMs, w.units),
    categoryUsCell(w.profile, w.units),
    busiestFunctionsCell(w.topFunctions),
  ];
}
