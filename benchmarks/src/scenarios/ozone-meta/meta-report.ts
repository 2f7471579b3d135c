// ozone-meta's tables, one copy for the scenario's own report and its section of `all`'s report:
// fastpath ÷ Ozone's Java client per operation, the figures per operation and client, the listing
// checks, the goals; with several security levels each table's rows come per level, and the
// security cost (each client's secure ÷ unsecured) follows; then the scenario's Markdown around them.
import type { FigureTable, GoalResult } from '../../all/scenario-summary.js';
import type { ProfileFunction, ProfileSummary } from '../../harness/cpu-profile-summary.js';
import {
  formatMs,
  formatRatioWithRange,
  formatSi,
  formatSiWithRange,
  markdownTable,
  runLoadNote,
  type RatioSummary,
  type Summary,
} from '../../harness/index.js';
import { profileCells } from '../../harness/profile-cells.js';
import { verdict } from '../ozone-write/ozone-write-report.js';
import type { SecurityCostRow } from '../ozone-read/security-cost.js';
import { securityCostTable, type SecurityCostLabels } from '../ozone-read/security-cost-report.js';
import { SECURITY_LEVEL_LABEL, type SecurityLevel } from '../ozone-read/security-levels.js';
import { META_GOALS, opsCeiling, type OpComparison, type VerifyTotals } from './meta-figures.js';
import {
  META_CLIENT_LABEL,
  META_CLIENTS,
  META_OP_LABEL,
  META_OPS,
  type MetaClient,
  type MetaOp,
} from './meta-workload.js';
import type { OzoneMetaSettings } from './ozone-meta-settings.js';

const cell = (s: Summary | undefined): string => (s ? formatSiWithRange(s.median, s.min, s.max) : '—');
const ratioCell = (r: RatioSummary | undefined): string =>
  r ? formatRatioWithRange(r.ratio, r.min, r.max) : '—';

/** Whether the rows carry a security level (a run with `--security`): then it is a column. */
const withLevels = (ops: readonly { security?: SecurityLevel }[]): boolean =>
  ops.some((o) => o.security !== undefined);
const levelCells = (levels: boolean, security: SecurityLevel | undefined): string[] =>
  levels ? [SECURITY_LEVEL_LABEL[security ?? 'none']] : [];
const levelColumns = (levels: boolean): Array<{ header: string }> => (levels ? [{ header: 'security' }] : []);

/** How the security cost names ozone-meta's clients; Java's ratios are the goal line. */
export const META_SECURITY_COST_LABELS: SecurityCostLabels = {
  baseline: 'java',
  baselineLabel: "Ozone's Java client",
  clientLabel: (client) => META_CLIENT_LABEL[client as MetaClient] ?? client,
  unit: 'op',
};

export function againstJavaTable(ops: readonly OpComparison[]): FigureTable {
  const levels = withLevels(ops);
  return {
    caption:
      "fastpath ÷ Ozone's Java client per operation, over rounds paired by number (ratio of the medians, min–max of the per-round ratios): ops/s (goal ≥ 1.5×) and client CPU per op (goal ≤ 0.7×)",
    columns: [
      { header: 'operation' },
      ...levelColumns(levels),
      { header: 'ops/s RPC ÷ Java', align: 'right' },
      { header: 'ops/s gRPC ÷ Java', align: 'right' },
      { header: 'CPU/op RPC ÷ Java', align: 'right' },
      { header: 'CPU/op gRPC ÷ Java', align: 'right' },
      { header: 'errors', align: 'right' },
    ],
    rows: ops.map((o) => [
      o.label,
      ...levelCells(levels, o.security),
      ratioCell(o.againstJava['fastpath-rpc']?.opsPerSec),
      ratioCell(o.againstJava['fastpath-grpc']?.opsPerSec),
      ratioCell(o.againstJava['fastpath-rpc']?.cpuMsPerOp),
      ratioCell(o.againstJava['fastpath-grpc']?.cpuMsPerOp),
      String(o.errors),
    ]),
  };
}

export function figuresTable(ops: readonly OpComparison[], clients: readonly MetaClient[]): FigureTable {
  const levels = withLevels(ops);
  return {
    caption:
      'Per operation and client: ops/s and client process CPU ms per op, median of the rounds (min–max); latency p50 / p99 over every operation of every round',
    columns: [
      { header: 'operation' },
      ...levelColumns(levels),
      { header: 'client' },
      { header: 'ops/s', align: 'right' },
      { header: 'p50 / p99', align: 'right' },
      { header: 'CPU ms/op', align: 'right' },
      { header: 'ops', align: 'right' },
      { header: 'errors', align: 'right' },
    ],
    // A client that did not run at a level (fastpath's gRPC on a secure cluster) has no row there.
    rows: ops.flatMap((o) =>
      clients
        .filter((c) => o.clients[c] !== undefined || o.nothingDone.includes(c))
        .map((c) => {
          const f = o.clients[c];
          return [
            o.label,
            ...levelCells(levels, o.security),
            META_CLIENT_LABEL[c],
            cell(f?.opsPerSec),
            f ? `${formatMs(f.p50Ms)} / ${formatMs(f.p99Ms)}` : '—',
            cell(f?.cpuMsPerOp),
            f ? `${f.ops}${f.exhaustedRounds ? ' (keys ran out)' : ''}` : '0',
            String(f?.errors ?? (o.nothingDone.includes(c) ? 'nothing done' : 0)),
          ];
        }),
    ),
  };
}

