import { arrayField, asRecord, numberField, stringField, type JsonRecord } from '../../all/json-fields.js';
import { HDDS_17357_TABLE, sourceRatio } from '../../all/published-tables.js';
import type { ScenarioResultsFolder } from '../../all/scenario-results-folder.js';
import type { GoalResult, RangedValue, RatioFigure, ScenarioSummary } from '../../all/scenario-summary.js';
import { compareRounds, median } from '../../harness/index.js';
import { BASELINE_VARIANT, COLD_CLIENT_VARIANTS, type ColdClientVariantId } from './cold-client-variants.js';

// Our variants that play the source's rows: the transport warm-up (Netty) and the full warm-up
// (Netty and netty-tcnative, here the TLS credentials as well).
const RATIO_ROWS: readonly { row: string; variant: ColdClientVariantId }[] = [
  { row: 'transport warmed up', variant: 'transport' },
  { row: 'full warm-up', variant: 'transport-tls' },
];
const LABEL = 'total ÷ as today';
const FULL_WARMUP: ColdClientVariantId = 'transport-tls';
// The default profile's process runs per round and breakdown rounds, and the time of one process.
const ROUNDS = { full: 10, quick: 3 };
const BREAKDOWN_ROUNDS = { full: 5, quick: 2 };
const PROCESS_MS = 400;
// The Java anchor: a real MiniOzoneCluster's start, then per round Java's cold read and two of ours.
const ANCHOR_ROWS = 3;
const ANCHOR_START_MS = 60_000;
const JVM_PROCESS_MS = 2_000;

const ms = (v: number): string => `${Math.round(v).toLocaleString('en-US')} ms`;

/** Total times of every round of a variant, from its case file (round r of each ran together). */
function roundTotals(folder: ScenarioResultsFolder, variant: ColdClientVariantId): number[] {
  return arrayField(asRecord(folder.readJson(`cases/${variant}.json`)), 'rounds')
    .map((r) => numberField(asRecord(r), 'totalMs'))
    .filter((v): v is number => v !== null);
}

function pairedTotals(folder: ScenarioResultsFolder, variant: ColdClientVariantId): RangedValue | null {
  const candidate = roundTotals(folder, variant);
  const baseline = roundTotals(folder, BASELINE_VARIANT);
  if (candidate.length === 0 || candidate.length !== baseline.length) return null;
  const r = compareRounds(candidate, baseline);
  return { value: r.ratio, min: r.min, max: r.max };
}

/** Median wall time of the warm-up's own steps in the breakdown: the set-up the warm-up moves. */
function warmupStepsMs(folder: ScenarioResultsFolder): number | null {
  const modes = folder.readJson('breakdown.json');
  if (!Array.isArray(modes)) return null;
  const on = modes.map(asRecord).find((m) => stringField(m, 'mode') === 'warm-up on');
  const rounds = arrayField(on ?? null, 'rounds')
    .map(asRecord)
    .filter((r): r is JsonRecord => r !== null);
  if (rounds.length === 0) return null;
  const steps = Object.keys(rounds[0]!).filter((k) => k.startsWith('warm-up step'));
  if (steps.length === 0) return null;
  return steps.reduce((sum, step) => {
    const values = rounds.map((r) => numberField(r, step)).filter((v): v is number => v !== null);
    return sum + (values.length ? median(values) : 0);
  }, 0);
}

