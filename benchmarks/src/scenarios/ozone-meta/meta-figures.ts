// The figures of ozone-meta from what the client processes returned: per window ops/s and client
// CPU per op; per operation and client the rounds summarized (median, min–max) with p50/p99 over
// every round's operations; fastpath ÷ Ozone's Java client over rounds paired by number, for each
// of fastpath's transports; issue 31's goals; the listing checks; and each client's rounds as the
// security cost takes them (one level's against the unsecured level's). Pure functions: tested
// without a cluster.
import type { GoalResult } from '../../all/scenario-summary.js';
import {
  compareRounds,
  formatRatioWithRange,
  summarize,
  type RatioSummary,
  type Summary,
} from '../../harness/index.js';
import { nearestRank } from '../ratis/load-figures.js';
import type { LevelRounds } from '../ozone-read/security-cost.js';
import type { SecurityLevel } from '../ozone-read/security-levels.js';
import {
  META_CLIENTS,
  META_OP_LABEL,
  type MetaClient,
  type MetaOp,
  type VerifyCounts,
  type WindowSample,
} from './meta-workload.js';

/** fastpath ≥ 1.5× Java's ops/s, CPU per op ≤ 0.7× Java's (issue 31, item 5). */
export const META_GOALS = Object.freeze({ opsPerSec: 1.5, cpuMsPerOp: 0.7 });

export const FASTPATH_CLIENTS = ['fastpath-rpc', 'fastpath-grpc'] as const;
export type FastpathClient = (typeof FASTPATH_CLIENTS)[number];

/** One client's window of one operation in one measured round. */
export interface RoundSample {
  round: number;
  sample: WindowSample;
}

export interface WindowFigures {
  opsPerSec: number;
  cpuMsPerOp: number;
}

/** ops/s and CPU per op of one window; null when it completed nothing. */
export function windowFigures(s: WindowSample): WindowFigures | null {
  if (s.ops === 0 || s.elapsedMs <= 0) return null;
  return { opsPerSec: (s.ops * 1000) / s.elapsedMs, cpuMsPerOp: s.cpuMs / s.ops };
}

/** One client's figures for one operation over the measured rounds (comparison.json). */
export interface ClientOpFigures {
  /** Rounds that completed at least one operation. */
  rounds: number;
  opsPerSec: Summary;
  cpuMsPerOp: Summary;
  /** Over every operation of every round. */
  p50Ms: number;
  p99Ms: number;
  ops: number;
  errors: number;
  /** Rounds whose window stopped early because its keys ran out (rename, delete). */
  exhaustedRounds: number;
  /** The cluster's CPU per op in this client's windows, ms (where the cluster's CPU was read). */
  clusterCpuMsPerOp?: Summary;
  /** Cores kept busy by this client and the cluster together over its windows. */
  busyCores?: Summary;
  firstError?: string;
}

export function clientOpFigures(rounds: readonly RoundSample[]): ClientOpFigures | null {
  const measured = rounds.flatMap((r) => {
    const f = windowFigures(r.sample);
    return f ? [f] : [];
  });
  const errors = rounds.reduce((n, r) => n + r.sample.errors, 0);
  const firstError = rounds.map((r) => r.sample.firstError).find((e) => e !== undefined);
  if (measured.length === 0) return null;
  const latencies = rounds.flatMap((r) => r.sample.latenciesUs);
  return {
    rounds: measured.length,
    opsPerSec: summarize(measured.map((f) => f.opsPerSec)),
    cpuMsPerOp: summarize(measured.map((f) => f.cpuMsPerOp)),
    p50Ms: nearestRank(latencies, 0.5) / 1000,
    p99Ms: nearestRank(latencies, 0.99) / 1000,
    ops: rounds.reduce((n, r) => n + r.sample.ops, 0),
    errors,
    exhaustedRounds: rounds.filter((r) => r.sample.exhausted).length,
    ...clusterFigures(rounds),
    ...(firstError === undefined ? {} : { firstError }),
  };
}

