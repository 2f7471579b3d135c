import os from 'node:os';
import {
  barChartSvg,
  compareRounds,
  formatRatio,
  formatRatioWithRange,
  formatSi,
  formatSiWithRange,
  markdownTable,
  median,
  summarize,
  type RatioSummary,
  type ScenarioContext,
  type ScenarioReport,
  type Summary,
} from '../../harness/index.js';
import {
  DEFAULT_TRANSPORT,
  EC_COLUMNS,
  EC_ROW_IDS,
  READ_COLUMNS,
  READ_ROWS,
  SEQUENTIAL_COLUMNS,
  SEQUENTIAL_ROW_IDS,
  TRANSPORT_MARKS,
  frameLabel,
  type ColumnId,
  type RowId,
} from './ozone-read-cases.js';
import { anchorErrors, tableRows, type TableCell, type TableRow } from './ozone-read-results.js';
import type { CaseResult, CaseRound } from './ozone-read-scenario.js';
import type { OzoneReadSettings } from './ozone-read-settings.js';
import type { ShortCircuitAvailability } from './short-circuit-availability.js';
import { expectedWidenedBytes } from './widening.js';
import { PROFILE_CATEGORIES } from '../../harness/cpu-profile-summary.js';
import { READ_SECURITY_COST_LABELS, readLevelRounds } from './read-security-cost.js';
import { securityCost, securityCostGoals } from './security-cost.js';
import { securityCostTable, writeSecurityCostCharts } from './security-cost-report.js';
import { SECURITY_LEVEL_LABEL } from './security-levels.js';
import { clientPropertiesText } from './client-property-flag.js';

export interface ReportContext {
  cluster: string;
  setup: Record<string, unknown>;
  shortCircuit: ShortCircuitAvailability;
  java: string | undefined;
  /** The S3 gateway row: how it ran, why it did not, or undefined when not asked for. */
  s3: string | { notRun: string } | undefined;
  /** The content check's calibrated cost per read, µs (else read from `setup`). */
  contentCheckMicrosPerRead?: number;
}

/** How a reader's rows begin in the tables (fastpath's carry no prefix). */
export const READER_PREFIX: Readonly<Record<TableRow['reader'], string>> = Object.freeze({
  fastpath: '',
  java: "Ozone's Java client: ",
  s3: 'S3 gateway, @aws-sdk/client-s3: ',
});

const ratioCell = (r: RatioSummary | null): string => (r ? formatRatioWithRange(r.ratio, r.min, r.max) : '—');
const opsCell = (t: TableRow, c: ColumnId): string => {
  const cell = t.cells[c];
  return cell ? formatSiWithRange(cell.ops.median, cell.ops.min, cell.ops.max) : '—';
};
const kib = (bytes: number | null): string =>
  bytes === null ? '—' : `${(bytes / 1024).toLocaleString('en-US', { maximumFractionDigits: 1 })} KiB`;
const pct = (d: number | null): string =>
  d === null ? '—' : `${d >= 0 ? '+' : '−'}${Math.abs(d * 100).toFixed(3)}%`;
const medianOf = (rounds: readonly CaseRound[], f: (r: CaseRound) => number | null): number | null => {
  const v = rounds.map(f).filter((x): x is number => x !== null && Number.isFinite(x));
  return v.length ? median(v) : null;
};
const rowLabel = (t: TableRow): string =>
  `${READER_PREFIX[t.reader]}${READ_ROWS[t.row].label}${t.aligned ? ', 64 KiB-aligned' : ''}` +
  `${t.security === 'none' ? '' : `, security: ${SECURITY_LEVEL_LABEL[t.security]}`}` +
  `${t.transport ? TRANSPORT_MARKS[t.transport].label : ''}` +
  `${t.readWorkers ? `, ${t.readWorkers} read worker thread${t.readWorkers === 1 ? '' : 's'}` : ''}` +
  `${t.readBlock ? ', streaming ReadBlock' : READ_ROWS[t.row].sequential ? ', ReadChunk' : ''}` +
  `${t.frameBytes === null ? '' : frameLabel(t.frameBytes)}`;
/** `text` with its first letter capitalised (a sentence of joined clauses). */
const sentence = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);
/** Whether a table row reads whole files start to end (a sequential row). */
export const isSequential = (t: Pick<TableRow, 'row'>): boolean => READ_ROWS[t.row].sequential !== undefined;
/** The GC share of the reader's CPU in a case's profiled window (all its threads). */
const gcShare = (c: CaseResult): string => {
  const p = c.rounds.find((r) => r.profile)?.profile;
  return p ? `${(100 * p.shares['garbage collection']).toFixed(1)}%` : '—';
};
const cpuCell = (t: TableRow, c: ColumnId): string => {
  const cell = t.cells[c];
  return cell ? `${cell.cpu.median.toFixed(0)} µs` : '—';
};

function mainTable(rows: readonly TableRow[]): string {
  return markdownTable(
    [
      'read path',
      { header: 'verify on', align: 'right' },
      { header: 'off: ozone.client.verify.checksum=false', align: 'right' },
      { header: 'off: setVerifyChecksum(false)', align: 'right' },
      { header: 'off/on (global)', align: 'right' },
      { header: 'off/on (per instance)', align: 'right' },
      { header: 'per instance / global', align: 'right' },
      { header: 'source: on', align: 'right' },
      { header: 'source: off', align: 'right' },
      { header: 'source: off/on', align: 'right' },
      { header: 'client CPU/read: on', align: 'right' },
      { header: 'off (global)', align: 'right' },
      { header: 'off (per instance)', align: 'right' },
    ],
    rows.map((t) => {
      const src = READ_ROWS[t.row].source;
      return [
        rowLabel(t),
        opsCell(t, 'on'),
        opsCell(t, 'off-global'),
        opsCell(t, 'off-instance'),
        ratioCell(t.offGlobalOverOn),
        ratioCell(t.offInstanceOverOn),
        ratioCell(t.instanceOverGlobal),
        t.aligned || t.reader !== 'fastpath' || !src ? '' : src.on.toLocaleString('en-US'),
        t.aligned || t.reader !== 'fastpath' || !src ? '' : src.off.toLocaleString('en-US'),
        t.aligned || t.reader !== 'fastpath' || !src ? '' : formatRatio(src.off / src.on),
        cpuCell(t, 'on'),
        cpuCell(t, 'off-global'),
        cpuCell(t, 'off-instance'),
      ];
    }),
  );
}

