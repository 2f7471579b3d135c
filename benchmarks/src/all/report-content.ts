// The combined report as a list of blocks, rendered to Markdown and to HTML by two small
// renderers, so both files always say the same.
import path from 'node:path';
import { formatClock, formatRatio, formatRatioWithRange } from '../harness/index.js';
import { machineTable } from './machine-info.js';
import type { ReportChart, ReportLink, RunReport, ScenarioSection } from './run-report.js';
import type { ScenarioRunRecord } from './run-manifest.js';
import type { FigureTable, GoalResult, RatioFigure } from './scenario-summary.js';

export type ReportBlock =
  | { kind: 'heading'; level: 1 | 2 | 3; text: string; id?: string }
  | { kind: 'paragraph'; text: string }
  /** A warning at the top of the report or a section (incomplete, failed). */
  | { kind: 'banner'; text: string }
  | { kind: 'table'; table: FigureTable; id?: string }
  | { kind: 'links'; links: ReportLink[] }
  | { kind: 'charts'; charts: ReportChart[] }
  | { kind: 'code'; text: string };

const ratio = (v: number | undefined | null): string =>
  v === null || v === undefined ? '—' : formatRatio(v);

function ranged(r: RatioFigure['ours']): string {
  return r ? formatRatioWithRange(r.value, r.min, r.max) : 'not measured';
}

/** Ours ÷ the source's: how much of the source's effect this run shows (1× = the same). */
export function ratioOfRatios(figure: RatioFigure): number | null {
  return figure.ours && figure.source ? figure.ours.value / figure.source : null;
}

function goalsMet(goals: readonly GoalResult[]): string {
  if (goals.length === 0) return 'none declared';
  const met = goals.filter((g) => g.met === true).length;
  const missed = goals.filter((g) => g.met === false).length;
  const open = goals.length - met - missed;
  return `${met} of ${goals.length} met${missed ? `, ${missed} missed` : ''}${open ? `, ${open} not measured` : ''}`;
}

export function anchorOf(name: string): string {
  return `scenario-${name}`;
}

function statusText(s: ScenarioSection): string {
  const took = s.record.tookMs === null ? '' : ` in ${formatClock(s.record.tookMs)}`;
  return `${s.record.status}${took}`;
}

/** The 1-minute load average at the scenario's start and end, e.g. `1.9 → 18.4`. */
export function loadText(record: ScenarioRunRecord): string {
  const start = record.loadAverage?.start[0];
  if (start === undefined) return '—';
  const end = record.loadAverage?.end?.[0];
  return end === undefined ? start.toFixed(1) : `${start.toFixed(1)} → ${end.toFixed(1)}`;
}

/** The Node a scenario's figures were taken on, or `—` for a run recorded before it was kept. */
export function nodeText(record: ScenarioRunRecord): string {
  return record.node ?? '—';
}

function summaryTable(report: RunReport): FigureTable {
  const compared = report.compared;
  const columns: FigureTable['columns'] = [
    { header: 'scenario' },
    { header: 'source' },
    { header: 'status' },
    { header: 'headline' },
    { header: 'ours (min–max)', align: 'right' },
    { header: 'source', align: 'right' },
    { header: 'ours ÷ source', align: 'right' },
    { header: 'goals' },
    { header: 'Node' },
    { header: 'load (1 min) start → end', align: 'right' },
  ];
  if (compared) {
    columns.push({ header: 'older run (min–max)', align: 'right' }, { header: 'vs older run' });
  }
  const rows = report.sections.map((s) => {
    const h = s.figures?.headline ?? null;
    const row = [
      s.record.name,
      s.record.source,
      statusText(s),
      h ? `${h.label} (${h.better} is better)` : '—',
      h ? ranged(h.ours) : '—',
      ratio(h?.source),
      h ? ratio(ratioOfRatios(h)) : '—',
      s.figures ? goalsMet(s.figures.goals) : (s.figuresMissing ?? '—'),
      nodeText(s.record),
      loadText(s.record),
    ];
    if (compared) {
      const c = compared.headlines.get(s.record.name);
      row.push(c?.older ? formatRatioWithRange(c.older.value, c.older.min, c.older.max) : '—');
      row.push(c ? (c.verdict === 'regression' ? 'REGRESSION (outside the older min–max)' : c.verdict) : '—');
    }
    return row;
  });
  return {
    caption:
      'One row per scenario: its headline ratio (median, with the range of its rounds), the source document’s, how many of its goals this run met, the Node its figures were taken on, and the machine’s load average when it started and ended (2 cores: above 2, other work shared them).',
    columns,
    rows,
  };
}

function ratiosTable(figures: readonly RatioFigure[]): FigureTable {
  return {
    caption:
      'Each of our ratios against the source’s ratio of the same row: ours ÷ source = 1× means the same effect.',
    columns: [
      { header: 'row' },
      { header: 'ratio' },
      { header: 'ours (min–max)', align: 'right' },
      { header: 'source', align: 'right' },
      { header: 'ours ÷ source', align: 'right' },
    ],
    rows: figures.map((f) => [f.row, f.label, ranged(f.ours), ratio(f.source), ratio(ratioOfRatios(f))]),
  };
}

