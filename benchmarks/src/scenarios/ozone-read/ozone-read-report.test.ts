import { describe, expect, it } from '@jest/globals';
import type { ColumnId, ReaderKind, RowId } from './ozone-read-cases.js';
import { goals, machineTable, sequentialRatioTable, sequentialTable } from './ozone-read-report.js';
import { anchorErrors, fatalReadFailures, tableRows } from './ozone-read-results.js';
import type { CaseResult, CaseRound } from './ozone-read-scenario.js';
import { perOpFigures } from './read-accounting.js';

/** One case of one round: `ops` reads in a second, `cpuMicros` of client CPU per read. */
function result(
  reader: ReaderKind,
  row: RowId,
  column: ColumnId,
  ops: number,
  cpuMicros: number,
): CaseResult {
  const counts = {
    ops,
    errors: 0,
    wrongBytes: 0,
    checkedOps: ops,
    measuredMs: 1000,
    bytesRequested: ops * 65536,
    bytesPredicted: ops * 65536,
    client: null,
    datanodeBytesSent: null,
    cpuSeconds: (ops * cpuMicros) / 1e6,
  };
  const round: CaseRound = {
    round: 0,
    counts,
    figures: perOpFigures(counts),
    latency: { count: ops, minMs: 0, meanMs: 0, p50Ms: 0, p90Ms: 0, p99Ms: 0, p999Ms: 0, maxMs: 0 },
    checkMicrosPerRead: 0,
    streamsVerify: [],
  };
  return {
    id: `${reader}-${row}-${column}`,
    reader,
    row,
    column,
    aligned: false,
    transport: 'socket-stream-pool',
    readWorkers: 0,
    rounds: [round],
  };
}

const MiB = 1024 * 1024;

/** One round of a sequential case: `files` whole files of 64 MiB in 2 s, `cpuPerMiB` µs of client CPU per MiB. */
function sequential(
  reader: ReaderKind,
  row: 'seq-1' | 'seq-16',
  column: ColumnId,
  readBlock: boolean,
  files: number,
  cpuPerMiB: number,
): CaseResult {
  const counts = {
    ops: files,
    errors: 0,
    wrongBytes: 0,
    checkedOps: files,
    measuredMs: 2000,
    bytesRequested: files * 64 * MiB,
    bytesRead: files * 64 * MiB,
    bytesPredicted: files * 64 * MiB,
    client: null,
    datanodeBytesSent: null,
    cpuSeconds: (files * 64 * cpuPerMiB) / 1e6,
  };
  return {
    ...result(reader, row, column, 0, 0),
    id: `${reader}-${row}-${column}${readBlock ? '-rb' : ''}`,
    readBlock,
    rounds: [
      {
        round: 0,
        counts,
        figures: perOpFigures(counts),
        latency: { count: files, minMs: 0, meanMs: 0, p50Ms: 0, p90Ms: 0, p99Ms: 0, p999Ms: 0, maxMs: 0 },
        checkMicrosPerRead: 0,
        streamsVerify: [],
      },
    ],
  };
}