const mibCell = (cell: TableCell | undefined): string =>
  cell ? formatSiWithRange(cell.mib.median, cell.mib.min, cell.mib.max) : '—';
const filesCell = (cell: TableCell | undefined): string =>
  cell ? formatSiWithRange(cell.ops.median, cell.ops.min, cell.ops.max) : '—';
const cpuPerMiBCell = (cell: TableCell | undefined): string =>
  cell ? `${cell.cpuPerMiB.median.toFixed(0)} µs` : '—';

/** The sequential rows: whole files/s, MiB/s and client CPU per MiB per verify column. */
export function sequentialTable(rows: readonly TableRow[]): string {
  return markdownTable(
    [
      'sequential read',
      ...SEQUENTIAL_COLUMNS.flatMap((c) => {
        const name = c === 'on' ? 'verify on' : 'verify off';
        return [
          { header: `${name}: files/s`, align: 'right' as const },
          { header: 'MiB/s', align: 'right' as const },
          { header: 'client CPU/MiB', align: 'right' as const },
        ];
      }),
      { header: 'off/on (MiB/s)', align: 'right' },
    ],
    rows.map((t) => [
      rowLabel(t),
      ...SEQUENTIAL_COLUMNS.flatMap((c) => [
        filesCell(t.cells[c]),
        mibCell(t.cells[c]),
        cpuPerMiBCell(t.cells[c]),
      ]),
      ratioCell(t.offGlobalOverOn),
    ]),
  );
}

/** Round-paired ratio of two cells' per-round figures, or null where they do not pair. */
function pairedRatio(
  a: readonly number[] | undefined,
  b: readonly number[] | undefined,
): RatioSummary | null {
  if (!a || !b || a.length === 0 || a.length !== b.length || b.some((v) => v <= 0)) return null;
  return compareRounds(a, b);
}

/** fastpath's sequential row over Java's read the same way (ReadBlock off, on): one table row each. */
function sequentialPairs(rows: readonly TableRow[]): { label: string; fastpath: TableRow; java: TableRow }[] {
  const out: { label: string; fastpath: TableRow; java: TableRow }[] = [];
  for (const f of rows.filter((t) => t.reader === 'fastpath' && isSequential(t))) {
    const j = rows.find(
      (t) =>
        t.reader === 'java' && t.row === f.row && t.readBlock === f.readBlock && t.security === f.security,
    );
    if (j)
      out.push({
        label:
          `${READ_ROWS[f.row].label}${f.security === 'none' ? '' : `, security: ${SECURITY_LEVEL_LABEL[f.security]}`}, ` +
          `${f.readBlock ? 'streaming ReadBlock (both)' : 'ReadChunk (Java: ReadBlock off)'}` +
          `${f.frameBytes === null ? '' : frameLabel(f.frameBytes)}`,
        fastpath: f,
        java: j,
      });
  }
  return out;
}

/** A cell's cluster CPU per MiB delivered (µs) and the cores busy, per round whose cluster CPU was read. */
function clusterFigures(cell: TableCell | undefined): { perMiB: Summary; busy: Summary } | null {
  const rounds = (cell?.result.rounds ?? []).flatMap((r) =>
    r.clusterCpu && r.clusterCpu.windowMs > 0 && r.figures.mibPerSec > 0 && r.counts.measuredMs > 0
      ? [{ ...r, clusterCpu: r.clusterCpu }]
      : [],
  );
  if (rounds.length === 0) return null;
  // The cluster's cores over the call's window (a sequential one finishes its files after the
  // measured time) over the MiB/s delivered in the measured time.
  const clusterCores = (r: (typeof rounds)[number]): number => r.clusterCpu.cpuMs / r.clusterCpu.windowMs;
  return {
    perMiB: summarize(rounds.map((r) => (clusterCores(r) * 1e6) / r.figures.mibPerSec)),
    busy: summarize(rounds.map((r) => clusterCores(r) + (r.counts.cpuSeconds * 1000) / r.counts.measuredMs)),
  };
}

/**
 * Where the cores went in the cells the goals read (fastpath's default path and Java's, each gRPC
 * row's verify on and off): each client's CPU and the cluster's per MiB, the cores busy, and the
 * MiB/s ceiling the cluster's cost leaves on `cores`; null where no cluster CPU was read.
 */
