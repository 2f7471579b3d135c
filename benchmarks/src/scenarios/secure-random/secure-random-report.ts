import {
  formatMs,
  formatRatioWithRange,
  formatSi,
  formatSiRange,
  markdownTable,
  PALETTE,
  type ChartSpec,
  type LatencyChartSpec,
} from '../../harness/index.js';
import {
  BASELINE_VARIANT,
  BULK_VARIANTS,
  DRAW_VARIANT_IDS,
  DRAW_VARIANTS,
  PER_CALL_VARIANT,
  type DrawVariantId,
} from './draw-variants.js';
import type { BulkCase, DrawCase, GoalCheck } from './secure-random-results.js';
import type { SecureRandomSettings } from './secure-random-settings.js';

/** A variant keeps its colour in every chart, whichever variants a run leaves out. */
function colorOf(variant: DrawVariantId): string {
  return PALETTE[DRAW_VARIANT_IDS.indexOf(variant) % PALETTE.length]!;
}

export function threadsTitle(threads: number): string {
  return threads === 1 ? '1 thread' : `${threads} threads`;
}

/** The report shows the largest thread count first: the concurrency of the source's JMH run. */
function threadOrder(settings: SecureRandomSettings): number[] {
  return [...settings.threadCounts].sort((a, b) => b - a);
}

function find(cases: readonly DrawCase[], threads: number, variant: DrawVariantId): DrawCase | undefined {
  return cases.find((c) => c.threads === threads && c.variant === variant);
}

