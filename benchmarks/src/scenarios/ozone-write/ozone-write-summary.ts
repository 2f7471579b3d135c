// The ozone-write scenario in the combined report of `benchmarks:all`: its table, fastpath ÷ Java
// per row, the 16-writer row as headline and issue 27's goals, read back from comparison.json
// (one entry per row, as the scenario wrote it).
import { asRecord, stringField } from '../../all/json-fields.js';
import type { GoalResult, RangedValue, RatioFigure, ScenarioSummary } from '../../all/scenario-summary.js';
import {
  formatRatioWithRange,
  formatSiWithRange,
  type RatioSummary,
  type Summary,
} from '../../harness/index.js';
import { rowGoals } from './ozone-write-report.js';
import type { RowComparison } from './ozone-write-results.js';
import { estimateRunMs, ROW_IDS, type OzoneWriteSettings } from './ozone-write-settings.js';

const HEADLINE_ROW = 'parallel';

function rowsOf(entries: Readonly<Record<string, unknown>>): RowComparison[] {
  return ROW_IDS.flatMap((id) => {
    const entry = asRecord(entries[id]);
    return entry && stringField(entry, 'label') !== null && asRecord(entry['clients'])
      ? [entry as unknown as RowComparison]
      : [];
  });
}

const ranged = (r: RatioSummary | undefined): RangedValue | null =>
  r ? { value: r.ratio, min: r.min, max: r.max } : null;
const cell = (s: Summary | undefined): string => (s ? formatSiWithRange(s.median, s.min, s.max) : '—');
const ratioCell = (r: RatioSummary | undefined): string =>
  r ? formatRatioWithRange(r.ratio, r.min, r.max) : '—';

export const ozoneWriteSummary: ScenarioSummary<OzoneWriteSettings> = {
  source: null,
  uses: (s) => (s.cluster === 'real' ? ['java', 'ozone'] : []),
  cases: (s) => s.rows.length * (s.java ? 2 : 1) * s.passes,
  estimateMs: (s) => estimateRunMs(s),
  read(folder) {
    const rows = rowsOf(folder.entries);
    const ratios: RatioFigure[] = rows.map((r) => ({
      row: r.label,
      label: 'fastpath ÷ Java MiB/s',
      ours: ranged(r.ratios?.mibPerSec),
      source: null,
    }));
    const goals: GoalResult[] = rows.flatMap((r) => rowGoals(r));
    const headlineRow = rows.find((r) => r.row === HEADLINE_ROW) ?? rows[0];
    const problems = rows.reduce((n, r) => n + (r.problems ?? 0), 0);
    return {
      table: {
        caption:
          'MiB/s and client CPU ms per MiB, median of the passes (min–max); ratios fastpath ÷ Ozone’s Java client over paired passes',
        columns: [
          { header: 'row' },
          { header: 'fastpath MiB/s', align: 'right' },
          { header: 'Java MiB/s', align: 'right' },
          { header: 'MiB/s ÷', align: 'right' },
          { header: 'fastpath CPU ms/MiB', align: 'right' },
          { header: 'Java CPU ms/MiB', align: 'right' },
          { header: 'CPU ÷', align: 'right' },
          { header: 'errors', align: 'right' },
        ],
        rows: rows.map((r) => [
          r.label,
          cell(r.clients.fastpath?.mibPerSec),
          cell(r.clients.java?.mibPerSec),
          ratioCell(r.ratios?.mibPerSec),
          cell(r.clients.fastpath?.cpuMsPerMiB),
          cell(r.clients.java?.cpuMsPerMiB),
          ratioCell(r.ratios?.cpuMsPerMiB),
          String(r.problems ?? 0),
        ]),
      },
      ratios,
      headline: headlineRow
        ? {
            row: headlineRow.label,
            label: 'fastpath ÷ Java MiB/s, 16 writers',
            ours: ranged(headlineRow.ratios?.mibPerSec),
            source: null,
            better: 'higher',
          }
        : null,
      goals,
      notes: [
        'No source document: the goals are issue 27’s, fastpath’s writes at least as fast as Ozone’s own Java client in every row, with no more client CPU per MiB.',
        'Ozone’s Java client runs with `--cluster real` only; the default run (embedded mini cluster) measures fastpath alone.',
        ...(problems > 0
          ? [`${problems} key write(s) or read-back(s) failed: the figures do not stand.`]
          : []),
      ],
    };
  },
};