/**
 * What the cluster costs per operation in each client's windows, the cores busy, and the ops/s
 * ceiling it sets on this machine whatever the client (opsCeiling); null when no window's cluster
 * CPU was read.
 */
export function ceilingTable(
  ops: readonly OpComparison[],
  clients: readonly MetaClient[],
  cores: number,
): FigureTable | null {
  const levels = withLevels(ops);
  const rows = ops.flatMap((o) =>
    clients.flatMap((c) => {
      const f = o.clients[c];
      const ceiling = opsCeiling(o, c, cores);
      if (!f?.clusterCpuMsPerOp || !ceiling) return [];
      return [
        [
          o.label,
          ...levelCells(levels, o.security),
          META_CLIENT_LABEL[c],
          cell(f.clusterCpuMsPerOp),
          cell(f.busyCores),
          formatSi(ceiling.opsPerSec),
          ceiling.againstJava === null ? '—' : `${ceiling.againstJava.toFixed(2)}×`,
        ],
      ];
    }),
  );
  if (rows.length === 0) return null;
  return {
    caption: `What the cluster costs per operation and the ops/s it allows: the cluster's process CPU per op in each client's windows (ms, median and min–max of the rounds), the cores busy with the client and the cluster together, and the ceiling: ${cores} cores ÷ the cluster's CPU per op, the ops/s a client costing no CPU at all could reach on this machine. Where the ceiling is under ${META_GOALS.opsPerSec}× Java's ops/s, no client can meet the ops/s goal here`,
    columns: [
      { header: 'operation' },
      ...levelColumns(levels),
      { header: 'client' },
      { header: 'cluster CPU ms/op', align: 'right' },
      { header: 'cores busy', align: 'right' },
      { header: 'ceiling ops/s', align: 'right' },
      { header: "ceiling ÷ Java's ops/s", align: 'right' },
    ],
    rows,
  };
}

/** One level's listing checks per client. */
export interface LevelVerify {
  security?: SecurityLevel;
  verify: Readonly<Partial<Record<MetaClient, VerifyTotals>>>;
}

export function checksTable(checks: readonly LevelVerify[]): FigureTable {
  const levels = withLevels(checks);
  return {
    caption:
      "Every round's keys listed before its delete window and after its last window (not measured), each client with its own listing: created keys found under their current names, renamed keys not under the old one, deleted keys gone; summed over the listings",
    columns: [
      ...levelColumns(levels),
      { header: 'client' },
      { header: 'listings', align: 'right' },
      { header: 'keys checked', align: 'right' },
      { header: 'found', align: 'right' },
      { header: 'missing', align: 'right' },
      { header: 'left over', align: 'right' },
    ],
    rows: checks.flatMap(({ security, verify }) =>
      META_CLIENTS.flatMap((c) => {
        const v = verify[c];
        return v
          ? [
              [
                ...levelCells(levels, security),
                META_CLIENT_LABEL[c],
                String(v.listings),
                String(v.expected),
                String(v.found),
                String(v.missing),
                String(v.unexpected),
              ],
            ]
          : [];
      }),
    ),
  };
}

/** One fastpath client's profiled window of one operation at one level (`--profile`). */
export interface ProfiledWindow {
  level: SecurityLevel;
  op: MetaOp;
  client: MetaClient;
  ops: number;
  errors: number;
  /** The client process's CPU over the window (profiler included), ms. */
  cpuMs: number;
  profile: ProfileSummary & { threads: number };
  topFunctions: ProfileFunction[];
}

/**
 * Where each profiled window's CPU went, per operation: the sampled busy time per operation split
 * by category, in µs so that the levels' rows of one operation subtract (what security adds, and
 * where), and the busiest functions.
 */