describe('ozone-read sequential rows', () => {
  const results = [
    // 16 readers, ReadChunk: fastpath 12 files (384 MiB/s), Java ReadBlock off 8 (256 MiB/s).
    sequential('fastpath', 'seq-16', 'on', false, 12, 1500),
    sequential('fastpath', 'seq-16', 'off-global', false, 14, 1000),
    sequential('java', 'seq-16', 'on', false, 8, 2500),
    sequential('java', 'seq-16', 'off-global', false, 13, 1100),
    // ReadBlock on both: fastpath 10, Java 10: 1×.
    sequential('fastpath', 'seq-16', 'on', true, 10, 1600),
    sequential('java', 'seq-16', 'on', true, 10, 1600),
  ];

  it('account files/s, MiB/s and CPU per MiB per cell, fastpath against Java read the same way', () => {
    const rows = tableRows(results);
    const f = rows.find((t) => t.reader === 'fastpath' && t.row === 'seq-16' && !t.readBlock)!;
    expect(f.cells.on?.ops.median).toBe(6);
    expect(f.cells.on?.mib.median).toBe(384);
    expect(f.cells.on?.cpuPerMiB.median).toBeCloseTo(1500, 6);
    expect(f.offGlobalOverOn?.ratio).toBeCloseTo(14 / 12, 10);
    const table = sequentialTable(rows);
    expect(table).toContain('Sequential whole-file reads, 16 readers, 16 KiB bytes per checksum, ReadChunk');
    expect(table).toContain(
      "Ozone's Java client: Sequential whole-file reads, 16 readers, 16 KiB bytes per checksum, streaming ReadBlock",
    );
    expect(table).toContain('384');
    const ratios = sequentialRatioTable(rows)!;
    // 384 ÷ 256 MiB/s; 1500 ÷ 2500 µs per MiB.
    expect(ratios).toContain('1.50×');
    expect(ratios).toContain('0.600×');
    expect(ratios).toContain('streaming ReadBlock (both)');
  });

  it('hold fastpath to 1.2× Java’s files/s and MiB/s and 0.8× its CPU per MiB in every cell', () => {
    const seq = goals(tableRows(results), results).filter((g) => g.goal.includes('Sequential'));
    const byGoal = Object.fromEntries(seq.map((g) => [g.goal, [g.measured, g.met]]));
    const row = 'Sequential whole-file reads, 16 readers, 16 KiB bytes per checksum';
    const chunk = `${row}, ReadChunk (Java: ReadBlock off)`;
    const block = `${row}, streaming ReadBlock (both)`;
    expect(byGoal).toEqual({
      [`fastpath / Java client, ${chunk}, verify on: files/s and MiB/s ≥ 1.2×`]: ['1.50×', true],
      [`client CPU per MiB, fastpath ≤ 0.8× Java client, ${chunk}, verify on`]: [
        '1500 µs ÷ 2500 µs = 0.600×',
        true,
      ],
      [`fastpath / Java client, ${chunk}, verify off: files/s and MiB/s ≥ 1.2×`]: ['1.08×', false],
      [`client CPU per MiB, fastpath ≤ 0.8× Java client, ${chunk}, verify off`]: [
        '1000 µs ÷ 1100 µs = 0.909×',
        false,
      ],
      [`fastpath / Java client, ${block}, verify on: files/s and MiB/s ≥ 1.2×`]: ['1.00×', false],
      [`client CPU per MiB, fastpath ≤ 0.8× Java client, ${block}, verify on`]: [
        '1600 µs ÷ 1600 µs = 1.00×',
        false,
      ],
      [`fastpath / Java client, ${block}, verify off: files/s and MiB/s ≥ 1.2×`]: [
        expect.stringMatching(/^not run/),
        null,
      ],
      [`client CPU per MiB, fastpath ≤ 0.8× Java client, ${block}, verify off`]: [
        expect.stringMatching(/^not run/),
        null,
      ],
    });
  });

  it('keep a further HTTP/2 frame size as a row of its own, out of the goals, paired with Java in the ratios', () => {
    // fastpath's 16 KiB-frame row measured first, at 2× Java: the goals still read the run's first size.
    const framed = { ...sequential('fastpath', 'seq-16', 'on', false, 20, 900), frameBytes: 16 * 1024 };
    const withFrames = [framed, ...results];
    const rows = tableRows(withFrames);
    expect(rows.filter((t) => t.reader === 'fastpath' && t.row === 'seq-16' && !t.readBlock)).toHaveLength(2);
    const goalsOf = (r: CaseResult[]): unknown =>
      goals(tableRows(r), r)
        .filter((g) => g.goal.includes('Sequential'))
        .map((g) => [g.goal, g.measured, g.met]);
    expect(goalsOf(withFrames)).toEqual(goalsOf(results));
    const ratios = sequentialRatioTable(rows)!;
    // 20 × 64 MiB in 2 s ÷ Java's 8 files: 2.50×.
    expect(ratios).toMatch(/ReadChunk \(Java: ReadBlock off\), 16 KiB HTTP\/2 frames \|\s+2\.50×/);
    expect(sequentialTable(rows)).toContain('ReadChunk, 16 KiB HTTP/2 frames');
  });

  it("give each client's cluster CPU per MiB, the cores busy and the MiB/s ceiling beside Java's", () => {
    const withCluster = (c: CaseResult, cpuMs: number): CaseResult => ({
      ...c,
      rounds: c.rounds.map((r) => ({ ...r, clusterCpu: { cpuMs, windowMs: 2000 } })),
    });
    const measured = [
      // fastpath: 384 MiB/s with the cluster at 1.536 cores: 4,000 µs of cluster CPU per MiB;
      // 2 cores ÷ that = 500 MiB/s, 1.95× Java's 256. Busy: 1.536 + 1.152 s ÷ 2 s of its own.
      withCluster(sequential('fastpath', 'seq-16', 'on', false, 12, 1500), 3072),
      // Java: 256 MiB/s with the cluster at 1.28 cores: 5,000 µs per MiB, a 400 MiB/s ceiling.
      withCluster(sequential('java', 'seq-16', 'on', false, 8, 2500), 2560),
      // A case without a cluster reading has no line.
      sequential('fastpath', 'seq-16', 'off-global', false, 14, 1000),
      sequential('java', 'seq-16', 'off-global', false, 13, 1100),
    ];
    const table = machineTable(tableRows(measured), 2)!;
    expect(table).toMatch(
      /verify on\s*\|\s*fastpath\s*\|\s*1500 µs\s*\|\s*4000 µs\s*\|\s*2\.11[^|]*\|\s*500\s*\|\s*1\.95×/,
    );
    expect(table).toMatch(
      /verify on\s*\|\s*Ozone's Java client\s*\|\s*2500 µs\s*\|\s*5000 µs\s*\|[^|]+\|\s*400\s*\|\s*1\.56×/,
    );
    expect(table).not.toContain('verify off');
    expect(machineTable(tableRows(results), 2)).toBeNull();
  });

  it('name no sequential goal in a run without the sequential rows', () => {
    const positional = [result('fastpath', 'grpc-1m', 'on', 100, 1000)];
    expect(goals(tableRows(positional), positional).some((g) => g.goal.includes('Sequential'))).toBe(false);
  });
});

