// What security costs each client, measured against the client itself: per operation and secure
// level, secure ÷ unsecured of its own throughput and of its own CPU per operation (ratio of the
// medians, min–max of the per-round ratios, rounds paired by number: each level's round i ran in
// the same turn order), and the goal that fastpath pays no more than Ozone's Java client does:
// its throughput ratio at least Java's, its CPU ratio at most Java's. Pure functions: tested
// without a cluster.
import type { GoalResult } from '../../all/scenario-summary.js';
import { compareRounds, formatRatioWithRange, type RatioSummary } from '../../harness/index.js';
import { SECURITY_LEVEL_LABEL, type SecurityLevel } from './security-levels.js';

/** One client's measured rounds of one operation at one level: a value per round, in round order. */
export interface LevelRounds {
  client: string;
  operation: string;
  level: SecurityLevel;
  /** Operations/s (higher is better). */
  throughput: readonly number[];
  /** Client CPU per operation, any unit the same at every level (lower is better). */
  cpuPerOp: readonly number[];
}

/** One client's cost of one secure level on one operation. */
export interface SecurityCostRow {
  client: string;
  operation: string;
  /** The secure level (never none). */
  level: SecurityLevel;
  /** Secure ÷ unsecured throughput: 1× costs nothing, lower costs more. */
  throughput: RatioSummary;
  /** Secure ÷ unsecured CPU per operation: 1× costs nothing, higher costs more. */
  cpuPerOp: RatioSummary;
}

/** Secure over unsecured, rounds paired by number (the shorter list decides how many). */
function pairedRatio(secure: readonly number[], none: readonly number[]): RatioSummary | null {
  const n = Math.min(secure.length, none.length);
  if (n === 0 || none.slice(0, n).some((v) => v === 0)) return null;
  return compareRounds(secure.slice(0, n), none.slice(0, n));
}

/**
 * Every secure level's cost per client and operation, in the order given; a client or operation
 * without unsecured rounds has no row.
 */
export function securityCost(rounds: readonly LevelRounds[]): SecurityCostRow[] {
  const key = (r: LevelRounds): string => `${r.client}\u0000${r.operation}`;
  const unsecured = new Map(rounds.filter((r) => r.level === 'none').map((r) => [key(r), r]));
  return rounds.flatMap((r) => {
    const base = r.level === 'none' ? undefined : unsecured.get(key(r));
    if (base === undefined) return [];
    const throughput = pairedRatio(r.throughput, base.throughput);
    const cpuPerOp = pairedRatio(r.cpuPerOp, base.cpuPerOp);
    return throughput && cpuPerOp
      ? [{ client: r.client, operation: r.operation, level: r.level, throughput, cpuPerOp }]
      : [];
  });
}

/** Whether `row` (a candidate's) meets the goal against the baseline client's row of its operation and level. */
export function costGoalMet(
  rows: readonly SecurityCostRow[],
  row: SecurityCostRow,
  baseline: string,
): { throughput: boolean | null; cpuPerOp: boolean | null } {
  const base = rows.find(
    (r) => r.client === baseline && r.operation === row.operation && r.level === row.level,
  );
  if (base === undefined || row.client === baseline) return { throughput: null, cpuPerOp: null };
  return {
    throughput: row.throughput.ratio >= base.throughput.ratio,
    cpuPerOp: row.cpuPerOp.ratio <= base.cpuPerOp.ratio,
  };
}

const ratioText = (r: RatioSummary): string => formatRatioWithRange(r.ratio, r.min, r.max);

/**
 * The goals: for each operation, secure level and candidate client, its throughput ratio at least
 * the baseline's and its CPU ratio at most the baseline's (not measured without the baseline).
 */
export function securityCostGoals(
  rows: readonly SecurityCostRow[],
  baseline: { client: string; label: string },
  clientLabel: (client: string) => string,
): GoalResult[] {
  return rows
    .filter((r) => r.client !== baseline.client)
    .flatMap((row) => {
      const base = rows.find(
        (r) => r.client === baseline.client && r.operation === row.operation && r.level === row.level,
      );
      const met = costGoalMet(rows, row, baseline.client);
      return (['throughput', 'cpuPerOp'] as const).map((metric) => ({
        goal: `${row.operation}, ${SECURITY_LEVEL_LABEL[row.level]}: ${clientLabel(row.client)}'s secure ÷ unsecured ${metric === 'throughput' ? 'ops/s' : 'CPU per op'} ${metric === 'throughput' ? '≥' : '≤'} ${baseline.label}'s`,
        target: `${metric === 'throughput' ? '≥' : '≤'} ${baseline.label}'s ratio`,
        measured: base
          ? `${ratioText(row[metric])} against ${ratioText(base[metric])}`
          : `${ratioText(row[metric])}; ${baseline.label} not measured`,
        met: met[metric],
      }));
    });
}
