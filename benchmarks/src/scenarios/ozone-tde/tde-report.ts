// ozone-tde's tables, one copy for the scenario's own report and its section of `all`'s report:
// the key providers side by side (files/s, ÷ Hadoop's KMS, latency, KMS CPU per decrypt) and the
// encryption's cost on large reads; then the scenario's Markdown around them.
import type { FigureTable, GoalResult } from '../../all/scenario-summary.js';
import {
  formatMs,
  formatRatioWithRange,
  formatSiWithRange,
  markdownTable,
  runLoadNote,
  type Summary,
} from '../../harness/index.js';
import { verdict } from '../ozone-write/ozone-write-report.js';
import { formatBytes } from '../ozone-write/ozone-write-settings.js';
import type { OzoneTdeSettings, TdeKmsVersion } from './ozone-tde-settings.js';
import {
  againstHadoop,
  kmsBoundOverHadoop,
  type LargeClientFigures,
  type LargeFigures,
  type TdeCaseFigures,
} from './tde-figures.js';

const cell = (s: Summary | null | undefined): string => (s ? formatSiWithRange(s.median, s.min, s.max) : '—');
const ms = (v: number): string => formatMs(v);

export function providersTable(cases: Readonly<Partial<Record<TdeKmsVersion, TdeCaseFigures>>>): FigureTable {
  const rows = Object.values(cases).filter((c): c is TdeCaseFigures => c !== undefined);
  return {
    caption:
      'Small encrypted files, all clients together: files/s median of the rounds (min–max); ÷ Hadoop’s KMS from the medians (range from the min–max of each); latency p50/p99 over every round; KMS CPU per DECRYPT_EEK over the read windows',
    columns: [
      { header: 'key provider' },
      { header: 'read files/s', align: 'right' },
      { header: '÷ Hadoop’s KMS', align: 'right' },
      { header: 'open p50 / p99', align: 'right' },
      { header: 'file p50 / p99', align: 'right' },
      { header: 'KMS CPU ms/decrypt', align: 'right' },
      { header: 'cluster · client CPU ms/file', align: 'right' },
      { header: 'KMS share of CPU', align: 'right' },
      { header: 'write files/s', align: 'right' },
      { header: 'write ÷ Hadoop’s', align: 'right' },
      { header: 'write p50 / p99', align: 'right' },
      { header: 'errors', align: 'right' },
    ],
    rows: rows.map((c) => {
      const read = c.version === 'hadoop' ? null : againstHadoop(cases, c.version);
      const write = c.version === 'hadoop' ? null : againstHadoop(cases, c.version, 'writeFilesPerSec');
      return [
        c.label,
        cell(c.readFilesPerSec),
        read ? formatRatioWithRange(read.value, read.min, read.max) : '—',
        `${ms(c.open.p50Ms)} / ${ms(c.open.p99Ms)}`,
        `${ms(c.file.p50Ms)} / ${ms(c.file.p99Ms)}`,
        cell(c.kmsCpuMsPerDecrypt),
        `${c.clusterCpuMsPerFile ? c.clusterCpuMsPerFile.median.toFixed(2) : '—'} · ${c.clientCpuMsPerFile.median.toFixed(2)}`,
        c.kmsShareOfReadCpu ? `${(c.kmsShareOfReadCpu.median * 100).toFixed(0)}%` : '—',
        cell(c.writeFilesPerSec),
        write ? formatRatioWithRange(write.value, write.min, write.max) : '—',
        `${ms(c.write.p50Ms)} / ${ms(c.write.p99Ms)}`,
        String(c.errors),
      ];
    }),
  };
}

/** What a KMS can change here, from Hadoop's KMS's share of the CPU per file read. */
function kmsBoundLine(cases: Readonly<Partial<Record<TdeKmsVersion, TdeCaseFigures>>>): string[] {
  const b = kmsBoundOverHadoop(cases);
  if (!b) return [];
  return [
    `What a KMS can change here: Hadoop's KMS took ${(b.share * 100).toFixed(0)}% of the CPU per file read (KMS, cluster and clients on the same cores), so a KMS costing nothing would serve at most ${b.bound.toFixed(2)}× its files/s while the cores are the bound.`,
  ];
}

export function largeTable(large: LargeFigures): FigureTable {
  const row = (name: string, f: LargeClientFigures | null): string[] =>
    f
      ? [
          name,
          cell(f.encrypted),
          cell(f.plain),
          formatRatioWithRange(f.ratio.ratio, f.ratio.min, f.ratio.max),
        ]
      : [name, '—', '—', 'not measured (--cluster real)'];
  return {
    caption: `The encryption's own cost: one client reading a ${formatBytes(large.largeBytes)} key whole, MiB/s median of the reads (min–max); encrypted ÷ plain over paired reads (1.00×: encryption costs nothing)`,
    columns: [
      { header: 'client' },
      { header: 'encrypted MiB/s', align: 'right' },
      { header: 'plain MiB/s', align: 'right' },
      { header: 'encrypted ÷ plain', align: 'right' },
    ],
    rows: [row('fastpath', large.fastpath), row('Ozone’s Java client', large.java)],
  };
}

const tableMarkdown = (t: FigureTable): string => `${t.caption}.\n\n${markdownTable(t.columns, t.rows)}`;

export function ozoneTdeReport(
  cases: Readonly<Partial<Record<TdeKmsVersion, TdeCaseFigures>>>,
  large: LargeFigures | null,
  goals: readonly GoalResult[],
  context: {
    quick: boolean;
    settings: OzoneTdeSettings;
    cluster: string;
    loadAtStart: readonly number[];
    loadAtEnd: readonly number[];
    cores: number;
  },
): string {
  const s = context.settings;
  const load = runLoadNote(context.loadAtStart, context.loadAtEnd, context.cores);
  const errors = Object.values(cases).flatMap((c) =>
    c?.firstError ? [`${c.label}: ${c.firstError.split('\n')[0]}`] : [],
  );
  return [
    `Read first: **fastpath-kms (fixed) ÷ Hadoop's KMS read files/s** in the first table (goal ≥ 2×), then the encryption's cost for each client in the second (goal: fastpath's ratio at least Java's).`,
    `${s.clients} clients, each an Ozone client with a KMS delegation token of its own, on ${s.files} files of ${formatBytes(s.fileBytes)}; ${s.rounds} round(s) per key provider of a ${s.windowMs / 1000} s read window and a ${s.windowMs / 1000} s write window. Cluster: ${context.cluster}.${context.quick ? ' `--quick`: a smoke run; its numbers are not to be quoted.' : ''}`,
    tableMarkdown(providersTable(cases)),
    ...(large ? [tableMarkdown(largeTable(large))] : []),
    markdownTable(
      ['goal', 'target', 'measured', 'verdict'],
      goals.map((g) => [g.goal, g.target, g.measured, verdict(g.met)]),
    ),
    ...kmsBoundLine(cases),
    ...(errors.length > 0 ? [`Errors: ${errors.join('; ')}`] : []),
    load.line,
  ].join('\n\n');
}