export function profileTable(profiled: readonly ProfiledWindow[]): FigureTable {
  const levels = new Set(profiled.map((p) => p.level)).size > 1 || profiled.some((p) => p.level !== 'none');
  // Operation by operation, each level's rows together (the sort keeps the run's order of levels).
  const rows = [...profiled].sort(
    (a, b) =>
      META_OPS.indexOf(a.op) - META_OPS.indexOf(b.op) ||
      META_CLIENTS.indexOf(a.client) - META_CLIENTS.indexOf(b.client),
  );
  return {
    caption:
      "Where fastpath's CPU per operation went, from a window of its own under V8's sampling profiler (500 µs, every thread) after the measured rounds: the process's CPU per op (profiler included), the sampled busy time per op, split by category (µs per op, categories of 1 µs or more), and the busiest functions by self time (share of the main thread's busy time)",
    columns: [
      { header: 'operation' },
      ...levelColumns(levels),
      { header: 'client' },
      { header: 'CPU/op', align: 'right' },
      { header: 'sampled/op', align: 'right' },
      { header: 'by category, per op' },
      { header: 'busiest functions' },
    ],
    rows: rows.map((p) => [
      META_OP_LABEL[p.op],
      ...levelCells(levels, p.level),
      META_CLIENT_LABEL[p.client],
      ...profileCells({ units: p.ops, cpuMs: p.cpuMs, profile: p.profile, topFunctions: p.topFunctions }),
    ]),
  };
}

const tableMarkdown = (t: FigureTable): string => `${t.caption}.\n\n${markdownTable(t.columns, t.rows)}`;
const optionalTable = (t: FigureTable | null): string[] => (t ? [tableMarkdown(t)] : []);

export function ozoneMetaReport(
  ops: readonly OpComparison[],
  checks: readonly LevelVerify[],
  goals: readonly GoalResult[],
  context: {
    /** Each client's secure ÷ unsecured figures (empty unless the run had none and a secure level). */
    securityCost: readonly SecurityCostRow[];
    quick: boolean;
    settings: OzoneMetaSettings;
    cluster: string;
    layout: string;
    loadAtStart: readonly number[];
    loadAtEnd: readonly number[];
    cores: number;
    /** With `--profile`: the profiled windows. */
    profiled?: readonly ProfiledWindow[];
  },
): string {
  const s = context.settings;
  const java = s.clients.includes('java');
  const load = runLoadNote(context.loadAtStart, context.loadAtEnd, context.cores);
  const errors = [
    ...ops.flatMap((o) =>
      Object.entries(o.clients).flatMap(([c, f]) =>
        f?.firstError
          ? [`${o.label}${o.security ? ` (${o.security})` : ''}, ${c}: ${f.firstError.split('\n')[0]}`]
          : [],
      ),
    ),
    ...ops.flatMap((o) =>
      o.nothingDone.map(
        (c) => `${o.label}${o.security ? ` (${o.security})` : ''}, ${c}: no operation completed`,
      ),
    ),
    ...checks.flatMap(({ security, verify }) =>
      Object.entries(verify).flatMap(([c, v]) =>
        v?.firstProblem ? [`listing check, ${c}${security ? ` (${security})` : ''}: ${v.firstProblem}`] : [],
      ),
    ),
  ];
  const levels = s.security.length > 1 || s.security[0] !== 'none';
  return [
    java
      ? "Read first: **fastpath ÷ Ozone's Java client** per operation in the first table (ops/s goal ≥ 1.5×, CPU per op goal ≤ 0.7×), then the errors and the listing checks (must be 0)."
      : "Read first: the figures per operation of fastpath's two OM transports, and the errors and listing checks (must be 0). Ozone's Java client runs with `--cluster real` or `real-ha` only.",
    `${s.workers} workers per client (one client each, in a process of its own); per operation a ${s.windowMs / 1000} s window per client and round, ${s.rounds} round(s), the clients taking turns going first${s.warmupMs > 0 ? `, after an unmeasured round of ${s.warmupMs / 1000} s windows` : ''}. Bucket layout ${context.layout}, RATIS/THREE keys. Cluster: ${context.cluster}.${levels ? ` Security levels, a cluster each, all up at once, their windows paired (each operation on every level back to back, the levels taking turns going first): ${s.security.map((l) => SECURITY_LEVEL_LABEL[l]).join(', ')}; on a secure cluster every client logs in from the Kerberos user's keytab, and fastpath reaches the OM over Hadoop RPC only (the OM speaks SASL nowhere else, so fastpath's gRPC transport has no secure rows).` : ''}${context.quick ? ' `--quick`: a smoke run; its numbers are not to be quoted.' : ''}`,
    ...(java ? [tableMarkdown(againstJavaTable(ops))] : []),
    tableMarkdown(figuresTable(ops, s.clients)),
    ...optionalTable(ceilingTable(ops, s.clients, context.cores)),
    tableMarkdown(checksTable(checks)),
    ...(context.securityCost.length > 0
      ? [tableMarkdown(securityCostTable(context.securityCost, META_SECURITY_COST_LABELS))]
      : []),
    markdownTable(
      ['goal', 'target', 'measured', 'verdict'],
      goals.map((g) => [g.goal, g.target, g.measured, verdict(g.met)]),
    ),
    ...(context.profiled && context.profiled.length > 0
      ? [tableMarkdown(profileTable(context.profiled))]
      : []),
    ...(errors.length > 0 ? [`Errors: ${errors.join('; ')}`] : []),
    load.line,
  ].join('\n\n');
}
