import {
  barChartSvg,
  formatMs,
  formatRatioWithRange,
  formatSi,
  formatSiWithRange,
  latencyChartSvg,
  markdownTable,
  median,
  type RatioSummary,
  type ScenarioContext,
  type Summary,
} from '../../harness/index.js';
import { aggregateCases, figures, type MixComparison } from './aggregate-cases.js';
import type { KmsHttpSettings } from './kms-http-settings.js';
import { KMS_VERSIONS, type KmsVersion } from './kms-versions.js';
import type { KmsCaseResult } from './run-kms-case.js';

/** One measurement of the trivial Fastify route. */
export interface BaselineRun {
  rep: number;
  requestsPerSec: number;
  p99Ms: number;
  errors: number;
}

interface Goal {
  goal: string;
  measured: string;
  met: boolean | null;
}

const withRange = (s: Summary | undefined): string => (s ? formatSiWithRange(s.median, s.min, s.max) : '—');

/** The report: the source's two tables, the goals, server-side figures, and two charts. */
export async function kmsHttpReport(
  ctx: ScenarioContext<KmsHttpSettings>,
  results: readonly KmsCaseResult[],
  baselines: readonly BaselineRun[],
): Promise<{ markdown: string; summary: string }> {
  const s = ctx.flags;
  const rows = aggregateCases(
    results.map(figures),
    s.mixes.map((m) => m.label),
  );
  const has = (v: KmsVersion): boolean => s.versions.includes(v);

  const throughputTable = markdownTable(
    [
      'Verify:create',
      ...(has('hadoop') ? [{ header: 'Hadoop KMS req/s', align: 'right' as const }] : []),
      ...(has('original') ? [{ header: 'Original req/s', align: 'right' as const }] : []),
      ...(has('fixed') ? [{ header: 'Fixed req/s', align: 'right' as const }] : []),
      ...(has('original') && has('fixed') ? [{ header: 'Ratio', align: 'right' as const }] : []),
      ...(has('coalesced') ? [{ header: 'Fixed + coalesced req/s', align: 'right' as const }] : []),
      ...(has('original') && has('coalesced') ? [{ header: 'Ratio', align: 'right' as const }] : []),
    ],
    rows.map((r) => [
      r.mix,
      ...(has('hadoop') ? [withRange(r.throughput.hadoop)] : []),
      ...(has('original') ? [withRange(r.throughput.original)] : []),
      ...(has('fixed') ? [withRange(r.throughput.fixed)] : []),
      ...(has('original') && has('fixed')
        ? [
            r.fixedOverOriginal
              ? formatRatioWithRange(
                  r.fixedOverOriginal.ratio,
                  r.fixedOverOriginal.min,
                  r.fixedOverOriginal.max,
                )
              : '—',
          ]
        : []),
      ...(has('coalesced') ? [withRange(r.throughput.coalesced)] : []),
      ...(has('original') && has('coalesced')
        ? [
            r.coalescedOverOriginal
              ? formatRatioWithRange(
                  r.coalescedOverOriginal.ratio,
                  r.coalescedOverOriginal.min,
                  r.coalescedOverOriginal.max,
                )
              : '—',
          ]
        : []),
    ]),
  );

  const ratio = (r: RatioSummary | undefined): string =>
    r ? formatRatioWithRange(r.ratio, r.min, r.max) : '—';
  const fastpathVersions = s.versions.filter((v): v is Exclude<KmsVersion, 'hadoop'> => v !== 'hadoop');
  const hadoopTable = has('hadoop')
    ? markdownTable(
        [
          'Verify:create',
          { header: 'Hadoop KMS req/s', align: 'right' },
          ...fastpathVersions.map((v) => ({ header: `${v} / Hadoop`, align: 'right' as const })),
        ],
        rows.map((r) => [
          r.mix,
          withRange(r.throughput.hadoop),
          ...fastpathVersions.map((v) => ratio(r.overHadoop[v])),
        ]),
      )
    : undefined;
  const p99 = (x: Summary | undefined): string => (x ? formatMs(x.median) : '—');
  const latencyTable = markdownTable(
    [
      'Verify:create',
      ...s.versions.map((v) => ({ header: `verify p99 ${v}`, align: 'right' as const })),
      ...s.versions.map((v) => ({ header: `create p99 ${v}`, align: 'right' as const })),
    ],
    rows.map((r) => [
      r.mix,
      ...s.versions.map((v) => p99(r.verifyP99Ms[v])),
      ...s.versions.map((v) => p99(r.createP99Ms[v])),
    ]),
  );

  const serverTable = markdownTable(
    [
      'Verify:create',
      'version',
      { header: 'server CPU (% of a core)', align: 'right' },
      { header: 'server loop p99', align: 'right' },
      { header: 'allocate mean', align: 'right' },
      { header: 'prepare mean', align: 'right' },
      { header: 'persist mean', align: 'right' },
      { header: 'persist batch', align: 'right' },
      { header: 'ZK fsync mean', align: 'right' },
    ],
    s.mixes.flatMap((mix) =>
      s.versions.map((v) => {
        const runs = results.filter((r) => r.mix === mix.label && r.version === v);
        const med = (pick: (r: KmsCaseResult) => number | null | undefined): number | null => {
          const values = runs
            .map(pick)
            .filter((x): x is number => typeof x === 'number' && Number.isFinite(x));
          return values.length ? median(values) : null;
        };
        const ms = (x: number | null): string => (x === null ? '—' : formatMs(x));
        return [
          mix.label,
          v,
          med((r) => r.server.cpuPercentOfOneCore)?.toFixed(0) ?? '—',
          ms(med((r) => r.server.eventLoopDelayP99Ms)),
          ms(med((r) => r.server.stageMeansMs.allocate)),
          ms(med((r) => r.server.stageMeansMs.prepare)),
          ms(med((r) => r.server.stageMeansMs.persist)),
          med((r) => r.server.persistBatchMean)?.toFixed(2) ?? '—',
          ms(med((r) => fsyncMeanMs(r.zookeeper))),
        ];
      }),
    ),
  );

  const goals = evaluateGoals(rows, baselines);
  const goalsTable = markdownTable(
    ['goal', { header: 'measured', align: 'right' }, 'met'],
    goals.map((g) => [g.goal, g.measured, g.met === null ? 'not measured' : g.met ? 'yes' : '**no**']),
  );
  const baselineLine = baselines.length
    ? `Trivial Fastify route (one HMAC, tiny JSON), same load generator: ${formatSiWithRange(
        median(baselines.map((b) => b.requestsPerSec)),
        Math.min(...baselines.map((b) => b.requestsPerSec)),
        Math.max(...baselines.map((b) => b.requestsPerSec)),
      )} req/s, p99 ${formatMs(median(baselines.map((b) => b.p99Ms)))}.`
    : 'The trivial Fastify route was not measured (--no-baseline).';

  await ctx.results.writeChart(
    'kms-http-throughput',
    'Successful requests/s by mix',
    barChartSvg({
      title: 'KMS requests/s with token creation mixed in',
      subtitle: `median with min-max over ${s.reps} repetition(s), ${s.concurrency} in flight`,
      categories: rows.map((r) => r.mix),
      series: s.versions.map((v) => ({
        name: KMS_VERSIONS[v].label,
        points: rows.map((r) => {
          const t = r.throughput[v];
          return t ? { value: t.median, min: t.min, max: t.max } : { value: 0 };
        }),
      })),
      yLabel: 'successful requests/s',
      xLabel: 'verify:create',
      formatValue: formatSi,
    }),
  );
  await ctx.results.writeChart(
    'kms-http-latency',
    'Verify p99 by mix',
    latencyChartSvg({
      title: 'Verification p99 latency by mix',
      subtitle: 'median of per-run p99',
      categories: rows.map((r) => r.mix),
      series: s.versions.map((v) => ({
        name: KMS_VERSIONS[v].label,
        points: rows.map((r) => r.verifyP99Ms[v]?.median ?? 0),
      })),
      yLabel: 'verify p99',
      xLabel: 'verify:create',
      yScale: 'log',
    }),
  );

  const markdown = [
    '### Median total successful requests/s (min-max over repetitions)',
    '',
    throughputTable,
    '',
    ...(hadoopTable === undefined
      ? []
      : [
          "### Against Apache Hadoop's KMS (ratios of medians, range of per-repetition ratios)",
          '',
          hadoopTable,
          '',
          hadoopNote(results),
          '',
        ]),
    '### Median per-run p99 latency',
    '',
    latencyTable,
    '',
    baselineLine,
    '',
    '### Goals',
    '',
    goalsTable,
    '',
    '### Server side (medians over repetitions)',
    '',
    serverTable,
    '',
    '**Read first:** the Ratio column at 90:10: how much of its throughput the server keeps when a tenth of the ' +
      'requests create tokens. Then verify p99 of original against fixed. Closed loop: these are capacities at 32 ' +
      'requests in flight, not latencies at a matched arrival rate. ZooKeeper, the server and the load generator ' +
      'share the machine, so every creation also costs CPU in ZooKeeper.',
  ].join('\n');
  return { markdown, summary: [throughputTable, '', goalsTable].join('\n') };
}