export function machineTable(rows: readonly TableRow[], cores: number): string | null {
  const goalRow = (t: TableRow): boolean =>
    t.security === 'none' &&
    !t.aligned &&
    (t.reader === 'java' ||
      (t.reader === 'fastpath' &&
        (t.transport === null || t.transport === DEFAULT_TRANSPORT) &&
        !t.readWorkers &&
        t.frameBytes === null));
  const lines: string[][] = [];
  for (const f of rows.filter(
    (t) => t.reader === 'fastpath' && goalRow(t) && READ_ROWS[t.row].path === 'grpc',
  )) {
    const j = rows.find(
      (t) => t.reader === 'java' && goalRow(t) && t.row === f.row && t.readBlock === f.readBlock,
    );
    if (!j) continue;
    for (const column of ['on', 'off-global'] as const) {
      const javaMib = j.cells[column]?.mib.median;
      for (const t of [f, j]) {
        const cell = t.cells[column];
        const cluster = clusterFigures(cell);
        if (!cell || !cluster) continue;
        const ceiling = (cores * 1e6) / cluster.perMiB.median;
        lines.push([
          `${READ_ROWS[t.row].label}${t.readBlock ? ', streaming ReadBlock' : ''}`,
          column === 'on' ? 'verify on' : 'verify off',
          t.reader === 'java' ? "Ozone's Java client" : 'fastpath',
          `${cell.cpuPerMiB.median.toFixed(0)} µs`,
          `${cluster.perMiB.median.toFixed(0)} µs`,
          formatSiWithRange(cluster.busy.median, cluster.busy.min, cluster.busy.max),
          formatSi(ceiling),
          javaMib ? `${(ceiling / javaMib).toFixed(2)}×` : '—',
        ]);
      }
    }
  }
  if (lines.length === 0) return null;
  return markdownTable(
    [
      'row',
      'column',
      'client',
      { header: 'client CPU/MiB', align: 'right' },
      { header: 'cluster CPU/MiB', align: 'right' },
      { header: 'cores busy', align: 'right' },
      { header: 'MiB/s ceiling', align: 'right' },
      { header: "ceiling ÷ Java's MiB/s", align: 'right' },
    ],
    lines,
  );
}

/** fastpath ÷ Java per sequential row and column: MiB/s (and files/s, the same ratio) and CPU per MiB. */
export function sequentialRatioTable(rows: readonly TableRow[]): string | null {
  const pairs = sequentialPairs(rows);
  if (pairs.length === 0) return null;
  return markdownTable(
    [
      'sequential read',
      ...SEQUENTIAL_COLUMNS.flatMap((c) => {
        const name = c === 'on' ? 'verify on' : 'verify off';
        return [
          { header: `${name}: fastpath ÷ Java, MiB/s`, align: 'right' as const },
          { header: 'CPU/MiB', align: 'right' as const },
        ];
      }),
    ],
    pairs.map(({ label, fastpath, java }) => [
      label,
      ...SEQUENTIAL_COLUMNS.flatMap((c) => [
        ratioCell(pairedRatio(fastpath.cells[c]?.mibRounds, java.cells[c]?.mibRounds)),
        ratioCell(pairedRatio(fastpath.cells[c]?.cpuPerMiBRounds, java.cells[c]?.cpuPerMiBRounds)),
      ]),
    ]),
  );
}

function bytesTable(results: readonly CaseResult[], s: OzoneReadSettings): string {
  return markdownTable(
    [
      'case',
      { header: 'requested/read', align: 'right' },
      { header: 'predicted/read', align: 'right' },
      { header: 'client fetched/read', align: 'right' },
      { header: 'client checksummed/read', align: 'right' },
      { header: 'datanodes sent/read', align: 'right' },
      { header: '× requested', align: 'right' },
      { header: 'client vs predicted', align: 'right' },
      { header: 'datanodes vs predicted', align: 'right' },
      { header: 'ReadChunk calls/read', align: 'right' },
      { header: 'short-circuit reads/read', align: 'right' },
    ],
    results
      .filter((c) => c.rounds.length > 0)
      .map((c) => {
        const r = c.rounds;
        const attempted = (x: CaseRound): number => x.counts.ops + x.counts.errors + x.counts.wrongBytes;
        return [
          c.id,
          kib(medianOf(r, (x) => x.figures.bytesRequestedPerOp) ?? s.readBytes),
          kib(medianOf(r, (x) => x.figures.bytesPredictedPerOp)),
          kib(medianOf(r, (x) => x.figures.clientFetchedPerOp)),
          kib(medianOf(r, (x) => x.figures.clientVerifiedPerOp)),
          kib(medianOf(r, (x) => x.figures.datanodeSentPerOp)),
          (() => {
            const w = medianOf(r, (x) => x.figures.wideningFactor);
            return w === null ? '—' : `${w.toFixed(3)}×`;
          })(),
          pct(medianOf(r, (x) => x.figures.clientDeviation)),
          pct(medianOf(r, (x) => x.figures.datanodeDeviation)),
          (() => {
            const v = medianOf(r, (x) =>
              x.counts.client ? x.counts.client.readChunkCalls / Math.max(1, attempted(x)) : null,
            );
            return v === null ? '—' : v.toFixed(3);
          })(),
          (() => {
            const v = medianOf(r, (x) =>
              x.counts.client ? (x.counts.client.shortCircuitReads ?? 0) / Math.max(1, attempted(x)) : null,
            );
            return v === null ? '—' : v.toFixed(3);
          })(),
        ];
      }),
  );
}

/** fastpath's reader per case: its CPU by category in the profiled window (shares of busy time). */
function profileTable(results: readonly CaseResult[]): string | null {
  const profiled = results
    .map((c) => ({ c, p: c.rounds.find((r) => r.profile)?.profile }))
    .filter((x): x is { c: CaseResult; p: NonNullable<CaseRound['profile']> } => x.p !== undefined);
  if (profiled.length === 0) return null;
  // The categories of other processes (a KMS server's) would be columns of 0 only.
  const categories = PROFILE_CATEGORIES.filter((k) => profiled.some(({ p }) => p.shares[k] > 0));
  return markdownTable(
    [
      'case',
      { header: 'busy threads', align: 'right' },
      { header: 'busy ms', align: 'right' },
      ...categories.map((k) => ({ header: k, align: 'right' as const })),
      'profile',
    ],
    profiled.map(({ c, p }) => [
      c.id,
      String(p.threads ?? 1),
      p.busyMs.toFixed(0),
      ...categories.map((k) => `${(100 * p.shares[k]).toFixed(1)}%`),
      `\`${p.file}\``,
    ]),
  );
}