/** The cluster's CPU per op and the cores busy, over the windows whose cluster CPU was read. */
function clusterFigures(
  rounds: readonly RoundSample[],
): Pick<ClientOpFigures, 'clusterCpuMsPerOp' | 'busyCores'> {
  const windows = rounds.flatMap(({ sample: w }) =>
    w.clusterCpuMs !== undefined && w.ops > 0 && w.elapsedMs > 0
      ? [{ ...w, clusterCpuMs: w.clusterCpuMs }]
      : [],
  );
  if (windows.length === 0) return {};
  return {
    clusterCpuMsPerOp: summarize(windows.map((w) => w.clusterCpuMs / w.ops)),
    busyCores: summarize(windows.map((w) => (w.cpuMs + w.clusterCpuMs) / w.elapsedMs)),
  };
}

/**
 * The most ops/s any client could reach on `cores` cores, given the cluster's CPU per op in this
 * client's windows: a client costing no CPU at all still leaves the cluster needing that much per
 * op, so ops/s ≤ cores ÷ cluster CPU per op. With it, that ceiling ÷ Java's measured ops/s: where
 * it is below the ops/s goal, no client can meet the goal on this machine.
 */
export function opsCeiling(
  o: OpComparison,
  client: MetaClient,
  cores: number,
): { opsPerSec: number; againstJava: number | null } | null {
  const clusterMs = o.clients[client]?.clusterCpuMsPerOp?.median;
  if (clusterMs === undefined || clusterMs <= 0) return null;
  const opsPerSec = (cores * 1000) / clusterMs;
  const java = o.clients.java?.opsPerSec.median;
  return { opsPerSec, againstJava: java ? opsPerSec / java : null };
}

export interface AgainstJava {
  /** fastpath ÷ Java ops/s (higher is better). */
  opsPerSec: RatioSummary;
  /** fastpath ÷ Java client CPU per op (lower is better). */
  cpuMsPerOp: RatioSummary;
}

/** One operation's row (comparison.json, key `op-<op>`). */
export interface OpComparison {
  op: MetaOp;
  label: string;
  clients: Partial<Record<MetaClient, ClientOpFigures>>;
  /** Each fastpath transport against Ozone's Java client over the rounds both measured. */
  againstJava: Partial<Record<FastpathClient, AgainstJava>>;
  /** Failed operations of every client (must be 0). */
  errors: number;
  /** Clients with no completed operation in any round. */
  nothingDone: MetaClient[];
  /** The security level of the cluster it ran on (absent: none, as in results from before the levels). */
  security?: SecurityLevel;
}

/** Pairs two clients' rounds by number: round i of each ran side by side with the other's round i. */
function paired(a: readonly RoundSample[], b: readonly RoundSample[]): Array<[WindowFigures, WindowFigures]> {
  const other = new Map(b.map((r) => [r.round, windowFigures(r.sample)]));
  return a.flatMap((r) => {
    const mine = windowFigures(r.sample);
    const theirs = other.get(r.round);
    return mine && theirs ? [[mine, theirs] as [WindowFigures, WindowFigures]] : [];
  });
}

export function compareOp(
  op: MetaOp,
  rounds: Partial<Record<MetaClient, readonly RoundSample[]>>,
): OpComparison {
  const out: OpComparison = {
    op,
    label: META_OP_LABEL[op],
    clients: {},
    againstJava: {},
    errors: 0,
    nothingDone: [],
  };
  for (const client of META_CLIENTS) {
    const mine = rounds[client];
    if (!mine) continue;
    out.errors += mine.reduce((n, r) => n + r.sample.errors, 0);
    const f = clientOpFigures(mine);
    if (f) out.clients[client] = f;
    else out.nothingDone.push(client);
  }
  const java = rounds.java;
  if (java)
    for (const client of FASTPATH_CLIENTS) {
      const pairs = paired(rounds[client] ?? [], java);
      if (pairs.length === 0) continue;
      const ratio = (m: keyof WindowFigures): RatioSummary =>
        compareRounds(
          pairs.map(([f]) => f[m]),
          pairs.map(([, j]) => j[m]),
        );
      out.againstJava[client] = { opsPerSec: ratio('opsPerSec'), cpuMsPerOp: ratio('cpuMsPerOp') };
    }
  return out;
}