/** What the Hadoop cases ran: the loaded jar versions and the JVM warm-up, from their case records. */
function hadoopNote(results: readonly KmsCaseResult[]): string {
  const hadoop = results.filter((r) => r.version === 'hadoop');
  const first = hadoop[0];
  if (first === undefined) return "Hadoop's KMS was not measured.";
  const jars = (first.server.details['loadedJars'] as string[] | undefined) ?? [];
  const warmups = hadoop.map((r) => r.warmup.server?.durationMs ?? 0);
  return (
    `Hadoop KMS: ${jars.join(', ')}, ${String(first.server.details['heapMb'])} MiB heap, ZooKeeper token store. ` +
    `Before each of its cases the JVM ran ${(median(warmups) / 1000).toFixed(0)} s of load at the case's mix (JIT warm-up, ` +
    'not counted), then the same warm-up and measured window as every version. That extra load also warms ' +
    "ZooKeeper, which fastpath's cases do not get."
  );
}

function fsyncMeanMs(mntr: Record<string, number | string>): number | null {
  const sum = Number(mntr.zk_sum_fsynctime);
  const count = Number(mntr.zk_cnt_fsynctime);
  return Number.isFinite(sum) && Number.isFinite(count) && count > 0 ? sum / count : null;
}

/** The goals, read from the measured rows; null where the run did not measure it. */
export function evaluateGoals(rows: readonly MixComparison[], baselines: readonly BaselineRun[]): Goal[] {
  const row = (mix: string) => rows.find((r) => r.mix === mix);
  const ratioGoal = (
    mix: string,
    which: 'fixedOverOriginal' | 'coalescedOverOriginal',
    min: number,
    name: string,
  ): Goal => {
    const r = row(mix)?.[which];
    return {
      goal: `${name} at ${mix} ≥ ${min}×`,
      measured: r ? `${r.ratio.toFixed(2)}×` : '—',
      met: r ? r.ratio >= min : null,
    };
  };
  const p99At = (mix: string) => row(mix)?.verifyP99Ms.fixed?.median;
  const p9010 = p99At('90:10');
  const p99100 = p99At('100:0');
  const base = baselines.length ? median(baselines.map((b) => b.requestsPerSec)) : undefined;
  const verify100 = row('100:0')?.throughput.fixed?.median;
  return [
    ratioGoal('90:10', 'fixedOverOriginal', 1.7, 'fixed / original'),
    ratioGoal('95:5', 'fixedOverOriginal', 1.5, 'fixed / original'),
    ratioGoal('100:0', 'fixedOverOriginal', 0.95, 'fixed / original'),
    ratioGoal('90:10', 'coalescedOverOriginal', 2, 'fixed + coalesced / original'),
    {
      goal: 'fixed verify p99 at 90:10 ≤ 1.5× its 100:0 value',
      measured: p9010 !== undefined && p99100 !== undefined ? `${(p9010 / p99100).toFixed(2)}×` : '—',
      met: p9010 !== undefined && p99100 !== undefined ? p9010 <= 1.5 * p99100 : null,
    },
    {
      goal: 'fixed verify throughput at 100:0 ≥ 0.5× the trivial route',
      measured: base !== undefined && verify100 !== undefined ? `${(verify100 / base).toFixed(2)}×` : '—',
      met: base !== undefined && verify100 !== undefined ? verify100 >= 0.5 * base : null,
    },
  ];
}
