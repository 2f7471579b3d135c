// The figures the report and comparison.json share: per row of the source's table, the medians
// of each column and the ratios, paired round by round.
import { compareRounds, summarize, type RatioSummary, type Summary } from '../../harness/index.js';
import type { DatanodeTransport } from '@fastpath/ozone-fs-client';
import {
  READ_ROWS,
  TRANSPORT_MARKS,
  frameMark,
  type ColumnId,
  type ReaderKind,
  type RowId,
} from './ozone-read-cases.js';
import type { CaseResult } from './ozone-read-scenario.js';
import { securityMark, type SecurityLevel } from './security-levels.js';

/** One column of a table row: the rounds of one case, summarised. */
export interface TableCell {
  ops: Summary;
  cpu: Summary;
  mib: Summary;
  cpuPerMiB: Summary;
  /** operations/s per round, in round order (the ratios pair them). */
  rounds: number[];
  /** MiB/s per round, in round order. */
  mibRounds: number[];
  /** CPU µs per MiB per round, in round order. */
  cpuPerMiBRounds: number[];
  result: CaseResult;
}

/** One row of the table: a reader, a row of the source's, random or aligned offsets. */
export interface TableRow {
  key: string;
  reader: ReaderKind;
  row: RowId;
  aligned: boolean;
  /** fastpath's datanode transport (null for the Java client's rows). */
  transport: DatanodeTransport | null;
  /** fastpath's read worker threads (0: the reader's thread; null for the Java client's rows). */
  readWorkers: number | null;
  /** Whether the row read with streaming ReadBlock. */
  readBlock: boolean;
  /** fastpath's HTTP/2 frame size when one of the run's further sizes (null: the run's first). */
  frameBytes: number | null;
  /** The cluster's security level (none in runs without `--security`). */
  security: SecurityLevel;
  /**
   * ops: operations/s (the sequential rows: whole files/s); cpu: the reader's CPU per read in µs;
   * mib: MiB/s delivered; cpuPerMiB: the reader's CPU per MiB in µs.
   */
  cells: Partial<Record<ColumnId, TableCell>>;
  /** off/on, with verify off by configuration and by the instance switch; instance/global. */
  offGlobalOverOn: RatioSummary | null;
  offInstanceOverOn: RatioSummary | null;
  instanceOverGlobal: RatioSummary | null;
}

function ratio(a: number[] | undefined, b: number[] | undefined): RatioSummary | null {
  if (!a || !b || a.length === 0 || a.length !== b.length || b.some((v) => v === 0)) return null;
  return compareRounds(a, b);
}

export function rowKey(
  reader: ReaderKind,
  row: RowId,
  aligned: boolean,
  transport: DatanodeTransport | null = null,
  readWorkers: number | null = null,
  readBlock = false,
  security: SecurityLevel = 'none',
  frameBytes: number | null = null,
): string {
  return (
    `${securityMark(security)}${reader}/${row}${aligned ? '/aligned' : ''}${transport && TRANSPORT_MARKS[transport].id ? `/${TRANSPORT_MARKS[transport].id}` : ''}` +
    `${readWorkers ? `/w${readWorkers}` : ''}${readBlock ? '/readblock' : ''}${frameBytes === null ? '' : `/${frameMark(frameBytes)}`}`
  );
}

/** Groups the cases into table rows, in the order first measured. */
export function tableRows(results: readonly CaseResult[]): TableRow[] {
  const rows = new Map<string, TableRow>();
  for (const c of results) {
    if (c.rounds.length === 0) continue;
    const transport = c.reader === 'fastpath' ? c.transport : null;
    // Results written before the worker rows existed have no count: the reader's thread.
    const readWorkers = c.reader === 'fastpath' ? (c.readWorkers ?? 0) : null;
    // Results written before the ReadBlock rows existed have no mode: ReadChunk.
    const readBlock = c.readBlock === true;
    const security = c.security ?? 'none';
    const frameBytes = c.reader === 'fastpath' ? (c.frameBytes ?? null) : null;
    const key = rowKey(c.reader, c.row, c.aligned, transport, readWorkers, readBlock, security, frameBytes);
    let row = rows.get(key);
    if (!row) {
      row = {
        key,
        reader: c.reader,
        row: c.row,
        aligned: c.aligned,
        transport,
        readWorkers,
        readBlock,
        frameBytes,
        security,
        cells: {},
        offGlobalOverOn: null,
        offInstanceOverOn: null,
        instanceOverGlobal: null,
      };
      rows.set(key, row);
    }
    const ops = c.rounds.map((r) => r.figures.opsPerSec);
    const cpu = c.rounds.map((r) => r.figures.cpuMicrosPerOp);
    // Results written before MiB/s was counted have neither figure: 0.
    const mib = c.rounds.map((r) => r.figures.mibPerSec ?? 0);
    const cpuPerMiB = c.rounds.map((r) => r.figures.cpuMicrosPerMiB ?? 0);
    row.cells[c.column] = {
      ops: summarize(ops),
      cpu: summarize(cpu),
      mib: summarize(mib),
      cpuPerMiB: summarize(cpuPerMiB),
      rounds: ops,
      mibRounds: mib,
      cpuPerMiBRounds: cpuPerMiB,
      result: c,
    };
  }
  for (const row of rows.values()) {
    const on = row.cells.on?.rounds;
    row.offGlobalOverOn = ratio(row.cells['off-global']?.rounds, on);
    row.offInstanceOverOn = ratio(row.cells['off-instance']?.rounds, on);
    row.instanceOverGlobal = ratio(row.cells['off-instance']?.rounds, row.cells['off-global']?.rounds);
  }
  return [...rows.values()];
}

