import {
  rangedRatio,
  type FigureTable,
  type GoalResult,
  type RangedValue,
} from '../../all/scenario-summary.js';
import {
  formatRatioWithRange,
  formatSignificant,
  markdownTable,
  type ChartSpec,
} from '../../harness/index.js';
import type { EcCoder } from './ec-codec-settings.js';

/** One row of the table: a layout and an op, with each column's MiB/s (median, min, max) or why not. */
export interface EcCodecRow {
  schema: string;
  op: string;
  coders: Partial<Record<EcCoder, RangedValue | { missing: string }>>;
}

export const CODER_HEADERS: Record<EcCoder, string> = {
  typescript: 'fastpath TypeScript MiB/s',
  'isa-l-addon': 'fastpath ISA-L addon MiB/s',
  'hadoop-java': 'Hadoop Java coder MiB/s',
  'isa-l-native': 'ISA-L from C MiB/s',
};

function ranged(v: RangedValue | { missing: string } | undefined): RangedValue | null {
  return v !== undefined && 'value' in v ? v : null;
}

/** fastpath's faster column of the row. */
export function bestFastpath(row: EcCodecRow): RangedValue | null {
  const candidates = [ranged(row.coders.typescript), ranged(row.coders['isa-l-addon'])].filter(
    (v): v is RangedValue => v !== null,
  );
  return candidates.sort((a, b) => b.value - a.value)[0] ?? null;
}

/** Best fastpath ÷ another column, medians with ranges from the rounds' extremes. */
export function bestRatio(row: EcCodecRow, to: EcCoder): RangedValue | null {
  const best = bestFastpath(row);
  const other = ranged(row.coders[to]);
  return best !== null && other !== null ? rangedRatio(best, other) : null;
}

function cell(v: RangedValue | { missing: string } | undefined): string {
  if (v === undefined) return '—';
  if (!('value' in v)) return `— (${v.missing})`;
  return `${formatSignificant(v.value)} (${formatSignificant(v.min)}–${formatSignificant(v.max)})`;
}

function ratioCell(v: RangedValue | null): string {
  return v === null ? '—' : formatRatioWithRange(v.value, v.min, v.max);
}

/** The table of the report and of `all`. */
export function ecCodecTable(rows: readonly EcCodecRow[], coders: readonly EcCoder[]): FigureTable {
  return {
    caption:
      'Data MiB of whole stripes coded per second, 1 thread, median of the rounds (min–max); ratios: fastpath’s faster kernel ÷ the column, medians (range from the rounds’ extremes)',
    columns: [
      { header: 'layout' },
      { header: 'op' },
      ...coders.map((c) => ({ header: CODER_HEADERS[c], align: 'right' as const })),
      { header: 'best fastpath ÷ Hadoop Java', align: 'right' },
      { header: 'best fastpath ÷ ISA-L from C', align: 'right' },
    ],
    rows: rows.map((r) => [
      r.schema,
      r.op,
      ...coders.map((c) => cell(r.coders[c])),
      ratioCell(bestRatio(r, 'hadoop-java')),
      ratioCell(bestRatio(r, 'isa-l-native')),
    ]),
  };
}

/** The two goals per row: ≥ 1× Hadoop's Java coder, ≥ 0.5× ISA-L's native speed. */
export function ecCodecGoals(rows: readonly EcCodecRow[]): GoalResult[] {
  return rows.flatMap((r) => {
    const java = bestRatio(r, 'hadoop-java');
    const isal = bestRatio(r, 'isa-l-native');
    return [
      {
        goal: `${r.schema} ${r.op}: fastpath ≥ Hadoop's Java coder`,
        target: '≥ 1×',
        measured: java === null ? 'not measured' : `${formatSignificant(java.value)}×`,
        met: java === null ? null : java.value >= 1,
      },
      {
        goal: `${r.schema} ${r.op}: fastpath within 2× of ISA-L`,
        target: '≥ 0.5×',
        measured: isal === null ? 'not measured' : `${formatSignificant(isal.value)}×`,
        met: isal === null ? null : isal.value >= 0.5,
      },
    ];
  });
}

/** The report body. */
export function ecCodecMarkdown(
  rows: readonly EcCodecRow[],
  coders: readonly EcCoder[],
  notes: readonly string[],
): string {
  const table = ecCodecTable(rows, coders);
  const goals = ecCodecGoals(rows);
  return [
    table.caption + '.',
    '',
    markdownTable(table.columns, table.rows),
    '',
    '### Goals',
    '',
    markdownTable(
      ['goal', 'target', 'measured', 'met'],
      goals.map((g) => [g.goal, g.target, g.measured, g.met === null ? '—' : g.met ? 'yes' : 'no']),
    ),
    '',
    ...notes.map((n) => `- ${n}`),
  ].join('\n');
}

/** MiB/s per row and column, log scale (the kernels span two decades). */
export function ecCodecChart(rows: readonly EcCodecRow[], coders: readonly EcCoder[]): ChartSpec {
  return {
    title: 'Erasure coding: MiB/s of stripe data, 1 MiB cells',
    subtitle: 'median of the rounds; whiskers: min–max',
    categories: rows.map((r) => `${r.schema} ${r.op}`),
    series: coders.map((coder) => ({
      name: CODER_HEADERS[coder].replace(/ MiB\/s$/, ''),
      points: rows.map((r) => {
        const v = ranged(r.coders[coder]);
        return v === null ? null : { value: v.value, min: v.min, max: v.max };
      }),
    })),
    yLabel: 'MiB/s (log scale)',
    yScale: 'log',
  };
}
