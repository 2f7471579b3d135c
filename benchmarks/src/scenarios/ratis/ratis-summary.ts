import type { GoalResult, RangedValue, ScenarioSummary } from '../../all/scenario-summary.js';
import { asRecord, numberField } from '../../all/json-fields.js';
import { formatRatioWithRange, formatSiWithRange } from '../../harness/index.js';
import { CLIENTS } from './ratis-results.js';
import { WRITE_SIZES, type RatisSettings } from './ratis-settings.js';

/** Rough time of one write at the window, on the 2-core machine kind, for the ETA: ms. */
const MS_PER_WRITE: Readonly<Record<string, number>> = Object.freeze({ '1KiB': 1, '64KiB': 3, '4MiB': 120 });
/** Start of a group and both clients, ms. */
const SIZE_SETUP_MS = 25_000;

/** `{ median, min, max }` of a summarized figure in comparison.json, else null. */
function rangedOf(record: unknown): RangedValue | null {
  const r = asRecord(record);
  const value = numberField(r, 'median') ?? numberField(r, 'ratio');
  const min = numberField(r, 'min');
  const max = numberField(r, 'max');
  return value !== null && min !== null && max !== null ? { value, min, max } : null;
}

const cell = (v: RangedValue | null, ratio = false): string =>
  v === null
    ? '—'
    : ratio
      ? formatRatioWithRange(v.value, v.min, v.max)
      : formatSiWithRange(v.value, v.min, v.max);

/** The Ratis scenario in the combined report: issue #25's goal, fastpath ≥ 1× Java in each size. */
export const ratisSummary: ScenarioSummary<RatisSettings> = {
  source: null,
  uses: () => ['java'],
  cases: (s) => s.sizes.length * CLIENTS.length,
  estimateMs: (s) =>
    s.sizes.reduce(
      (ms, size) =>
        ms + SIZE_SETUP_MS + (s.rounds + 1) * CLIENTS.length * s.writes[size] * (MS_PER_WRITE[size] ?? 1),
      0,
    ),
  read(folder) {
    const sizes = Object.keys(WRITE_SIZES).filter((size) => asRecord(folder.entries[size]) !== null);
    const rows: string[][] = [];
    const goals: GoalResult[] = [];
    const ratios = [];
    for (const size of sizes) {
      const entry = asRecord(folder.entries[size]);
      const clients = asRecord(entry?.['clients']);
      const ratio = rangedOf(asRecord(entry?.['ratios'])?.['writesPerSec']);
      const cpu = rangedOf(asRecord(entry?.['ratios'])?.['cpuMicrosPerWrite']);
      const figure = (client: string, metric: string): RangedValue | null =>
        rangedOf(asRecord(clients?.[client])?.[metric]);
      rows.push([
        size,
        String(numberField(entry, 'window') ?? '—'),
        cell(figure('fastpath', 'writesPerSec')),
        cell(figure('java', 'writesPerSec')),
        cell(ratio, true),
        cell(figure('fastpath', 'cpuMicrosPerWrite')),
        cell(figure('java', 'cpuMicrosPerWrite')),
        cell(cpu, true),
      ]);
      ratios.push({ row: size, label: 'fastpath ÷ Java writes/s', ours: ratio, source: null });
      goals.push({
        goal: `${size} writes/s: fastpath ≥ 1× Ratis's Java client`,
        target: '≥ 1×',
        measured: ratio === null ? 'not measured' : formatRatioWithRange(ratio.value, ratio.min, ratio.max),
        met: ratio === null ? null : ratio.value >= 1,
      });
    }
    const headlineSize = sizes.includes('4MiB') ? '4MiB' : sizes[sizes.length - 1];
    const headline = ratios.find((r) => r.row === headlineSize)?.ours ?? null;
    return {
      table: {
        caption:
          'Writes/s and client CPU µs per write, median of the rounds (min–max); ratios fastpath ÷ Ratis’s Java client over paired rounds',
        columns: [
          { header: 'size' },
          { header: 'window', align: 'right' },
          { header: 'fastpath writes/s', align: 'right' },
          { header: 'Java writes/s', align: 'right' },
          { header: 'writes/s ÷', align: 'right' },
          { header: 'fastpath CPU µs/write', align: 'right' },
          { header: 'Java CPU µs/write', align: 'right' },
          { header: 'CPU ÷', align: 'right' },
        ],
        rows,
      },
      ratios,
      headline:
        headline === null || headlineSize === undefined
          ? null
          : {
              row: headlineSize,
              label: 'fastpath ÷ Java writes/s, 4 MiB (Ozone’s chunk)',
              ours: headline,
              source: null,
              better: 'higher',
            },
      goals,
      notes: [
        'No source document: the goal is issue #25’s, fastpath’s client at least as fast as Ratis’s own Java client, with the same window.',
      ],
    };
  },
};
