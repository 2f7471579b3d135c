import { markdownTable, median, type Summary } from '../../harness/index.js';
import type { ProbeTimes } from './cold-client-probe.js';
import type { Breakdown } from './cold-start-breakdown.js';
import type { ColdClientVariant } from './cold-client-variants.js';

export interface VariantResult {
  variant: ColdClientVariant;
  createMs: Summary;
  metadataMs: Summary;
  readMs: Summary;
  lookupAndReadMs: Summary;
  totalMs: Summary;
  /** Spawn to exit, seen from the parent (process creation and exit included). */
  wallMs: Summary;
  rounds: ProbeTimes[];
}

const ms = (v: number): string => `${Math.round(v).toLocaleString('en-US')} ms`;
const range = (s: Summary): string =>
  `${Math.round(s.min).toLocaleString('en-US')}–${Math.round(s.max).toLocaleString('en-US')}`;

function saving(s: Summary, base: Summary): string {
  if (s === base) return '';
  const d = s.median - base.median;
  return ` (**${d <= 0 ? '−' : '+'}${Math.abs(Math.round(d))} ms**)`;
}

/** The source's table (create the client | read | total), with the saving per variant, and the ranges. */
export function coldClientMarkdown(
  results: readonly VariantResult[],
  baseline: VariantResult,
  rounds: number,
): string {
  const table = markdownTable(
    [
      'client',
      { header: 'create the client', align: 'right' },
      { header: 'lookup + read 64 KiB', align: 'right' },
      { header: 'total (process start to close)', align: 'right' },
      { header: 'total min–max', align: 'right' },
      { header: 'spawn to exit (parent)', align: 'right' },
    ],
    results.map((r) => [
      r.variant.label,
      ms(r.createMs.median),
      ms(r.lookupAndReadMs.median),
      `${ms(r.totalMs.median)}${saving(r.totalMs, baseline.totalMs)}`,
      range(r.totalMs),
      `${ms(r.wallMs.median)}${saving(r.wallMs, baseline.wallMs)}`,
    ]),
  );
  const split = markdownTable(
    [
      'client',
      { header: 'getFileStatus (first OM call)', align: 'right' },
      { header: 'open + read 64 KiB (first datanode contact)', align: 'right' },
      { header: 'read min–max', align: 'right' },
    ],
    results.map((r) => [r.variant.label, ms(r.metadataMs.median), ms(r.readMs.median), range(r.readMs)]),
  );
  return `${rounds} interleaved rounds (the variants rotate within each round), medians; fresh \`node\` process per run, TLS mini cluster in its own process.\n\n${table}\n\nThe lookup and the read apart:\n\n${split}`;
}

/** Medians of each step of the cold-start breakdown, with warm-up off and on. */
export function breakdownMarkdown(
  breakdowns: readonly { mode: string; rounds: readonly Breakdown[] }[],
): string {
  const steps = [...new Set(breakdowns.flatMap((b) => b.rounds.flatMap((r) => Object.keys(r))))];
  const cell = (rounds: readonly Breakdown[], step: string): string => {
    const v = rounds.map((r) => r[step]).filter((x): x is number => x !== undefined);
    return v.length ? `${median(v).toFixed(1)} ms` : '—';
  };
  const table = markdownTable(
    [
      'step (fresh process, in this order)',
      ...breakdowns.map((b) => ({ header: b.mode, align: 'right' as const })),
    ],
    steps.map((step) => [step, ...breakdowns.map((b) => cell(b.rounds, step))]),
  );
  return `### Where a cold client's time goes (medians of ${breakdowns[0]?.rounds.length ?? 0} rounds)\n\n${table}`;
}