/**
 * Each client's measured rounds of one operation at one level, as the security cost takes them:
 * ops/s and CPU ms per op of every round that completed an operation, in round order.
 */
export function metaLevelRounds(
  level: SecurityLevel,
  op: MetaOp,
  rounds: Partial<Record<MetaClient, readonly RoundSample[]>>,
): LevelRounds[] {
  return META_CLIENTS.flatMap((client) => {
    const figures = [...(rounds[client] ?? [])]
      .sort((a, b) => a.round - b.round)
      .flatMap((r) => {
        const f = windowFigures(r.sample);
        return f ? [f] : [];
      });
    return figures.length === 0
      ? []
      : [
          {
            client,
            operation: META_OP_LABEL[op],
            level,
            throughput: figures.map((f) => f.opsPerSec),
            cpuPerOp: figures.map((f) => f.cpuMsPerOp),
          },
        ];
  });
}

const ratioText = (r: RatioSummary): string => formatRatioWithRange(r.ratio, r.min, r.max);

/**
 * Issue 31's goals per operation: ops/s and CPU per op, each met when both of fastpath's
 * transports meet it; not measured without Ozone's Java client beside them.
 */
export function metaGoals(ops: readonly OpComparison[]): GoalResult[] {
  const goals: GoalResult[] = [];
  for (const o of ops)
    for (const [metric, target, better] of [
      ['opsPerSec', META_GOALS.opsPerSec, 'higher'],
      ['cpuMsPerOp', META_GOALS.cpuMsPerOp, 'lower'],
    ] as const) {
      const measured = FASTPATH_CLIENTS.flatMap((c) => {
        const r = o.againstJava[c]?.[metric];
        return r ? [[c, r] as const] : [];
      });
      goals.push({
        goal: `${o.label}: fastpath ${metric === 'opsPerSec' ? 'ops/s' : 'client CPU per op'} ${better === 'higher' ? '≥' : '≤'} ${target}× Ozone's Java client's, both transports`,
        target: `${better === 'higher' ? '≥' : '≤'} ${target}×`,
        measured:
          measured.length === 0
            ? 'not measured'
            : measured.map(([c, r]) => `${c === 'fastpath-rpc' ? 'RPC' : 'gRPC'} ${ratioText(r)}`).join(', '),
        met:
          measured.length < FASTPATH_CLIENTS.length
            ? null
            : measured.every(([, r]) => (better === 'higher' ? r.ratio >= target : r.ratio <= target)),
      });
    }
  return goals;
}

/** One client's listing checks over the rounds (comparison.json, key `verify`). */
export interface VerifyTotals {
  /** Listings held against what should be there (two per round: before the deletes and at its end). */
  listings: number;
  expected: number;
  found: number;
  missing: number;
  unexpected: number;
  firstProblem?: string;
}

export function verifyTotals(rounds: readonly VerifyCounts[]): VerifyTotals {
  const sum = (f: (v: VerifyCounts) => number): number => rounds.reduce((n, v) => n + f(v), 0);
  const firstProblem = rounds.map((v) => v.firstProblem).find((p) => p !== undefined);
  return {
    listings: rounds.length,
    expected: sum((v) => v.expected),
    found: sum((v) => v.found),
    missing: sum((v) => v.missing),
    unexpected: sum((v) => v.unexpected),
    ...(firstProblem === undefined ? {} : { firstProblem }),
  };
}

/** Failed operations, keys missing or left over, and clients that did nothing: must all be 0. */
export function problemCount(
  ops: readonly OpComparison[],
  verify: Readonly<Partial<Record<MetaClient, VerifyTotals>>>,
): number {
  return (
    ops.reduce((n, o) => n + o.errors + o.nothingDone.length, 0) +
    Object.values(verify).reduce((n, v) => n + (v ? v.missing + v.unexpected : 0), 0)
  );
}
