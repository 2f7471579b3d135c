import os from 'node:os';
import {
  formatRatioWithRange,
  formatSiWithRange,
  markdownTable,
  runLoadNote,
  type Summary,
} from '../../harness/index.js';
import { CLIENT_LABEL, CLIENTS, type SizeComparison } from './ratis-results.js';

const ranged = (s: Summary | undefined): string =>
  s === undefined ? '—' : formatSiWithRange(s.median, s.min, s.max);
const ratio = (r: { ratio: number; min: number; max: number } | undefined): string =>
  r === undefined ? '—' : formatRatioWithRange(r.ratio, r.min, r.max);

/** The scenario's Markdown: what to read first, the figures per client, the ratios, the load. */
export function ratisReport(
  sizes: readonly SizeComparison[],
  context: {
    quick: boolean;
    loadAtStart: readonly number[];
    loadAtEnd: readonly number[];
    ratisVersion: string;
  },
): string {
  const cores = os.cpus().length;
  const load = runLoadNote(context.loadAtStart, context.loadAtEnd, cores);
  const figures = markdownTable(
    [
      'size',
      'client',
      { header: 'window', align: 'right' },
      { header: 'writes/round', align: 'right' },
      { header: 'writes/s', align: 'right' },
      { header: 'MiB/s', align: 'right' },
      { header: 'p50 ms', align: 'right' },
      { header: 'p99 ms', align: 'right' },
      { header: 'client CPU µs/write', align: 'right' },
    ],
    sizes.flatMap((s) =>
      CLIENTS.map((client) => {
        const c = s.clients[client];
        return [
          s.size,
          CLIENT_LABEL[client],
          String(s.window),
          String(s.writesPerRound),
          ranged(c?.writesPerSec),
          ranged(c?.mibPerSec),
          ranged(c?.p50Ms),
          ranged(c?.p99Ms),
          ranged(c?.cpuMicrosPerWrite),
        ];
      }),
    ),
  );
  const ratios = markdownTable(
    [
      'size',
      { header: 'writes/s fastpath ÷ Java (goal ≥ 1×)', align: 'right' },
      { header: 'p99 fastpath ÷ Java (lower is better)', align: 'right' },
      { header: 'CPU/write fastpath ÷ Java (lower is better)', align: 'right' },
    ],
    sizes.map((s) => [
      s.size,
      ratio(s.ratios?.writesPerSec),
      ratio(s.ratios?.p99Ms),
      ratio(s.ratios?.cpuMicrosPerWrite),
    ]),
  );
  const errors = sizes.flatMap((s) =>
    CLIENTS.flatMap((client) => {
      const e = s.errors[client];
      return e === undefined ? [] : [`- ${s.size}, ${CLIENT_LABEL[client]}: ${e.split('\n')[0]}`];
    }),
  );
  return [
    'Read first: **writes/s fastpath ÷ Java** per size (the goal is at least 1× in every size), then client CPU per write.',
    '',
    load.line,
    ...(context.quick
      ? ['', 'A `--quick` run: few writes per round, to show the benchmark works; not figures to quote.']
      : []),
    '',
    `Apache Ratis ${context.ratisVersion}, a 3-peer group (one JVM each) on loopback per size. Median of the rounds (min–max); ratios are of medians, their range the per-round ratios of paired rounds.`,
    '',
    ratios,
    '',
    figures,
    ...(errors.length > 0 ? ['', 'Stopped early:', '', ...errors] : []),
    '',
    `Load average at the end: ${context.loadAtEnd.map((l) => l.toFixed(2)).join(' / ')}.`,
  ].join('\n');
}
