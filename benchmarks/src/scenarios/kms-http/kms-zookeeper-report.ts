import {
  formatMs,
  formatRatioWithRange,
  formatSiWithRange,
  markdownTable,
  median,
  type RatioSummary,
  type Summary,
} from '../../harness/index.js';
import { aggregateCases, figures, type CaseFigures, type MixComparison } from './aggregate-cases.js';
import { ENSEMBLE_NODES } from './kms-zookeeper-settings.js';
import type { KmsCaseResult } from './run-kms-case.js';

/** The quorum table's rows (one per mix) and the sweep's (one per delay, `mix` = `<d> ms`). */
export interface ZooKeeperRows {
  quorum: MixComparison[];
  sweep: MixComparison[];
}

/** A goal of the quorum or the sweep, read from the rows; `met` null where the run did not measure it. */
export interface ZooKeeperGoal {
  goal: string;
  measured: string;
  met: boolean | null;
}

export const QUORUM_GOAL = { mix: '90:10', minRatio: 2 } as const;
export const SWEEP_GOAL = { delayMs: 2, minRatio: 4 } as const;

/** The sweep row of a delay. */
export const delayRow = (delayMs: number): string => `${delayMs} ms`;

/** Folds quorum cases by mix and sweep cases (their `mix` already the delay's row) by delay, in the order seen. */
export function zookeeperRows(quorum: readonly CaseFigures[], sweep: readonly CaseFigures[]): ZooKeeperRows {
  const order = (cases: readonly CaseFigures[]): string[] => [...new Set(cases.map((c) => c.mix))];
  const sweepRows = order(sweep).sort((a, b) => parseFloat(a) - parseFloat(b));
  return { quorum: aggregateCases(quorum, order(quorum)), sweep: aggregateCases(sweep, sweepRows) };
}

/** The two goals of these parts: 3-node ensemble at 90:10 fixed/original ≥ 2×, sweep at 2 ms ≥ 4×. */
export function zookeeperGoals(rows: ZooKeeperRows): ZooKeeperGoal[] {
  const goal = (name: string, row: MixComparison | undefined, min: number): ZooKeeperGoal => {
    const r = row?.fixedOverOriginal;
    return { goal: name, measured: r ? `${r.ratio.toFixed(2)}×` : '—', met: r ? r.ratio >= min : null };
  };
  return [
    goal(
      `${ENSEMBLE_NODES}-node ensemble, ${QUORUM_GOAL.mix}: fixed/original ≥ ${QUORUM_GOAL.minRatio}×`,
      rows.quorum.find((r) => r.mix === QUORUM_GOAL.mix),
      QUORUM_GOAL.minRatio,
    ),
    goal(
      `Sweep at ${SWEEP_GOAL.delayMs} ms: fixed/original ≥ ${SWEEP_GOAL.minRatio}×`,
      rows.sweep.find((r) => r.mix === delayRow(SWEEP_GOAL.delayMs)),
      SWEEP_GOAL.minRatio,
    ),
  ];
}

/** The rows of a measured run's quorum and sweep cases. */
export function zookeeperRowsOf(results: readonly KmsCaseResult[]): ZooKeeperRows {
  return zookeeperRows(
    results.filter((r) => r.part === 'quorum').map(figures),
    results
      .filter((r) => r.part === 'sweep')
      .map((r) => ({ ...figures(r), mix: delayRow(r.zookeeperSetup.delayMs ?? 0) })),
  );
}

const withRange = (s: Summary | undefined): string => (s ? formatSiWithRange(s.median, s.min, s.max) : '—');
const ratio = (r: RatioSummary | null): string => (r ? formatRatioWithRange(r.ratio, r.min, r.max) : '—');

