import {
  arrayField,
  asRecord,
  booleanField,
  numberField,
  stringField,
  type JsonRecord,
} from '../../all/json-fields.js';
import { HADOOP_16011_TABLE, sourceRatio } from '../../all/published-tables.js';
import type { GoalResult, RangedValue, RatioFigure, ScenarioSummary } from '../../all/scenario-summary.js';
import { formatRatioWithRange, formatSiRange } from '../../harness/index.js';
import { DRAW_VARIANTS, type DrawVariantId } from './draw-variants.js';
import type { SecureRandomSettings } from './secure-random-settings.js';

/** Our rows that play the parts of the source's two ratios (see the scenario README). */
const RATIO_ROWS: readonly { row: string; variant: DrawVariantId }[] = [
  { row: 'thread-local generator', variant: 'pooled-per-worker' },
  { row: 'generator per call', variant: 'random-fill-sync' },
];

function ratioToHadoopStyle(entry: JsonRecord | null): RangedValue | null {
  const value = numberField(entry, 'ratioToHadoopStyle');
  const min = numberField(entry, 'ratioToHadoopStyleMin');
  const max = numberField(entry, 'ratioToHadoopStyleMax');
  return value !== null && min !== null && max !== null ? { value, min, max } : null;
}

/** The secure-random scenario in the combined report, against HADOOP-16011's JMH table. */
export const secureRandomSummary: ScenarioSummary<SecureRandomSettings> = {
  source: HADOOP_16011_TABLE,
  uses: () => [],
  cases: (s) => s.threadCounts.length * s.variants.length + s.bulkBytes.length,
  estimateMs: (s) =>
    s.threadCounts.length * s.variants.length * (s.warmupMs + s.rounds * s.roundMs + s.latencyMs) +
    s.bulkBytes.length * (1 + s.bulkRounds) * s.bulkRoundMs +
    5000,
  read(folder) {
    const threads = Object.keys(folder.entries)
      .map((key) => /^(\d+)t\//.exec(key)?.[1])
      .filter((t): t is string => t !== undefined)
      .map(Number);
    // The source ran 10 threads; without that count in this run, the most threads it has.
    const n = threads.includes(10) ? 10 : Math.max(0, ...threads);
    const entry = (variant: DrawVariantId) => asRecord(folder.entries[`${n}t/${variant}`]);
    const variants = (Object.keys(DRAW_VARIANTS) as DrawVariantId[]).filter((v) => entry(v) !== null);
    const rows = variants.map((variant) => {
      const e = entry(variant);
      const median = numberField(e, 'medianOpsPerSec');
      const min = numberField(e, 'minOpsPerSec');
      const max = numberField(e, 'maxOpsPerSec');
      const ratio = ratioToHadoopStyle(e);
      return [
        DRAW_VARIANTS[variant].benchmark,
        'thrpt',
        median === null ? '—' : median.toFixed(3),
        'ops/s',
        min !== null && max !== null ? formatSiRange(min, max) : '—',
        variant === 'hadoop-style'
          ? '1× (baseline)'
          : ratio
            ? formatRatioWithRange(ratio.value, ratio.min, ratio.max)
            : '—',
      ];
    });
    const ratios: RatioFigure[] = RATIO_ROWS.map(({ row, variant }) => {
      const label = HADOOP_16011_TABLE.ratios.find((r) => r.row === row)!.label;
      return {
        row,
        label,
        ours: ratioToHadoopStyle(entry(variant)),
        source: sourceRatio(HADOOP_16011_TABLE, row, label),
      };
    });
    const goals: GoalResult[] = arrayField(folder.entries, 'goals').flatMap((item) => {
      const g = asRecord(item);
      const goal = stringField(g, 'goal');
      if (goal === null) return [];
      return [
        {
          goal,
          target: stringField(g, 'target') ?? '',
          measured: stringField(g, 'measured') ?? '—',
          met: booleanField(g, 'met'),
        },
      ];
    });
    return {
      table: {
        caption: `Session key draws (two keys + two IVs) per second, ${n} worker threads, median of the rounds; the last two columns are ours alone`,
        columns: [
          { header: 'Benchmark' },
          { header: 'Mode' },
          { header: 'Score', align: 'right' },
          { header: 'Units' },
          { header: 'min–max', align: 'right' },
          { header: '× Hadoop-style', align: 'right' },
        ],
        rows,
      },
      ratios,
      headline: { ...ratios[0]!, better: 'higher' },
      goals,
      notes: [
        'Our Hadoop-style row opens a device reader per connection as the pre-fix codec did (the source’s testHadoop with libhadoop); the pooled generator per worker plays the thread-local SHA1PRNG, randomFillSync per call the generator per call. The source ran JMH on a laptop, we run worker threads on this machine.',
      ],
    };
  },
};