function score(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

/** The throughput table in JMH's layout, one block of rows per thread count. */
export function throughputTable(cases: readonly DrawCase[], settings: SecureRandomSettings): string {
  const hasPerCall = settings.variants.includes(PER_CALL_VARIANT);
  const columns = [
    { header: 'Benchmark' },
    { header: 'Mode' },
    { header: 'Threads', align: 'right' as const },
    { header: 'Cnt', align: 'right' as const },
    { header: 'Score', align: 'right' as const },
    { header: 'Error (min–max)', align: 'right' as const },
    { header: 'Units' },
    { header: '× Hadoop-style (min–max)', align: 'right' as const },
    ...(hasPerCall ? [{ header: '× randomFillSync (min–max)', align: 'right' as const }] : []),
  ];
  const rows: string[][] = [];
  for (const threads of threadOrder(settings)) {
    for (const variant of settings.variants) {
      const c = find(cases, threads, variant);
      if (!c) continue;
      rows.push([
        DRAW_VARIANTS[variant].benchmark,
        'thrpt',
        String(threads),
        String(c.rounds.length),
        score(c.opsPerSec.median),
        formatSiRange(c.opsPerSec.min, c.opsPerSec.max),
        'ops/s',
        variant === BASELINE_VARIANT
          ? '1× (baseline)'
          : formatRatioWithRange(c.vsBaseline.ratio, c.vsBaseline.min, c.vsBaseline.max),
        ...(hasPerCall
          ? [
              variant === PER_CALL_VARIANT
                ? '1×'
                : c.vsPerCall
                  ? formatRatioWithRange(c.vsPerCall.ratio, c.vsPerCall.min, c.vsPerCall.max)
                  : '—',
            ]
          : []),
      ]);
    }
  }
  return markdownTable(columns, rows);
}

/** Per-op latency percentiles from the latency rounds. */
export function latencyTable(cases: readonly DrawCase[], settings: SecureRandomSettings): string {
  const rows: string[][] = [];
  for (const threads of threadOrder(settings)) {
    for (const variant of settings.variants) {
      const l = find(cases, threads, variant)?.latency;
      if (!l) continue;
      rows.push([
        DRAW_VARIANTS[variant].benchmark,
        String(threads),
        formatMs(l.p50Ms),
        formatMs(l.p99Ms),
        formatMs(l.p999Ms),
        formatMs(l.maxMs),
        formatSi(l.count),
      ]);
    }
  }
  return markdownTable(
    [
      { header: 'Benchmark' },
      { header: 'Threads', align: 'right' },
      { header: 'p50', align: 'right' },
      { header: 'p99', align: 'right' },
      { header: 'p99.9', align: 'right' },
      { header: 'max', align: 'right' },
      { header: 'ops timed', align: 'right' },
    ],
    rows,
  );
}

export function bulkTable(bulk: readonly BulkCase[], settings: SecureRandomSettings): string {
  const rows = settings.bulkBytes.map((bytes) => {
    const direct = bulk.find((b) => b.bytes === bytes && b.variant === 'random-fill-sync');
    const pooled = bulk.find((b) => b.bytes === bytes && b.variant === 'pooled');
    const rate = (b: BulkCase | undefined): string =>
      b
        ? `${formatSi(b.bytesPerSec.median)}B/s (${formatSiRange(b.bytesPerSec.min, b.bytesPerSec.max)}B/s)`
        : '—';
    return [
      `${formatSi(bytes)}B (${bytes})`,
      rate(direct),
      rate(pooled),
      pooled
        ? formatRatioWithRange(
            pooled.vsRandomFillSync.ratio,
            pooled.vsRandomFillSync.min,
            pooled.vsRandomFillSync.max,
          )
        : '—',
    ];
  });
  return markdownTable(
    [
      { header: 'draw size' },
      { header: `${BULK_VARIANTS['random-fill-sync'].label} (min–max)`, align: 'right' },
      { header: `${BULK_VARIANTS.pooled.label} (min–max)`, align: 'right' },
      { header: '× randomFillSync (min–max)', align: 'right' },
    ],
    rows,
  );
}

export function goalsTable(goals: readonly GoalCheck[]): string {
  return markdownTable(
    [
      { header: 'goal' },
      { header: 'read from' },
      { header: 'target', align: 'right' },
      { header: 'measured', align: 'right' },
      { header: 'met' },
    ],
    goals.map((g) => [
      g.goal,
      g.readFrom,
      g.target,
      g.measured,
      g.met === null ? '—' : g.met ? 'yes' : '**no**',
    ]),
  );
}

const GOALS_TEXT =
  "Shown for reading, never enforced by the run. The goals are read from the issue's op (one connection's " +
  'two keys and two IVs) in its allocation-free form: `fillSessionKeys` into four caller-owned buffers, ' +
  'against baselines that fill the same kind of buffers; the bulk goal compares two allocating calls.';

const REFERENCE_TEXT =
  'Not goals: the same thresholds read from the allocating API, `generateSessionKeys` (four new Buffers in ' +
  '`Redacted` boxes per op) on the same kind of pool, so the cost of allocation shows. Its ratios to ' +
  'Hadoop-style and randomFillSync put an allocating op over baselines that do not allocate; the last ' +
  'rows compare it with `randomBytes`, which allocates too (the 15× there is the design notes’ target ' +
  'for an allocating draw, not one of the issue’s goals).';

/** The report body: what an op is, the tables, and how to read them. */
export function secureRandomMarkdown(
  cases: readonly DrawCase[],
  bulk: readonly BulkCase[],
  goals: readonly GoalCheck[],
  reference: readonly GoalCheck[],
  settings: SecureRandomSettings,
): string {
  const keyBits = settings.keyBytes * 8;
  const allocating = settings.variants
    .filter((v) => DRAW_VARIANTS[v].allocates)
    .map((v) => `\`${DRAW_VARIANTS[v].benchmark}\``);
  const parts = [
    `One op = the key material of one encrypted data-transfer connection: two ${settings.keyBytes}-byte keys and two ` +
      `16-byte IVs (AES-${keyBits}/CTR), in Hadoop's order. Every row fills four caller-owned buffers, allocated ` +
      'once per worker and row, so the rows differ only in where the bytes come from' +
      (allocating.length
        ? `, except ${allocating.join(' and ')}, which allocate four new Buffers per op, each in a \`Redacted\` box. `
        : '. ') +
      `Score: median over ${settings.rounds} rounds of ${settings.roundMs} ms (after ${settings.warmupMs} ms of warm-up per variant) ` +
      'of the ops per second of all threads together; Error: min–max over the rounds. Ratios: median over the ' +
      "baseline's median measured in the same rounds, with the range of the per-round ratios. Variants run in " +
      'an order rotated every round; each thread is a worker thread of its own.',
    '## Throughput',
    throughputTable(cases, settings),
    '**Read first:** the × Hadoop-style column of `pooledPerWorker` at the highest thread count (the source ran 10 ' +
      "threads), then its × randomFillSync column: the gain over calling Node's CSPRNG per draw. " +
      '`pooledAllocating` next to it shows what allocating the result (`generateSessionKeys`) adds per op.',
    'Variants: ' +
      settings.variants
        .map((v) => `\`${DRAW_VARIANTS[v].benchmark}\`: ${DRAW_VARIANTS[v].description}`)
        .join('; ') +
      '.',
  ];
  if (cases.some((c) => c.latency)) {
    parts.push(
      '## Per-op latency',
      `Every op of a ${settings.latencyMs} ms round timed on its own (clock reads add about 0.1 µs to each; ` +
        'recorded at 1 µs resolution, so sub-microsecond ops show as 0 or 1 µs). Refills happen inside ops and are included.',
      latencyTable(cases, settings),
    );
  }
  if (bulk.length) {
    parts.push(
      '## Bulk draws (1 thread)',
      `One draw of the given size per op, ${settings.bulkRounds} rounds of ${settings.bulkRoundMs} ms; within a round the ` +
        'two calls alternate in 2 ms slices, so both see the same load and each round pairs them. The pooled ' +
        'generator sends draws of `directMinBytes` (4 KiB) or more straight to `randomFillSync`.',
      bulkTable(bulk, settings),
    );
  }
  parts.push('## Goals', GOALS_TEXT, goalsTable(goals));
  if (reference.some((g) => g.met !== null)) {
    parts.push('### The same thresholds, read from the allocating op', REFERENCE_TEXT, goalsTable(reference));
  }
  return parts.join('\n\n');
}

/** The shorter body for the summary of `all`. */
export function secureRandomSummary(
  cases: readonly DrawCase[],
  goals: readonly GoalCheck[],
  settings: SecureRandomSettings,
): string {
  return `${throughputTable(cases, settings)}\n\n${GOALS_TEXT}\n\n${goalsTable(goals)}`;
}

function points(
  cases: readonly DrawCase[],
  settings: SecureRandomSettings,
  variant: DrawVariantId,
  pick: (c: DrawCase) => { value: number; min?: number; max?: number } | null,
): ({ value: number; min?: number; max?: number } | null)[] {
  return threadOrder(settings).map((threads) => {
    const c = find(cases, threads, variant);
    return c ? pick(c) : null;
  });
}

export function throughputChart(cases: readonly DrawCase[], settings: SecureRandomSettings): ChartSpec {
  return {
    title: 'Session key draws per second (two keys + two IVs per op)',
    subtitle: `median of ${settings.rounds} rounds × ${settings.roundMs} ms, all threads together; whiskers: min–max`,
    categories: threadOrder(settings).map(threadsTitle),
    series: settings.variants.map((variant) => ({
      name: DRAW_VARIANTS[variant].label,
      color: colorOf(variant),
      points: points(cases, settings, variant, (c) => ({
        value: c.opsPerSec.median,
        min: c.opsPerSec.min,
        max: c.opsPerSec.max,
      })),
    })),
    yLabel: 'ops/s (log scale)',
    yScale: 'log',
  };
}

export function ratioChart(cases: readonly DrawCase[], settings: SecureRandomSettings): ChartSpec {
  const variants = settings.variants.filter((v) => v !== BASELINE_VARIANT);
  return {
    title: 'Throughput relative to Hadoop-style (a new device reader per connection)',
    subtitle: 'ratio of medians; whiskers: min–max of per-round ratios; dashed line: 200×, the goal',
    categories: threadOrder(settings).map(threadsTitle),
    series: variants.map((variant) => ({
      name: DRAW_VARIANTS[variant].label,
      color: colorOf(variant),
      points: points(cases, settings, variant, (c) => ({
        value: c.vsBaseline.ratio,
        min: c.vsBaseline.min,
        max: c.vsBaseline.max,
      })),
    })),
    yLabel: '× Hadoop-style (log scale)',
    yScale: 'log',
    formatValue: (v) => `${v >= 10 ? v.toFixed(0) : v >= 1 ? v.toFixed(1) : v.toPrecision(2)}×`,
    referenceLine: { value: 200, label: '200× goal' },
  };
}

// Latencies are recorded at 1 µs resolution, so a pooled op often reads 0 or 1 µs; values under
// the resolution are drawn at half of it, which also keeps 1 µs bars above the log axis' floor.
const BELOW_RESOLUTION_MS = 0.0005;

export function latencyChart(cases: readonly DrawCase[], settings: SecureRandomSettings): LatencyChartSpec {
  const atLeast = (ms: number): number => Math.max(ms, BELOW_RESOLUTION_MS);
  return {
    title: 'Latency per op, refills included',
    subtitle:
      `every op of a ${settings.latencyMs} ms round timed; bar: p99, whisker: p50 to p99.9; ` +
      'under 1 µs (the resolution) drawn at 0.5 µs; dashed line: the 25 µs goal',
    categories: threadOrder(settings).map(threadsTitle),
    series: settings.variants.map((variant) => ({
      name: DRAW_VARIANTS[variant].label,
      color: colorOf(variant),
      points: points(cases, settings, variant, (c) =>
        c.latency
          ? { value: atLeast(c.latency.p99Ms), min: atLeast(c.latency.p50Ms), max: atLeast(c.latency.p999Ms) }
          : null,
      ),
    })),
    yLabel: 'latency per op (log scale)',
    yScale: 'log',
    style: 'bar',
    referenceLine: { value: 0.025, label: '25 µs' },
  };
}