/** Requests/s of original, fixed and coalesced with the two ratios, for whichever of them ran. */
export function versionsTable(
  firstHeader: string,
  rows: readonly MixComparison[],
  extra: { header: string; cell: (row: MixComparison) => string }[] = [],
): string {
  const has = (v: 'original' | 'fixed' | 'coalesced'): boolean =>
    rows.some((r) => r.throughput[v] !== undefined);
  const right = (header: string) => ({ header, align: 'right' as const });
  return markdownTable(
    [
      firstHeader,
      ...(has('original') ? [right('Original req/s')] : []),
      ...(has('fixed') ? [right('Fixed req/s')] : []),
      ...(has('original') && has('fixed') ? [right('Fixed/original')] : []),
      ...(has('coalesced') ? [right('Fixed + coalesced req/s')] : []),
      ...(has('original') && has('coalesced') ? [right('Coalesced/original')] : []),
      ...extra.map((e) => right(e.header)),
    ],
    rows.map((r) => [
      r.mix,
      ...(has('original') ? [withRange(r.throughput.original)] : []),
      ...(has('fixed') ? [withRange(r.throughput.fixed)] : []),
      ...(has('original') && has('fixed') ? [ratio(r.fixedOverOriginal)] : []),
      ...(has('coalesced') ? [withRange(r.throughput.coalesced)] : []),
      ...(has('original') && has('coalesced') ? [ratio(r.coalescedOverOriginal)] : []),
      ...extra.map((e) => e.cell(r)),
    ]),
  );
}

/** Median of a figure over the cases that have it, or null. */
function medianOf(
  cases: readonly KmsCaseResult[],
  pick: (r: KmsCaseResult) => number | null | undefined,
): number | null {
  const values = cases.map(pick).filter((x): x is number => typeof x === 'number' && Number.isFinite(x));
  return values.length > 0 ? median(values) : null;
}

const percent = (x: number | null): string => (x === null ? '—' : `${x.toFixed(0)}%`);

/** The quorum and sweep sections of the scenario's report; empty when the run had neither. */
export function zookeeperReportSections(results: readonly KmsCaseResult[]): string {
  const rows = zookeeperRowsOf(results);
  const quorumCases = results.filter((r) => r.part === 'quorum');
  const sweepCases = results.filter((r) => r.part === 'sweep');
  const sections: string[] = [];
  if (rows.quorum.length > 0) {
    const zkCpu = (mix: string): string =>
      percent(
        medianOf(
          quorumCases.filter((r) => r.mix === mix),
          (r) => r.zookeeperSetup.serversCpuPercentOfOneCore,
        ),
      );
    sections.push(
      `### Quorum: a ${ENSEMBLE_NODES}-node ZooKeeper ensemble (median req/s, min-max over repetitions)`,
      '',
      versionsTable('Verify:create', rows.quorum, [
        { header: `ZooKeeper CPU, ${ENSEMBLE_NODES} servers (% of a core)`, cell: (r) => zkCpu(r.mix) },
      ]),
      '',
      `Every case starts a fresh ${ENSEMBLE_NODES}-node ensemble on loopback (three JVMs, one leader); the KMS's ` +
        'connect string lists all three, and each creation is committed by a quorum (leader and one follower) ' +
        'before ZooKeeper answers. The three JVMs share the same 2 cores as the KMS and the load generator.',
      '',
    );
  }
  if (rows.sweep.length > 0) {
    const ofDelay = (row: string) =>
      sweepCases.filter((r) => delayRow(r.zookeeperSetup.delayMs ?? 0) === row);
    const proxyCpu = (row: string): string =>
      percent(medianOf(ofDelay(row), (r) => r.zookeeperSetup.proxy?.cpuPercentOfOneCore));
    const held = (row: string): string => {
      const min = medianOf(ofDelay(row), (r) => r.zookeeperSetup.proxy?.stats.heldMinMs);
      const late = medianOf(ofDelay(row), (r) => r.zookeeperSetup.proxy?.stats.lateMeanMs);
      return `${min === null ? '—' : formatMs(min)} / +${late === null ? '—' : formatMs(late)}`;
    };
    const mix = sweepCases[0]?.mix ?? '90:10';
    sections.push(
      `### ZooKeeper-latency sweep at ${mix} (not the headline matrix: an injected delay)`,
      '',
      versionsTable('One-way delay', rows.sweep, [
        { header: 'proxy CPU (% of a core)', cell: (r) => proxyCpu(r.mix) },
        { header: 'chunk held min / mean lateness', cell: (r) => held(r.mix) },
      ]),
      '',
      'ZooKeeper (standalone) is reached through a TCP proxy in a process of its own that holds every chunk, ' +
        'in each direction, for the one-way delay (so a request pays twice the delay): a model of ZooKeeper ' +
        "on another host, since this kernel has no netem. The 0 ms row is the proxy's hop alone. The proxy's " +
        'CPU is its own process over the measured window; "held min" is the shortest time any chunk was held ' +
        '(never below the delay), "lateness" how much longer than the delay chunks were held on average.',
      '',
    );
  }
  return sections.join('\n');
}
