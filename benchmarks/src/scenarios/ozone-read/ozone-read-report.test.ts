import { describe, expect, it } from '@jest/globals';
import type { ColumnId, ReaderKind, RowId } from './ozone-read-cases.js';
import { goals } from './ozone-read-report.js';
import { tableRows } from './ozone-read-results.js';
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
    transport: 'http2-stream-pool',
    readWorkers: 0,
    rounds: [round],
  };
}

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