describe('ozone-read read failures', () => {
  const failing = (reader: ReaderKind, errors: number, wrongBytes: number): CaseResult => {
    const c = result(reader, 'seq-16', 'on', 10, 100);
    const r = c.rounds[0]!;
    return {
      ...c,
      rounds: [
        {
          ...r,
          counts: { ...r.counts, errors, wrongBytes },
          firstError: 'java.io.IOException: Inconsistent read',
        },
      ],
    };
  };

  it("fail the run on wrong bytes from any reader and on fastpath's failed reads, not on the anchors' failed reads", () => {
    expect(fatalReadFailures([failing('java', 3, 0), failing('s3', 2, 0)])).toBe(0);
    expect(fatalReadFailures([failing('java', 3, 1)])).toBe(1);
    expect(fatalReadFailures([failing('fastpath', 2, 0), failing('java', 3, 0)])).toBe(2);
  });

  it("list the anchors' failed reads with the first error", () => {
    expect(anchorErrors([failing('fastpath', 1, 0), failing('java', 3, 0), failing('java', 0, 0)])).toEqual([
      {
        id: 'java-seq-16-on',
        errors: 3,
        attempted: 13,
        firstError: 'java.io.IOException: Inconsistent read',
      },
    ]);
  });
});

describe('ozone-read goals', () => {
  it('hold fastpath to Java in every EC row and column: ops/s at least 1×, CPU per read at most Java’s', () => {
    const results = [
      result('fastpath', 'ec-rs-3-2', 'on', 1200, 300),
      result('fastpath', 'ec-rs-3-2', 'off-global', 1500, 250),
      result('java', 'ec-rs-3-2', 'on', 1000, 350),
      result('java', 'ec-rs-3-2', 'off-global', 1600, 200),
      result('fastpath', 'ec-rs-3-2-down', 'on', 900, 500),
      result('java', 'ec-rs-3-2-down', 'on', 300, 900),
    ];
    const ec = goals(tableRows(results), results).filter((g) => g.goal.includes('EC rs-3-2-1024k'));
    const byGoal = Object.fromEntries(ec.map((g) => [g.goal, [g.measured, g.met]]));
    const row = 'EC rs-3-2-1024k, 16 KiB bytes per checksum';
    const down = `${row}, a data datanode down`;
    expect(byGoal).toEqual({
      [`fastpath / Java client, ${row}, verify on: ≥ 1×`]: ['1.20×', true],
      [`client CPU per read, fastpath ≤ Java client, ${row}, verify on`]: ['300 µs ÷ 350 µs = 0.857×', true],
      [`fastpath / Java client, ${row}, verify off: ≥ 1×`]: ['0.938×', false],
      [`client CPU per read, fastpath ≤ Java client, ${row}, verify off`]: ['250 µs ÷ 200 µs = 1.25×', false],
      [`fastpath / Java client, ${down}, verify on: ≥ 1×`]: ['3.00×', true],
      [`client CPU per read, fastpath ≤ Java client, ${down}, verify on`]: ['500 µs ÷ 900 µs = 0.556×', true],
      [`fastpath / Java client, ${down}, verify off: ≥ 1×`]: [expect.stringMatching(/^not run/), null],
      [`client CPU per read, fastpath ≤ Java client, ${down}, verify off`]: [
        expect.stringMatching(/^not run/),
        null,
      ],
    });
  });

  it('name no EC goal in a run without EC rows', () => {
    const results = [result('fastpath', 'grpc-1m', 'on', 100, 1000)];
    expect(goals(tableRows(results), results).some((g) => g.goal.includes('EC'))).toBe(false);
  });
});
