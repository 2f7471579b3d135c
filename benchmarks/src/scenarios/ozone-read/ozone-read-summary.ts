// The ozone-read scenario in the combined report of `benchmarks:all`: our table in the source's
// layout, our off/on ratios beside HDDS-16783's, the headline (gRPC 1 MiB off/on) and the goals,
// all read back from the results folder (config.json names the cases, cases/<id>.json holds
// their rounds), with the same code the scenario's own report uses.
import { asRecord, arrayField, stringField } from '../../all/json-fields.js';
import { HDDS_16783_TABLE, sourceRatio } from '../../all/published-tables.js';
import type { ScenarioResultsFolder } from '../../all/scenario-results-folder.js';
import type { GoalResult, RatioFigure, ScenarioSummary } from '../../all/scenario-summary.js';
import { formatSi } from '../../harness/index.js';
import { fileSetId, planCases, READ_ROWS, type ReaderKind, type RowId } from './ozone-read-cases.js';
import { goals, READER_PREFIX } from './ozone-read-report.js';
import { tableRows, type TableRow } from './ozone-read-results.js';
import type { CaseResult } from './ozone-read-scenario.js';
import type { OzoneReadSettings } from './ozone-read-settings.js';

/** Our rows under the source's row names (the EC rows are not the source's: they have no ratio beside one). */
const SOURCE_ROW: Readonly<Partial<Record<RowId, string>>> = {
  'grpc-1m': 'gRPC, 1MB bytes per checksum',
  'grpc-16k': 'gRPC, 16KB bytes per checksum',
  'sc-1m': 'Short-circuit read, 1MB bytes per checksum',
  'sc-16k': 'Short-circuit read, 16KB bytes per checksum',
};
const LABEL = 'verify off / on';
// Set-up on this machine kind: writing the files through the client (three replicas), about 10 MB/s busy.
const WRITE_BYTES_PER_MS = 10_000;
const CASE_OVERHEAD_MS = 600;
// A sequential window also finishes the files its readers began: about one file at ~50 MB/s per reader.
const SEQUENTIAL_READ_BYTES_PER_MS = 50_000;

/** The readers a run with these flags plans (the S3 row when its gateway starts). */
function summaryReaders(flags: OzoneReadSettings): ReaderKind[] {
  return ['fastpath', ...(flags.java ? (['java'] as const) : []), ...(flags.s3 ? (['s3'] as const) : [])];
}

function readCases(folder: ScenarioResultsFolder): CaseResult[] {
  const ids = arrayField(asRecord(folder.readJson('config.json')), 'cases').filter(
    (x): x is string => typeof x === 'string',
  );
  return ids.flatMap((id) => {
    const c = folder.readJson(`cases/${id}.json`) as CaseResult | undefined;
    return c && Array.isArray(c.rounds) ? [c] : [];
  });
}

const cell = (t: TableRow, column: 'on' | 'off-global' | 'off-instance'): string => {
  const c = t.cells[column];
  return c ? `${formatSi(c.ops.median)} (${formatSi(c.ops.min)}–${formatSi(c.ops.max)})` : '—';
};

export const ozoneReadSummary: ScenarioSummary<OzoneReadSettings> = {
  source: HDDS_16783_TABLE,
  uses: (flags) => (flags.cluster === 'real' ? ['java', 'ozone'] : []),
  cases: (flags) =>
    planCases({
      rows: flags.rows,
      aligned: flags.aligned,
      readers: summaryReaders(flags),
      transports: flags.transports,
      readWorkers: flags.readWorkers,
      readModes: flags.readModes,
      extraFrameSizes: flags.http2MaxFrameBytes.slice(1),
    }).length * flags.rounds,
  estimateMs: (flags) => {
    const planned = planCases({
      rows: flags.rows,
      aligned: flags.aligned,
      readers: summaryReaders(flags),
      transports: flags.transports,
      readWorkers: flags.readWorkers,
      readModes: flags.readModes,
      extraFrameSizes: flags.http2MaxFrameBytes.slice(1),
    });
    const cases = planned.length;
    const sequential = planned.filter((c) => c.row.sequential).length;
    const sets = new Set(flags.rows.map((r) => fileSetId(READ_ROWS[r]))).size;
    return (
      (sets * flags.files * flags.fileSizeBytes) / WRITE_BYTES_PER_MS +
      cases * flags.rounds * (flags.warmupMs + flags.measureMs + CASE_OVERHEAD_MS) +
      sequential * flags.rounds * 2 * (flags.fileSizeBytes / SEQUENTIAL_READ_BYTES_PER_MS) +
      15_000
    );
  },
  read(folder) {
    const results = readCases(folder);
    // The combined report keeps the source's layout: the unsecured rows (`--security` adds its own table).
    // The sequential rows are not the source's: their goals are in the goals table.
    const rows = tableRows(results).filter(
      (t) => !t.aligned && t.security === 'none' && !READ_ROWS[t.row].sequential,
    );
    const ratios: RatioFigure[] = rows.flatMap((t) => {
      const row = SOURCE_ROW[t.row];
      if (t.reader !== 'fastpath' || row === undefined) return [];
      return [
        {
          row,
          label: LABEL,
          ours: t.offGlobalOverOn
            ? { value: t.offGlobalOverOn.ratio, min: t.offGlobalOverOn.min, max: t.offGlobalOverOn.max }
            : null,
          source: sourceRatio(HDDS_16783_TABLE, row, LABEL),
        },
      ];
    });
    const headline = SOURCE_ROW['grpc-1m']!;
    const headlineRow = ratios.find((r) => r.row === headline) ?? {
      row: headline,
      label: LABEL,
      ours: null,
      source: sourceRatio(HDDS_16783_TABLE, headline, LABEL),
    };
    const goalResults: GoalResult[] = goals(tableRows(results), results).map((g) => ({
      goal: g.goal,
      target: /[≥≤]\s*[\d.]+×?|between [\d.]+× and [\d.]+×|within \d+%/.exec(g.goal)?.[0] ?? g.goal,
      measured: g.measured,
      met: g.met,
    }));
    const config = asRecord(folder.readJson('config.json'));
    const sc = asRecord(config?.shortCircuit ?? null);
    const notes = [
      'Operations/s of 16 readers sharing one stream per file on a 2-core machine shared with other work: read the ratios, measured side by side in one run.',
      'The "off: setVerifyChecksum(false)" column is the change itself; the source measured verify off with ozone.client.verify.checksum=false only.',
    ];
    const reason = stringField(sc, 'reason');
    if (reason && sc?.available === false) notes.push(`Short-circuit rows not run: ${reason}.`);
    return {
      table: {
        caption: 'fastpath, 64 KiB random positional reads, operations/s, median (min–max) of the rounds',
        columns: [
          { header: 'read path' },
          { header: 'verify on', align: 'right' },
          { header: 'verify off (ozone.client.verify.checksum=false)', align: 'right' },
          { header: 'verify off (setVerifyChecksum(false))', align: 'right' },
        ],
        rows: rows.map((t) => [
          `${READER_PREFIX[t.reader]}${READ_ROWS[t.row].label}`,
          cell(t, 'on'),
          cell(t, 'off-global'),
          cell(t, 'off-instance'),
        ]),
      },
      ratios,
      headline: { ...headlineRow, label: `gRPC 1 MiB ${LABEL}`, better: 'higher' },
      goals: goalResults,
      notes,
    };
  },
};