/**
 * The headline figures as comparison.json carries them (the `headline` entry, rewritten after
 * every case): per table row, the median operations/s per column, the ratios, and the source's
 * figures for the same row.
 */
export function headlineEntries(results: readonly CaseResult[]): Record<string, unknown> {
  return Object.fromEntries(
    tableRows(results).map((t) => {
      const src = READ_ROWS[t.row].source;
      const med = (c: ColumnId): number | null => t.cells[c]?.ops.median ?? null;
      return [
        t.key,
        {
          label: READ_ROWS[t.row].label,
          reader: t.reader,
          aligned: t.aligned,
          transport: t.transport,
          readWorkers: t.readWorkers,
          readBlock: t.readBlock,
          frameBytes: t.frameBytes,
          unit: READ_ROWS[t.row].sequential ? 'files/s' : 'operations/s',
          verifyOn: med('on'),
          verifyOffGlobal: med('off-global'),
          verifyOffInstance: med('off-instance'),
          offGlobalOverOn: t.offGlobalOverOn?.ratio ?? null,
          offInstanceOverOn: t.offInstanceOverOn?.ratio ?? null,
          instanceOverGlobal: t.instanceOverGlobal?.ratio ?? null,
          cpuMicrosPerRead: {
            verifyOn: t.cells.on?.cpu.median ?? null,
            verifyOffGlobal: t.cells['off-global']?.cpu.median ?? null,
            verifyOffInstance: t.cells['off-instance']?.cpu.median ?? null,
          },
          mibPerSec: {
            verifyOn: t.cells.on?.mib.median ?? null,
            verifyOffGlobal: t.cells['off-global']?.mib.median ?? null,
            verifyOffInstance: t.cells['off-instance']?.mib.median ?? null,
          },
          cpuMicrosPerMiB: {
            verifyOn: t.cells.on?.cpuPerMiB.median ?? null,
            verifyOffGlobal: t.cells['off-global']?.cpuPerMiB.median ?? null,
            verifyOffInstance: t.cells['off-instance']?.cpuPerMiB.median ?? null,
          },
          source: src ? { verifyOn: src.on, verifyOff: src.off, offOverOn: src.off / src.on } : null,
        },
      ];
    }),
  );
}

/**
 * Reads that fail the run: any reader's wrong bytes (a correctness failure wherever it happens),
 * and fastpath's failed reads (the client under test). The anchors' failed reads (Ozone's Java
 * client, the S3 gateway) are their own behaviour: reported (`anchorErrors`), not fatal.
 */
export function fatalReadFailures(results: readonly CaseResult[]): number {
  return results
    .flatMap((c) =>
      c.rounds.map((r) => r.counts.wrongBytes + (c.reader === 'fastpath' ? r.counts.errors : 0)),
    )
    .reduce((a, b) => a + b, 0);
}

/** One anchor case whose reads failed: how many of how many, and the first error. */
export interface AnchorErrors {
  id: string;
  errors: number;
  attempted: number;
  firstError: string | undefined;
}

/** The anchors' cases with failed reads, in case order. */
export function anchorErrors(results: readonly CaseResult[]): AnchorErrors[] {
  return results
    .filter((c) => c.reader !== 'fastpath')
    .map((c) => ({
      id: c.id,
      errors: c.rounds.reduce((n, r) => n + r.counts.errors, 0),
      attempted: c.rounds.reduce((n, r) => n + r.counts.ops + r.counts.errors + r.counts.wrongBytes, 0),
      firstError: c.rounds.find((r) => r.firstError)?.firstError,
    }))
    .filter((e) => e.errors > 0);
}