function goalsTable(goals: readonly GoalResult[]): FigureTable {
  return {
    caption: 'Goals, read from this run (shown, never enforced).',
    columns: [
      { header: 'goal' },
      { header: 'target' },
      { header: 'measured', align: 'right' },
      { header: 'met' },
    ],
    rows: goals.map((g) => [
      g.goal,
      g.target || '—',
      g.measured,
      g.met === null ? 'not measured' : g.met ? 'met' : 'MISSED',
    ]),
  };
}

function sectionBlocks(s: ScenarioSection): ReportBlock[] {
  const blocks: ReportBlock[] = [
    { kind: 'heading', level: 2, text: `${s.record.name}: ${s.record.title}`, id: anchorOf(s.record.name) },
    {
      kind: 'paragraph',
      text: `Source: ${s.record.source} · status: ${statusText(s)} · figures taken on Node ${nodeText(s.record)}${s.record.command ? ` · command: ${s.record.command}` : ''}`,
    },
  ];
  if (s.record.status !== 'complete') {
    blocks.push({
      kind: 'banner',
      text:
        s.record.status === 'not run' || s.record.status === 'pending'
          ? 'Not run: the run stopped before this scenario.'
          : `This scenario did not complete (${s.record.status}); what it finished is shown.`,
    });
    if (s.record.error) blocks.push({ kind: 'code', text: s.record.error });
  }
  if (s.links.length) blocks.push({ kind: 'links', links: s.links });
  if (s.published) {
    blocks.push({
      kind: 'heading',
      level: 3,
      text: `The source’s table, as published (${s.published.document})`,
    });
    blocks.push({
      kind: 'table',
      table: {
        caption: `${s.published.caption}. Set-up: ${s.published.setting}.`,
        columns: s.published.columns.map((header, i) => ({ header, align: i === 0 ? 'left' : 'right' })),
        rows: s.published.rows.map((r) => [...r]),
      },
    });
  }
  if (!s.figures) {
    blocks.push({ kind: 'paragraph', text: `No figures: ${s.figuresMissing ?? 'unknown reason'}.` });
  } else {
    const f = s.figures;
    if (f.table) {
      blocks.push({ kind: 'heading', level: 3, text: s.published ? 'Ours, in the same layout' : 'Ours' });
      blocks.push({ kind: 'table', table: f.table });
    }
    if (f.ratios.length) {
      blocks.push({ kind: 'heading', level: 3, text: 'Our ratios against the source’s' });
      blocks.push({ kind: 'table', table: ratiosTable(f.ratios) });
    }
    blocks.push({ kind: 'heading', level: 3, text: 'Goals' });
    blocks.push(
      f.goals.length
        ? { kind: 'table', table: goalsTable(f.goals) }
        : { kind: 'paragraph', text: 'No goals are declared for this scenario.' },
    );
    for (const note of f.notes) blocks.push({ kind: 'paragraph', text: note });
  }
  if (s.charts.length) {
    blocks.push({ kind: 'heading', level: 3, text: 'Charts' });
    blocks.push({ kind: 'charts', charts: s.charts });
  }
  return blocks;
}

/** Every block of the combined report, top to bottom. */
export function reportBlocks(report: RunReport): ReportBlock[] {
  const m = report.manifest;
  const profile = m.quick
    ? 'quick profile (`--quick`): shortened durations, a smoke run; do not quote its numbers as results'
    : 'full profile: every scenario with its source document’s defaults';
  const blocks: ReportBlock[] = [
    {
      kind: 'heading',
      level: 1,
      text: `fastpath benchmarks: ${report.complete ? 'report' : 'INCOMPLETE report'}`,
    },
  ];
  if (!report.complete) {
    const unfinished = report.sections
      .filter((s) => s.record.status !== 'complete')
      .map((s) => `${s.record.name} (${s.record.status})`);
    blocks.push({
      kind: 'banner',
      text: `Incomplete: ${m.status === 'running' ? 'the run has not finished: it is still running, or its process crashed or was killed' : (m.stopped ?? 'not every scenario completed')}. Not complete: ${unfinished.join(', ') || 'none'}. Every finished scenario’s results are kept and shown.`,
    });
  }
  const took = m.finishedAt ? formatClock(Date.parse(m.finishedAt) - Date.parse(m.startedAt)) : '?';
  blocks.push({
    kind: 'paragraph',
    text: `Started ${m.startedAt}${m.finishedAt ? `, finished ${m.finishedAt} (took ${took})` : ''} · ${profile}${m.only ? ` · only: ${m.only.join(', ')}` : ''}.`,
  });
  blocks.push({ kind: 'heading', level: 2, text: 'Summary', id: 'summary' });
  blocks.push({ kind: 'table', table: summaryTable(report), id: 'summary-table' });
  if (report.compared) {
    blocks.push({
      kind: 'paragraph',
      text: `Compared with the older run in ${path.basename(report.compared.dir)}: a headline outside that run’s min–max is flagged (REGRESSION when it moved the wrong way).`,
    });
  }
  blocks.push({ kind: 'heading', level: 2, text: 'Machine and command', id: 'machine' });
  blocks.push({
    kind: 'table',
    table: {
      caption: 'The machine the run measured, and the versions of what it used.',
      columns: [{ header: 'item' }, { header: 'value' }],
      rows: [
        ...machineTable(m.machine),
        ['commit', `${m.machine.gitCommit}${m.machine.gitDirty ? ' (with uncommitted changes)' : ''}`],
        ['command', m.command],
        ['working directory', m.cwd],
      ],
    },
  });
  for (const s of report.sections) blocks.push(...sectionBlocks(s));
  return blocks;
}