/** The cold-client probe in the combined report, against HDDS-17357's table. */
export const coldClientSummary: ScenarioSummary<{ javaAnchor: boolean }> = {
  source: HDDS_17357_TABLE,
  // The Java anchor runs Ozone's own client on a real MiniOzoneCluster (Java, Ozone's jars).
  uses: (f) => (f.javaAnchor ? ['java', 'ozone'] : []),
  cases: (f, quick) =>
    (quick ? ROUNDS.quick : ROUNDS.full) * (COLD_CLIENT_VARIANTS.length + (f.javaAnchor ? ANCHOR_ROWS : 0)),
  estimateMs: (f, quick) => {
    const rounds = quick ? ROUNDS.quick : ROUNDS.full;
    const runs =
      rounds * COLD_CLIENT_VARIANTS.length +
      2 * (quick ? BREAKDOWN_ROUNDS.quick : BREAKDOWN_ROUNDS.full) +
      COLD_CLIENT_VARIANTS.length;
    const anchor = f.javaAnchor ? ANCHOR_START_MS + rounds * ANCHOR_ROWS * JVM_PROCESS_MS : 0;
    return runs * PROCESS_MS + 10_000 + anchor;
  },
  read(folder) {
    const entry = (id: ColdClientVariantId) => asRecord(folder.entries[id]);
    const base = entry(BASELINE_VARIANT);
    const baseTotal = numberField(base, 'medianTotalMs');
    const present = COLD_CLIENT_VARIANTS.filter((v) => entry(v.id) !== null);
    const rows = present.map((v) => {
      const e = entry(v.id);
      const total = numberField(e, 'medianTotalMs');
      const saving =
        v.id !== BASELINE_VARIANT && total !== null && baseTotal !== null
          ? ` (${total - baseTotal <= 0 ? '−' : '+'}${Math.abs(Math.round(total - baseTotal))} ms)`
          : '';
      const cell = (key: string): string => {
        const value = numberField(e, key);
        return value === null ? '—' : ms(value);
      };
      return [
        v.label,
        cell('medianCreateMs'),
        cell('medianReadMs'),
        total === null ? '—' : `${ms(total)}${saving}`,
      ];
    });
    const ratios: RatioFigure[] = RATIO_ROWS.map(({ row, variant }) => ({
      row,
      label: LABEL,
      ours: pairedTotals(folder, variant),
      source: sourceRatio(HDDS_17357_TABLE, row, LABEL),
    }));

    const range = (e: JsonRecord | null): [number, number] | null => {
      const r = arrayField(e, 'totalRangeMs');
      return typeof r[0] === 'number' && typeof r[1] === 'number' ? [r[0], r[1]] : null;
    };
    const full = entry(FULL_WARMUP);
    const fullTotal = numberField(full, 'medianTotalMs');
    const baseRange = range(base);
    const fullRange = range(full);
    const steps = warmupStepsMs(folder);
    const goals: GoalResult[] = [];
    if (baseTotal !== null && fullTotal !== null && baseRange && fullRange && steps !== null) {
      const saved = baseTotal - fullTotal;
      const apart = fullRange[1] < baseRange[0];
      goals.push({
        goal: 'full warm-up saves ≥ 50% of the set-up it moves, and the totals’ ranges are apart',
        target: `≥ ${ms(steps / 2)} saved (half of ${ms(steps)}), ranges apart`,
        measured: `${ms(saved)} saved; ranges ${Math.round(fullRange[0])}–${Math.round(fullRange[1])} and ${Math.round(baseRange[0])}–${Math.round(baseRange[1])} ms${apart ? '' : ' overlap'}`,
        met: saved >= steps / 2 && apart,
      });
    } else {
      goals.push({
        goal: 'full warm-up saves ≥ 50% of the set-up it moves, and the totals’ ranges are apart',
        target: '≥ 50%, ranges apart',
        measured: 'not measured in this run',
        met: null,
      });
    }
    // The anchor's ratios: each fastpath row's median total over Java's, same real cluster.
    const toJava = asRecord(asRecord(folder.entries['java-anchor'])?.ratioToJava);
    const asToday = numberField(toJava, BASELINE_VARIANT);
    goals.push({
      goal: 'a fastpath cold client’s total ≤ 0.25× the Java cold client’s',
      target: '≤ 0.25×',
      measured:
        toJava && asToday !== null
          ? Object.entries(toJava)
              .map(([id, r]) => `${id} ${typeof r === 'number' ? r.toFixed(2) : '?'}×`)
              .join(', ')
          : 'not measured: the Java anchor did not run (--java-anchor; on in all without --quick)',
      met: asToday === null ? null : asToday <= 0.25,
    });
    if (baseTotal !== null && baseRange) {
      const noise = baseRange[1] - baseRange[0];
      const worst = present
        .filter((v) => v.id !== BASELINE_VARIANT)
        .map((v) => ({ v, slower: (numberField(entry(v.id), 'medianTotalMs') ?? baseTotal) - baseTotal }))
        .sort((a, b) => b.slower - a.slower)[0];
      goals.push({
        goal: 'no variant slower than as today by more than the noise of its rounds',
        target: `≤ +${ms(noise)} (as today’s min–max spread)`,
        measured: worst
          ? `worst ${worst.slower >= 0 ? '+' : '−'}${ms(Math.abs(worst.slower))} (${worst.v.label})`
          : '—',
        met: worst ? worst.slower <= noise : null,
      });
    }
    return {
      table: {
        caption: 'The cold-client probe over TLS, fresh Node process per run, interleaved rounds, medians',
        columns: [
          { header: 'client' },
          { header: 'create the client', align: 'right' },
          { header: 'read', align: 'right' },
          { header: 'total (process start to close)', align: 'right' },
        ],
        rows,
      },
      ratios,
      headline: { ...ratios[1]!, label: `full warm-up ${LABEL}`, better: 'lower' },
      goals,
      notes: [
        'Our "read" is the key lookup and the 64 KiB read together (the source’s client creation includes its Kerberos login). A Node process starts far faster than a JVM, so the same saving in ms is a larger share of our total.',
      ],
    };
  },
};