function latencyTable(results: readonly CaseResult[]): string {
  const ms = (v: number | null): string =>
    v === null ? '—' : v < 1 ? `${(v * 1000).toFixed(0)} µs` : `${v.toFixed(2)} ms`;
  return markdownTable(
    [
      'case',
      { header: 'p50', align: 'right' },
      { header: 'p99', align: 'right' },
      { header: 'p99.9', align: 'right' },
      { header: 'client CPU/read', align: 'right' },
      { header: 'client cores busy', align: 'right' },
      { header: 'GC share of CPU', align: 'right' },
      { header: 'reads (all rounds)', align: 'right' },
      { header: 'errors', align: 'right' },
      { header: 'wrong bytes', align: 'right' },
      { header: 'reads checked', align: 'right' },
      { header: 'check/read', align: 'right' },
      { header: 'check share of CPU', align: 'right' },
    ],
    results
      .filter((c) => c.rounds.length > 0)
      .map((c) => {
        const r = c.rounds;
        const sum = (f: (x: CaseRound) => number): number => r.reduce((n, x) => n + f(x), 0);
        return [
          c.id,
          ms(medianOf(r, (x) => x.latency.p50Ms)),
          ms(medianOf(r, (x) => x.latency.p99Ms)),
          ms(medianOf(r, (x) => x.latency.p999Ms)),
          `${(medianOf(r, (x) => x.figures.cpuMicrosPerOp) ?? 0).toFixed(0)} µs`,
          (medianOf(r, (x) => x.figures.cpuCores) ?? 0).toFixed(2),
          gcShare(c),
          sum((x) => x.counts.ops).toLocaleString('en-US'),
          String(sum((x) => x.counts.errors)),
          String(sum((x) => x.counts.wrongBytes)),
          `${sum((x) => x.counts.checkedOps).toLocaleString('en-US')} (${(
            (100 * sum((x) => x.counts.checkedOps)) /
            Math.max(
              1,
              sum((x) => x.counts.ops + x.counts.wrongBytes),
            )
          ).toFixed(0)}%)`,
          `${(medianOf(r, (x) => x.checkMicrosPerRead) ?? 0).toFixed(1)} µs`,
          `${(100 * (medianOf(r, (x) => (x.figures.cpuMicrosPerOp > 0 ? x.checkMicrosPerRead / x.figures.cpuMicrosPerOp : null)) ?? 0)).toFixed(2)}%`,
        ];
      }),
  );
}

/** One goal of the issue, against this run's figure. */
export interface Goal {
  goal: string;
  measured: string;
  met: boolean | null;
}

/** The goals, read from the measured cases (shown in the report, never enforced). */
export function goals(rows: readonly TableRow[], results: readonly CaseResult[]): Goal[] {
  const find = (reader: TableRow['reader'], row: TableRow['row']): TableRow | undefined =>
    rows.find(
      (t) =>
        t.reader === reader &&
        t.row === row &&
        t.security === 'none' &&
        !t.aligned &&
        (t.transport === null || t.transport === DEFAULT_TRANSPORT) &&
        !t.readWorkers &&
        !t.readBlock &&
        t.frameBytes === null,
    );
  const out: Goal[] = [];
  const g1 = find('fastpath', 'grpc-1m');
  if (g1?.offGlobalOverOn)
    out.push({
      goal: 'gRPC 1 MiB: off/on ≥ 3.5× (source 3.7×)',
      measured: formatRatio(g1.offGlobalOverOn.ratio),
      met: g1.offGlobalOverOn.ratio >= 3.5,
    });
  if (g1?.instanceOverGlobal)
    out.push({
      goal: 'gRPC 1 MiB: per-instance off ≥ 0.95× global off',
      measured: formatRatio(g1.instanceOverGlobal.ratio),
      met: g1.instanceOverGlobal.ratio >= 0.95,
    });
  const g16 = find('fastpath', 'grpc-16k');
  if (g16?.offGlobalOverOn) {
    const r = g16.offGlobalOverOn.ratio;
    out.push({
      goal: 'gRPC 16 KiB: off/on between 0.95× and 1.3× (source 1.02×)',
      measured: formatRatio(r),
      met: r >= 0.95 && r <= 1.3,
    });
  }
  const s16 = find('fastpath', 'sc-16k');
  if (s16?.offGlobalOverOn)
    out.push({
      goal: 'short-circuit 16 KiB: on/off ≥ 0.8 (source 0.59)',
      measured: formatRatio(1 / s16.offGlobalOverOn.ratio),
      met: 1 / s16.offGlobalOverOn.ratio >= 0.8,
    });
  else out.push({ goal: 'short-circuit 16 KiB: on/off ≥ 0.8 (source 0.59)', measured: 'not run', met: null });
  // The source's gRPC rows always (not run without Java); the EC rows when they ran.
  const javaRows: RowId[] = [
    'grpc-1m',
    'grpc-16k',
    ...EC_ROW_IDS.filter((id) => rows.some((t) => t.row === id)),
  ];
  const columnName: Partial<Record<ColumnId, string>> = { on: 'verify on', 'off-global': 'verify off' };
  // A goal not measured says why: its row was not in the run, or (a row that ran) it had no anchor.
  const notRun = (row: RowId, why: string): string =>
    rows.some((t) => t.row === row) ? `not run (${why})` : 'not run (its row was not asked for)';
  for (const row of javaRows) {
    const f = find('fastpath', row);
    const j = find('java', row);
    const columns = READ_ROWS[row].ec ? EC_COLUMNS : (['on', 'off-global'] as const);
    for (const [col, name] of columns.map((c) => [c, columnName[c] ?? c] as const)) {
      const a = f?.cells[col]?.ops.median;
      const b = j?.cells[col]?.ops.median;
      out.push({
        goal: `fastpath / Java client, ${READ_ROWS[row].label}, ${name}: ≥ 1×`,
        measured:
          a !== undefined && b !== undefined && b > 0
            ? formatRatio(a / b)
            : notRun(row, 'Java anchor only with --cluster real'),
        met: a !== undefined && b !== undefined && b > 0 ? a / b >= 1 : null,
      });
      const fc = f?.cells[col]?.cpu.median;
      const jc = j?.cells[col]?.cpu.median;
      out.push({
        goal: `client CPU per read, fastpath ≤ Java client, ${READ_ROWS[row].label}, ${name}`,
        measured:
          fc !== undefined && jc !== undefined && jc > 0
            ? `${fc.toFixed(0)} µs ÷ ${jc.toFixed(0)} µs = ${formatRatio(fc / jc)}`
            : notRun(row, 'Java anchor only with --cluster real'),
        met: fc !== undefined && jc !== undefined && jc > 0 ? fc <= jc : null,
      });
    }
  }
  // The sequential rows that ran: fastpath against Java read the same way (ReadBlock off: fastpath
  // on ReadChunk; ReadBlock on: both streaming), in every column.
  for (const row of SEQUENTIAL_ROW_IDS.filter((id) => rows.some((t) => t.row === id))) {
    for (const readBlock of [false, true]) {
      const pick = (reader: TableRow['reader']): TableRow | undefined =>
        rows.find(
          (t) =>
            t.reader === reader &&
            t.row === row &&
            t.security === 'none' &&
            t.readBlock === readBlock &&
            t.frameBytes === null,
        );
      const f = pick('fastpath');
      const j = pick('java');
      if (!f && !j) continue;
      const mode = readBlock ? 'streaming ReadBlock (both)' : 'ReadChunk (Java: ReadBlock off)';
      for (const col of SEQUENTIAL_COLUMNS) {
        const name = columnName[col] ?? col;
        const a = f?.cells[col]?.mib.median;
        const b = j?.cells[col]?.mib.median;
        const why = notRun(row, 'Java anchor only with --cluster real');
        out.push({
          goal: `fastpath / Java client, ${READ_ROWS[row].label}, ${mode}, ${name}: files/s and MiB/s ≥ 1.2×`,
          measured: a !== undefined && b !== undefined && b > 0 ? formatRatio(a / b) : why,
          met: a !== undefined && b !== undefined && b > 0 ? a / b >= 1.2 : null,
        });
        const fc = f?.cells[col]?.cpuPerMiB.median;
        const jc = j?.cells[col]?.cpuPerMiB.median;
        out.push({
          goal: `client CPU per MiB, fastpath ≤ 0.8× Java client, ${READ_ROWS[row].label}, ${mode}, ${name}`,
          measured:
            fc !== undefined && jc !== undefined && jc > 0
              ? `${fc.toFixed(0)} µs ÷ ${jc.toFixed(0)} µs = ${formatRatio(fc / jc)}`
              : why,
          met: fc !== undefined && jc !== undefined && jc > 0 ? fc / jc <= 0.8 : null,
        });
      }
    }
  }
  for (const row of ['grpc-1m', 'grpc-16k'] as const) {
    const a = find('fastpath', row)?.cells.on?.ops.median;
    const b = find('s3', row)?.cells.on?.ops.median;
    const measured = a !== undefined && b !== undefined && b > 0;
    out.push({
      goal: `fastpath / S3 gateway (@aws-sdk/client-s3), ${READ_ROWS[row].label}, verify on: ≥ 3×`,
      measured: measured ? formatRatio(a / b) : notRun(row, 'the S3 gateway row runs with --cluster real'),
      met: measured ? a / b >= 3 : null,
    });
  }
  let worst = 0;
  let any = false;
  for (const c of results)
    for (const r of c.rounds)
      for (const d of [r.figures.clientDeviation, r.figures.datanodeDeviation])
        if (d !== null) {
          any = true;
          worst = Math.max(worst, Math.abs(d));
        }
  out.push({
    goal: 'bytes fetched per read within 1% of the widening prediction',
    measured: any ? `worst ${(worst * 100).toFixed(3)}%` : 'no counters',
    met: any ? worst <= 0.01 : null,
  });
  return out;
}

export async function ozoneReadReport(
  ctx: ScenarioContext<OzoneReadSettings>,
  results: readonly CaseResult[],
  rc: ReportContext,
): Promise<ScenarioReport> {
  const s = ctx.flags;
  const rows = tableRows(results);
  const random = rows.filter((t) => !t.aligned && !isSequential(t));
  const sequential = rows.filter(isSequential);
  const aligned = rows.filter((t) => t.aligned);
  const parts: string[] = [];
  parts.push(
    `${s.readers} concurrent readers, ${s.files} files of ${s.fileSizeBytes / 1048576} MiB per bytes-per-checksum setting, ` +
      `${s.readBytes / 1024} KiB positional reads (\`readFully(pos, buf, 0, len)\`) on one shared stream per file, ` +
      `${s.warmupMs / 1000} s warm-up and ${s.measureMs / 1000} s measured per case, ${s.rounds} round(s) (cases rotate within each round); ` +
      `operations/s, median and min–max over the rounds; ratios are of medians, with the range of per-round ratios. ` +
      `Cluster: ${rc.cluster}. Offsets byte-random, seeded (seed ${s.seed}; the same in every column).` +
      ` Load average at the start: ${ctx.environment.loadAverage.map((v) => v.toFixed(2)).join(', ')} (a shared 2-core machine: read the ratios, not the absolute rates).` +
      (s.readerCpus === undefined
        ? ''
        : ` fastpath's reader process (every thread) pinned to CPU(s) ${s.readerCpus} (\`taskset -a -c\`); the cluster and the Java reader are not.`),
  );
  if (ctx.quick || s.rounds < 3 || s.measureMs < 8000 || s.files < 16 || s.fileSizeBytes < 64 * 1048576)
    parts.push(
      "**Shortened run** (not the source's setting): its numbers show that the matrix runs, not what it measures.",
    );
  if (Object.keys(s.clientProperties).length > 0)
    parts.push(
      `**Client properties set on every fastpath case** (\`--client-property\`, after the scenario's own): ` +
        `${clientPropertiesText(s.clientProperties)}.`,
    );
  if (random.length > 0)
    parts.push(
      `### Operations/s (the source's table)\n\nWith the client CPU per read beside it (the reader process's user + system CPU over the measured window, all threads, ` +
        `divided by the reads: fastpath's Node process, the Java client's JVM, which reads in a JVM of its own, and for the S3 gateway row ` +
        "the S3 client's Node process, whose reads the gateway serves from the cluster's JVM: its work is in no client's figure). " +
        `fastpath's gRPC rows come once per datanode transport: long-lived pooled \`send\` streams on \`@fastpath/grpc-http2\`'s session (HTTP/2 and gRPC's framing spoken by fastpath on a socket reading into one reused buffer, \`ozone.client.datanode.transport=socket-stream-pool\`, the default: rows without a mark), ", own HTTP/2 on Node's http2" ` +
        `(the same pool on a session of Node's \`http2\` module with gRPC's framing done by fastpath, \`http2-stream-pool\`), ", grpc-js pooled streams" (the same pool over grpc-js, \`stream-pool\`) and ", a grpc-js call per request" (a stream per request, as Ozone's Java client does), and with the first transport once per count of read worker threads ` +
        `(", N read worker threads": \`ozone.client.read.worker.threads=N\`, each read's datanode side on a worker thread; the CPU is the whole process's, every thread). ` +
        `Rows marked ", streaming ReadBlock" read with \`ozone.client.stream.readblock.enable=true\`: fastpath's on the first transport with every read streamed ` +
        `(\`ozone.client.stream.readblock.positional.min.size=0\`, so the row measures ReadBlock itself at this read size), Java's with the same key in its configuration.` +
        `${s.http2MaxFrameBytes.length > 0 ? ` fastpath's own sessions ask the datanodes for DATA frames of at most ${s.http2MaxFrameBytes[0]!.toLocaleString('en-US')} bytes (\`ozone.client.datanode.http2.max.frame.size\`)${s.http2MaxFrameBytes.length > 1 ? `; rows marked ", N HTTP/2 frames" are the same reads with that size instead` : ''}.` : ''}` +
        `\n\n${mainTable(random)}`,
    );
  const ecRows = s.rows.filter((id) => READ_ROWS[id].ec);
  if (ecRows.length > 0)
    parts.push(
      `Rows "EC rs-3-2-1024k": the same content, sizes and offsets in erasure-coded files (3 data and 2 parity cells of 1 MiB per stripe, ` +
        `each cell one chunk with CRC32 checksums of 16 KiB, one block group per file on the cluster's 5 datanodes; the run's cluster has 5 datanodes for every row), ` +
        `written by ${s.cluster === 'real' ? "Ozone's Java client" : "the embedded cluster's striper, which lays them out as Ozone's EC writer does"}. ` +
        `Verification on and off by the configuration; fastpath reads on its default path (the first transport, the reader's thread, ReadChunk), Java as configured by default. ` +
        `The row ", a data datanode down" runs with the datanode holding the same data replica of every file stopped (\`setup.json\`: \`ecDatanodeDown\`), ` +
        `from before the first of its cases to after the last in every round, for both readers: the reads of that replica's cells are rebuilt from two other data cells and a parity cell ` +
        `(fastpath fetches the span a read needs of each, Ozone's Java client rebuilds whole stripes). Each fastpath case is checked to have rebuilt cells (the healthy row: none), ` +
        `each Java case to have read by its reconstructing reader (the healthy row: never).`,
    );
  if (sequential.length > 0) {
    const ratios = sequentialRatioTable(sequential);
    parts.push(
      `### Sequential whole-file reads\n\n` +
        `Whole files of ${s.fileSizeBytes / 1048576} MiB (the 16 KiB bytes-per-checksum set) read start to end by 1 reader and by 16 at once, ` +
        `each reader drawing its next file as the positional readers draw theirs (the same seeds, so fastpath and Java read the same files), opening a stream for it ` +
        `(fastpath: \`OzoneFileSystem#open\` with the client's defaults, its window cache included; Java: \`FileSystem#open\`), reading it with cursor reads of ${s.seqReadBytes / 1024} KiB ` +
        `(\`read(buf)\`) until the end, comparing every byte with the file's content${s.checkEvery === 1 ? '' : ` (every ${s.checkEvery}-th file)`}, and closing it. ` +
        `A reader starts a file only while the window is open and finishes the one it began, so the window runs until the last reader is done ` +
        `and files/s and MiB/s count whole files (the same ratio, fastpath over Java); CPU is the reader process's (user + system, all threads) per MiB read. ` +
        `Rows ", ReadChunk": fastpath on ReadChunk (its default), Java with \`ozone.client.stream.readblock.enable=false\` (its default); rows ", streaming ReadBlock": ` +
        `both with \`ozone.client.stream.readblock.enable=true\` and nothing else changed (fastpath streams a read that starts where the last one ended, so each file is one ReadBlock per block). ` +
        `Each fastpath case is checked to have read as its mode says (ReadBlock calls and no ReadChunk, or none).\n\n${sequentialTable(sequential)}` +
        (ratios
          ? `\n\nfastpath ÷ Ozone's Java client, read the same way: ratios of medians with the range of per-round ratios (round _i_ of each pairs up).\n\n${ratios}`
          : ''),
    );
  }
  const machine = machineTable(rows, os.cpus().length);
  if (machine)
    parts.push(
      `### Where the cores went\n\nPer row and column that fastpath is held to Java in, each client's own CPU and the cluster's (its process tree, user + system, ` +
        `read from /proc around the measured window) per MiB delivered, the cores both kept busy, and the most MiB/s any client could read here given the cluster's CPU per MiB ` +
        `(${os.cpus().length} cores ÷ the cluster's CPU per MiB, as if the client cost nothing) beside Java's measured MiB/s: a ceiling under 1.2× means no client meets the rate goal on this machine.\n\n${machine}`,
    );
  const missing: string[] = [];
  for (const id of s.rows)
    if (!rows.some((t) => !t.aligned && t.row === id && t.reader === 'fastpath'))
      missing.push(READ_ROWS[id].label);
  if (missing.length) parts.push(`Not run: ${missing.join('; ')}. ${rc.shortCircuit.reason ?? ''}`.trim());
  if (aligned.length)
    parts.push(
      `### 64 KiB-aligned offsets\n\nThe same, with every offset a multiple of 64 KiB (1 MiB windows: always exactly 16×; 16 KiB windows: exactly 1×).\n\n${mainTable(aligned)}`,
    );
  parts.push(
    `### Bytes per read\n\nWhat one read cost in bytes: asked for; predicted by the widening arithmetic of Ozone's client for the very offsets read ` +
      `(random 64 KiB reads: ${(expectedWidenedBytes(1048576, s.readBytes) / s.readBytes).toFixed(2)}× with 1 MiB windows, ${(expectedWidenedBytes(16384, s.readBytes) / s.readBytes).toFixed(3)}× with 16 KiB, on average); ` +
      `fetched and checksummed as the client's own stream counters say; sent as the datanodes' counters say (embedded cluster only). Medians over the rounds.` +
      (ecRows.length > 0
        ? " EC rows: each cell widened within its own chunk (1 MiB); with the datanode down, a lost cell's part fetched from the d units fastpath rebuilds it from, over the span read (Java's figure is the prediction of a healthy read: its client has no counters)."
        : '') +
      `\n\n${bytesTable(results, s)}`,
  );
  parts.push(
    `### Latency, client CPU, errors, checks\n\nHDR latency of each read (medians over the rounds), CPU of the reader process over the measured window (user + system, all threads) per read, ` +
      `and the content check: reads compared byte for byte with the file's known content (gRPC rows: ${s.checkEvery === 1 ? 'every read' : `1 read in ${s.checkEvery}`}; ` +
      `short-circuit rows: ${s.checkEveryShortCircuit === 1 ? 'every read' : `1 read in ${s.checkEveryShortCircuit} of each reader's seeded sequence`}); ` +
      `"check/read" is the wall time of one compare (a memcmp of the read against a precomputed copy) and its share of the reader's CPU per read.\n\n${latencyTable(results)}`,
  );
  const failed = anchorErrors(results);
  if (failed.length > 0)
    parts.push(
      `### Reads the anchors failed\n\nReads that Ozone's Java client (or the S3 gateway's) threw an error on: counted in the "errors" column above and left out of ` +
        `the rates, and reported here rather than failing the run (wrong bytes from any reader, and any read fastpath's reader fails, still fail it).\n\n${markdownTable(
          [
            'case',
            { header: 'failed', align: 'right' },
            { header: 'of reads', align: 'right' },
            'first error',
          ],
          failed.map((e) => [
            e.id,
            String(e.errors),
            e.attempted.toLocaleString('en-US'),
            e.firstError === undefined ? '—' : e.firstError.replaceAll('|', '\\|').slice(0, 300),
          ]),
        )}`,
    );
  const calibrated =
    rc.contentCheckMicrosPerRead ??
    (typeof rc.setup.contentCheckMicrosPerRead === 'number' ? rc.setup.contentCheckMicrosPerRead : null);
  if (calibrated !== null) {
    const lines: string[] = [];
    for (const [path, every] of [
      ['grpc', s.checkEvery],
      ['short-circuit', s.checkEveryShortCircuit],
    ] as const) {
      const cpu = results
        .filter(
          (c) => c.reader === 'fastpath' && READ_ROWS[c.row].path === path && !READ_ROWS[c.row].sequential,
        )
        .flatMap((c) => c.rounds.map((r) => r.figures.cpuMicrosPerOp))
        .filter((v) => v > 0);
      if (cpu.length === 0) continue;
      const cheapest = Math.min(...cpu);
      const share = calibrated / every / cheapest;
      lines.push(
        `${path === 'grpc' ? 'gRPC' : 'short-circuit'} rows: ${every === 1 ? 'every read' : `1 read in ${every}`} checked, ${(calibrated / every).toFixed(2)} µs per read, ` +
          `${(100 * share).toFixed(2)}% of the cheapest case's client CPU per read (${cheapest.toFixed(0)} µs)` +
          (share <= 0.02 ? '' : ': over 2%, the check may move this row (raise its --check-every)'),
      );
    }
    // The sequential rows compare whole files as they read them: their share is the in-window one.
    const sequentialShares = results
      .filter((c) => c.reader === 'fastpath' && READ_ROWS[c.row].sequential)
      .flatMap((c) => c.rounds)
      .filter((r) => r.figures.cpuMicrosPerOp > 0)
      .map((r) => r.checkMicrosPerRead / r.figures.cpuMicrosPerOp);
    if (sequentialShares.length > 0)
      lines.push(
        `sequential rows: ${s.checkEvery === 1 ? 'every file' : `1 file in ${s.checkEvery}`} compared whole as it is read, ` +
          `${(100 * Math.min(...sequentialShares)).toFixed(1)}% to ${(100 * Math.max(...sequentialShares)).toFixed(1)}% of fastpath's client CPU per file (wall time of the compares over CPU; Java's reader compares the same way)`,
      );
    parts.push(
      `The content check on its own (calibrated before the cases: the fastest of 5 batches of 200 compares of ${s.readBytes / 1024} KiB) costs ` +
        `${calibrated.toFixed(1)} µs per compare. ${sentence(lines.join('; '))}. ` +
        'The per-case "check/read" above is wall time, which on a loaded machine also holds the time the reader was not running.',
    );
  }
  const profiles = profileTable(results);
  if (profiles)
    parts.push(
      `### Where fastpath's reader spends its CPU\n\nA V8 CPU profile of the reader (500 µs sampling) in a window of its own after each case's first measured window ` +
        `(so that the profiler costs no measured figure): each sample's own function, by category, as shares of the busy samples, ` +
        `summed over the reader's threads (the main thread and each read worker thread; "busy threads" counts those with at least 1% of the busy time; the "GC share of CPU" column above is this table's garbage collection). ` +
        `"other Node and V8" holds native time V8 cannot attribute to a script ("(program)": much of it nghttp2 and the socket) and the rest of Node. ` +
        `The profiles themselves are in the results folder (open them in Chrome's DevTools).\n\n${profiles}`,
    );
  const cost = securityCost(readLevelRounds(results));
  const costGoals = securityCostGoals(
    cost,
    { client: READ_SECURITY_COST_LABELS.baseline, label: READ_SECURITY_COST_LABELS.baselineLabel },
    READ_SECURITY_COST_LABELS.clientLabel,
  );
  if (cost.length > 0) {
    const t = securityCostTable(cost, READ_SECURITY_COST_LABELS);
    parts.push(
      `### Security cost\n\nEach level on a cluster of its own, the clients logged in from the Kerberos user's keytab (fastpath over Hadoop RPC to the OM, the only port where a secure OM speaks SASL, and with its block tokens to the datanodes). ${t.caption}.\n\n${markdownTable(t.columns, t.rows)}`,
    );
    ctx.results.recordComparison('security-cost', cost);
    await writeSecurityCostCharts(ctx.results, cost, s.rounds, READ_SECURITY_COST_LABELS, {
      scenario: 'ozone-read',
      who: 'reader',
      throughput: 'operations/s',
      cpu: 'client CPU per read',
    });
  }
  const g = [
    ...goals(rows, results),
    ...costGoals.map((x) => ({ goal: x.goal, measured: x.measured, met: x.met })),
  ];
  parts.push(
    `### Goals\n\n${markdownTable(
      ['goal', { header: 'measured', align: 'right' }, 'met'],
      g.map((x) => [x.goal, x.measured, x.met === null ? 'not measured' : x.met ? 'met' : '**missed**']),
    )}`,
  );
  if (rc.java) parts.push(`### The Java anchor\n\n${rc.java}`);
  else
    parts.push(
      "### The Java anchor\n\nNot run: Ozone's own Java client reads only with `--cluster real` (Apache Ozone's MiniOzoneCluster); the embedded cluster speaks Ozone's gRPC protocols but has no Hadoop RPC for the Java client's OM calls.",
    );
  if (typeof rc.s3 === 'string') parts.push(`### The S3 gateway row\n\n${rc.s3}`);
  else if (rc.s3)
    parts.push(
      `### The S3 gateway row\n\nNot run: Ozone's S3 gateway could not be started beside the cluster. ${rc.s3.notRun}`,
    );
  parts.push(`### Set-up\n\n\`\`\`json\n${JSON.stringify(rc.setup, null, 2)}\n\`\`\``);

  const chartRows = random;
  if (chartRows.length) {
    await ctx.results.writeChart(
      'ozone-read-ops',
      'Ozone positional reads: operations/s per read path and verify setting',
      barChartSvg({
        title: 'Ozone 64 KiB positional reads, 16 readers on shared streams',
        subtitle: `${s.rounds} round(s), medians with min-max; ${s.cluster} cluster`,
        categories: chartRows.map((t) =>
          rowLabel(t)
            .replace(' bytes per checksum', ' bpc')
            .replace(READER_PREFIX.java, 'Java: ')
            .replace(READER_PREFIX.s3, 'S3: '),
        ),
        series: (['on', 'off-global', 'off-instance'] as const).map((col) => ({
          name: READ_COLUMNS[col].label,
          points: chartRows.map((t) => {
            const c = t.cells[col];
            return c ? { value: c.ops.median, min: c.ops.min, max: c.ops.max } : null;
          }),
        })),
        yLabel: 'operations/s',
        formatValue: (v) => formatSi(v),
        valueLabels: true,
      }),
    );
  }
  if (sequential.length) {
    await ctx.results.writeChart(
      'ozone-read-sequential',
      'Ozone sequential whole-file reads: MiB/s per reader count, read mode and verify setting',
      barChartSvg({
        title: `Ozone sequential reads of whole ${s.fileSizeBytes / 1048576} MiB files`,
        subtitle: `${s.rounds} round(s), medians with min-max; ${s.cluster} cluster`,
        categories: sequential.map((t) =>
          rowLabel(t)
            .replace('Sequential whole-file reads, ', '')
            .replace(', 16 KiB bytes per checksum', '')
            .replace(READER_PREFIX.java, 'Java: '),
        ),
        series: SEQUENTIAL_COLUMNS.map((col) => ({
          name: READ_COLUMNS[col].label,
          points: sequential.map((t) => {
            const c = t.cells[col];
            return c ? { value: c.mib.median, min: c.mib.min, max: c.mib.max } : null;
          }),
        })),
        yLabel: 'MiB/s',
        formatValue: (v) => formatSi(v),
        valueLabels: true,
      }),
    );
  }
  const markdown = parts.join('\n\n');
  return {
    markdown,
    summary: `${random.length ? mainTable(random) : ''}${sequential.length ? `\n\n${sequentialTable(sequential)}` : ''}\n\n${bytesTable(
      results.filter((c) => !c.aligned),
      s,
    )}`,
  };
}
