import {
  barChartSvg,
  formatMs,
  formatRatioWithRange,
  formatSi,
  formatSiWithRange,
  latencyChartSvg,
  markdownTable,
  median,
  summarize,
  type RatioSummary,
  type ScenarioContext,
  type Summary,
  type TableColumn,
} from '../../harness/index.js';
import {
  aggregateCases,
  figures,
  fleetFigures,
  kerberosFigures,
  type MixComparison,
} from './aggregate-cases.js';
import { fleetGoals, fleetRowLabel, fleetRows, fleetTable, type FleetRow } from './kms-fleet.js';
import { FLEET_PROFILE_NOTE, fleetProfileTable } from './fleet-profiles.js';
import { estimatedCreationUs } from './cpu-per-request.js';
import { EVENT_LOOP_METHOD } from './event-loop-probe.js';
import type { KmsHttpSettings } from './kms-http-settings.js';
import { KMS_VERSIONS, type KmsVersion } from './kms-versions.js';
import {
  KERBEROS_CPU_NOTE,
  kerberosGoals,
  kerberosRowLabel,
  kerberosRows,
  kerberosTable,
  type KerberosRow,
} from './kms-kerberos-report.js';
import { zookeeperGoals, zookeeperReportSections, zookeeperRowsOf } from './kms-zookeeper-report.js';
import type { KmsCaseResult } from './run-kms-case.js';

/** One measurement of the trivial Fastify route. */
export interface BaselineRun {
  rep: number;
  requestsPerSec: number;
  p99Ms: number;
  errors: number;
  /** CPU µs per request of the trivial route's server and of the load generator; null where not measured. */
  serverUsPerRequest: number | null;
  generatorUsPerRequest: number | null;
  /** Its event-loop delay p99 beyond the 1 ms resolution, same probe as the KMS. */
  serverEventLoopP99Ms: number | null;
}

interface Goal {
  goal: string;
  measured: string;
  met: boolean | null;
}

const withRange = (s: Summary | undefined): string => (s ? formatSiWithRange(s.median, s.min, s.max) : '—');

/**
 * The report: the source's two tables, the goals, server-side figures, and two charts; the quorum
 * table and the latency sweep, when the run had them, in sections of their own.
 */
export async function kmsHttpReport(
  ctx: ScenarioContext<KmsHttpSettings>,
  allResults: readonly KmsCaseResult[],
  baselines: readonly BaselineRun[],
): Promise<{ markdown: string; summary: string }> {
  const s = ctx.flags;
  // The headline matrix: standalone ZooKeeper, no injected delay.
  const results = allResults.filter((r) => r.part === 'matrix');
  const zookeeperSections = zookeeperReportSections(allResults);
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
      { header: 'loop p50', align: 'right' },
      { header: 'loop p99', align: 'right' },
      { header: 'loop busy', align: 'right' },
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
        const pct = (x: number | null): string => (x === null ? '—' : `${(100 * x).toFixed(0)}%`);
        return [
          mix.label,
          v,
          med((r) => r.server.cpuPercentOfOneCore)?.toFixed(0) ?? '—',
          ms(med((r) => r.server.eventLoop?.busiest?.p50Ms)),
          ms(med((r) => r.server.eventLoopDelayP99Ms)),
          pct(med((r) => r.server.eventLoop?.busiest?.utilization)),
          ms(med((r) => r.server.stageMeansMs.allocate)),
          ms(med((r) => r.server.stageMeansMs.prepare)),
          ms(med((r) => r.server.stageMeansMs.persist)),
          med((r) => r.server.persistBatchMean)?.toFixed(2) ?? '—',
          ms(med((r) => fsyncMeanMs(r.zookeeper))),
        ];
      }),
    ),
  );

  const cpuTable = cpuPerRequestTable(s, rows, results, baselines);
  const kerberosCases = allResults.filter((r) => r.part === 'kerberos');
  const kerberos = kerberosCases.length > 0 ? kerberosRows(kerberosCases.map(kerberosFigures)) : null;
  // The fleet rows read the single instance's cookie cases as their reference.
  const fleet = allResults.some((r) => r.part === 'fleet')
    ? fleetRows(
        allResults
          .filter((r) => r.part === 'fleet' || (r.part === 'kerberos' && r.creationAuth === 'cookie'))
          .map(fleetFigures),
      )
    : null;
  const goals = [
    ...(results.length > 0 ? evaluateGoals(rows, baselines) : []),
    // A Kerberos run has no quorum pass or sweep: their goals would only read "not measured".
    ...(kerberos ? kerberosGoals(kerberos) : zookeeperGoals(zookeeperRowsOf(allResults))),
    ...(fleet ? fleetGoals(fleet) : []),
  ];
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

  if (kerberos) await writeKerberosChart(ctx, kerberos);
  else await writeMatrixCharts(ctx, rows);
  if (fleet) await writeFleetChart(ctx, fleet);
  const profiled = allResults.flatMap((r) => r.profiled ?? []);
  const kerberosSection = [
    ...(kerberos ? kerberosMarkdown(kerberos) : []),
    ...(fleet ? fleetMarkdown(fleet) : []),
    ...(profiled.length > 0
      ? [
          "### Kerberos fleet: where each instance's CPU per request goes (a profiled window after the measured one)",
          '',
          markdownTable(...tableArgs(fleetProfileTable(profiled))),
          '',
          FLEET_PROFILE_NOTE,
          '',
        ]
      : []),
  ];

  const headline = [
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
  ];
  const markdown = [
    ...(results.length > 0
      ? headline
      : kerberosSection.length > 0
        ? kerberosSection
        : ['The matrix ran on the ensemble (`--zookeeper ensemble`): its figures are the quorum table.', '']),
    zookeeperSections,
    '### Goals',
    '',
    goalsTable,
    '',
    ...(results.length > 0
      ? [
          '### CPU per request (medians over repetitions, min-max)',
          '',
          cpuTable,
          '',
          'CPU of each process tree (user + system, from /proc) over the measured window, read by the load generator at ' +
            "the window's boundaries, divided by the requests completed in it. At 100:0 every request is a verification; " +
            "at the other mixes the creation's server cost is estimated from the mix, pricing each verification at the " +
            "same version's 100:0 figure. ZooKeeper's figure is all of its CPU in the window (sessions, GC and " +
            'compilation included) over the successful creations: at a low creation rate its background dominates.',
          '',
          zookeeperWarmupNote(results),
          '',
          '### Server side (medians over repetitions)',
          '',
          serverTable,
          '',
          `Event loop: ${EVENT_LOOP_METHOD}; the busiest server process (a cluster's primary idles).`,
          '',
        ]
      : []),
    kerberos
      ? '**Read first:** the `fixed / Hadoop` column at 90:10 with SPNEGO, the worst case (a Kerberos handshake per ' +
        "creation), then its server µs/creation beside Hadoop's. Closed loop, 32 requests in flight; the KDC, " +
        'ZooKeeper, the server and the load generator share the machine.'
      : '**Read first:** the Ratio column at 90:10: how much of its throughput the server keeps when a tenth of the ' +
        'requests create tokens. Then verify p99 of original against fixed. Closed loop: these are capacities at 32 ' +
        'requests in flight, not latencies at a matched arrival rate. ZooKeeper, the server and the load generator ' +
        'share the machine, so every creation also costs CPU in ZooKeeper.',
  ].join('\n');
  return {
    markdown,
    summary: [
      ...(results.length > 0 ? [throughputTable, ''] : []),
      ...(kerberos ? [markdownTable(...tableArgs(kerberosTable(kerberos))), ''] : []),
      ...(fleet ? [markdownTable(...tableArgs(fleetTable(fleet))), ''] : []),
      zookeeperSections,
      goalsTable,
    ].join('\n'),
  };
}

const CPU_COLUMNS = [
  'server µs/request',
  'server µs/verification',
  'server µs/creation (est.)',
  'ZooKeeper µs/creation',
  'generator µs/request',
  'server % core',
  'ZooKeeper % core',
  'generator % core',
];

/** Server, ZooKeeper and load-generator CPU per request, per mix and version, the trivial route beside it. */
function cpuPerRequestTable(
  s: KmsHttpSettings,
  rows: readonly MixComparison[],
  results: readonly KmsCaseResult[],
  baselines: readonly BaselineRun[],
): string {
  const us = (x: Summary | undefined): string =>
    x ? `${x.median.toFixed(0)} (${x.min.toFixed(0)}–${x.max.toFixed(0)})` : '—';
  const verify100 = rows.find((r) => r.mix === '100:0');
  const createShare = (mix: string): number => {
    const [v, c] = mix.split(':').map(Number);
    return v !== undefined && c !== undefined && v + c > 0 ? c / (v + c) : 0;
  };
  const percent = (version: KmsVersion, mix: string, pick: (r: KmsCaseResult) => number | null): string => {
    const values = results
      .filter((r) => r.mix === mix && r.version === version)
      .map(pick)
      .filter((x): x is number => typeof x === 'number');
    return values.length ? `${median(values).toFixed(0)}%` : '—';
  };
  const body = rows.flatMap((r) =>
    s.versions.map((v) => {
      const perRequest = r.serverUsPerRequest[v];
      const perVerify = verify100?.serverUsPerRequest[v]?.median;
      const share = createShare(r.mix);
      const creation =
        share > 0 && perRequest && perVerify !== undefined
          ? estimatedCreationUs(perRequest.median, share, perVerify)
          : null;
      return [
        r.mix,
        KMS_VERSIONS[v].label,
        us(perRequest),
        share === 0 ? us(perRequest) : '—',
        // Negative: this mix's verifications cost more than at 100:0 (noise, or contention).
        creation === null ? '—' : creation < 0 ? 'n/a (< 0)' : creation.toFixed(0),
        us(r.zookeeperUsPerCreation[v]),
        us(r.generatorUsPerRequest[v]),
        percent(v, r.mix, (c) => c.cpu.percentOfOneCore.server),
        percent(v, r.mix, (c) => c.cpu.percentOfOneCore.zookeeper),
        percent(v, r.mix, (c) => c.cpu.percentOfOneCore.generator),
      ];
    }),
  );
  const baselineOf = (pick: (b: BaselineRun) => number | null): Summary | undefined => {
    const values = baselines.map(pick).filter((x): x is number => x !== null);
    return values.length ? summarize(values) : undefined;
  };
  const trivial = baselineOf((b) => b.serverUsPerRequest);
  if (baselines.length) {
    body.push([
      '100:0',
      'trivial route',
      us(trivial),
      us(trivial),
      '—',
      '—',
      us(baselineOf((b) => b.generatorUsPerRequest)),
      '—',
      '—',
      '—',
    ]);
  }
  return markdownTable(
    ['Verify:create', 'version', ...CPU_COLUMNS.map((header) => ({ header, align: 'right' as const }))],
    body,
  );
}

/** What ZooKeeper's warm-up did before the cases, from their records. */
function zookeeperWarmupNote(results: readonly KmsCaseResult[]): string {
  const warmups = results.map((r) => r.warmup.zookeeper).filter((w) => w.creations > 0);
  const first = warmups[0];
  if (first === undefined) return 'ZooKeeper was not warmed before the cases (--zk-warmup 0).';
  const med = (pick: (w: (typeof warmups)[number]) => number | null): string => {
    const values = warmups.map(pick).filter((x): x is number => x !== null);
    return values.length ? median(values).toFixed(0) : '—';
  };
  const settled = warmups.filter((w) => w.settled).length;
  return (
    `ZooKeeper warm-up before every case (every version alike, before the server started; the scratch path ` +
    `${first.scratchPath} deleted after it): batches of creations (each deleted again) of at least ` +
    `${first.rule.minBatchCpuMs} ms of ZooKeeper CPU until ` +
    `${first.rule.settleBatches} batches' CPU per creation agreed within ${(100 * first.rule.settleTolerance).toFixed(0)}%, ` +
    `at most ${(first.rule.maxDurationMs / 1000).toFixed(0)} s. Medians over the cases: ${med((w) => w.creations)} creations in ` +
    `${(Number(med((w) => w.durationMs)) / 1000).toFixed(1)} s, ZooKeeper CPU per creation ${med((w) => w.perCreateCpuUsAtStart)} µs ` +
    `in the first batch and ${med((w) => w.perCreateCpuUsAtEnd)} µs in the last; settled in ${settled} of ${warmups.length} cases.`
  );
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
    'ZooKeeper further; every version had the same ZooKeeper warm-up before its server started.'
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
  const cpuVerify = row('100:0')?.serverUsPerRequest.fixed?.median;
  const cpuTrivials = baselines.map((b) => b.serverUsPerRequest).filter((x): x is number => x !== null);
  const cpuTrivial = cpuTrivials.length ? median(cpuTrivials) : undefined;
  return [
    ratioGoal('90:10', 'fixedOverOriginal', 1.6, 'fixed / original'),
    ratioGoal('95:5', 'fixedOverOriginal', 1.3, 'fixed / original'),
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
    {
      goal: "fixed server CPU per verification at 100:0 ≤ 1.15× the trivial route's",
      measured:
        cpuVerify !== undefined && cpuTrivial !== undefined
          ? `${(cpuVerify / cpuTrivial).toFixed(2)}× (${cpuVerify.toFixed(0)} / ${cpuTrivial.toFixed(0)} µs)`
          : '—',
      met: cpuVerify !== undefined && cpuTrivial !== undefined ? cpuVerify <= 1.15 * cpuTrivial : null,
    },
  ];
}

const tableArgs = (t: { columns: TableColumn[]; rows: string[][] }): [TableColumn[], string[][]] => [
  t.columns,
  t.rows,
];

/** The Kerberos part of the report: its table, what the CPU columns are, how each row authenticates. */
function kerberosMarkdown(rows: readonly KerberosRow[]): string[] {
  return [
    '### Kerberos: median successful requests/s and server CPU per creation (min-max over repetitions)',
    '',
    markdownTable(...tableArgs(kerberosTable(rows))),
    '',
    'Every server in Kerberos mode (`HTTP/localhost` keytab, one MIT KDC for the run). Verification is by ' +
      'delegation token in every row (fetched with Kerberos). Creation is `GETDELEGATIONTOKEN`: with SPNEGO ' +
      'each one carries a fresh Kerberos exchange (`Authorization: Negotiate`, the worst case), with the ' +
      'cookie the `hadoop.auth` cookie of one log-in (the common case). Ratios over Hadoop are paired by ' +
      'repetition.',
    '',
    KERBEROS_CPU_NOTE,
    '',
  ];
}

/** The fleet part of the report: its table and what each row is. */
function fleetMarkdown(rows: readonly FleetRow[]): string[] {
  return [
    '### Kerberos fleet: median successful requests/s through a round-robin balancer (min-max over repetitions)',
    '',
    markdownTable(...tableArgs(fleetTable(rows))),
    '',
    "Each fleet: that many KMS instances (fastpath `fixed`; in the mixed fleet Hadoop's KMS first) on one " +
      'ZooKeeper, the delegation-token store shared, behind a round-robin balancer that sends each request to ' +
      "the next instance (it runs in the benchmark's own process; its CPU is in no column). Creations by the " +
      '`hadoop.auth` cookie of one log-in; a creation whose cookie is refused (401) logs in again on the request ' +
      "and keeps the new cookie, as Hadoop's client does. Shared: `signer.secret.provider=zookeeper` on every " +
      'instance; random: each instance its own secret, so a cookie is honoured only where it was issued. ' +
      "Server µs/request: every instance's process tree summed, over all requests. Per instance / one instance: " +
      "requests/s per instance over the single instance's cookie row of the same version and mix, paired by " +
      "repetition; the instances share this machine's cores, so it reads how much of a core's work the " +
      'fleet loses to sharing, not how a fleet of machines scales.',
    '',
  ];
}

/** Successful requests/s per fleet row, the single instance's beside them. */
async function writeFleetChart(
  ctx: ScenarioContext<KmsHttpSettings>,
  rows: readonly FleetRow[],
): Promise<void> {
  const s = ctx.flags;
  await ctx.results.writeChart(
    'kms-http-kerberos-fleet-throughput',
    'Successful requests/s of a Kerberos fleet behind a round-robin balancer, by row',
    barChartSvg({
      title: 'KMS fleet requests/s with Kerberos, creations by cookie',
      subtitle: `median with min-max over ${s.reps} repetition(s), ${s.concurrency} in flight`,
      categories: rows.map((r) => `${r.mix} ${fleetRowLabel(r)}`),
      series: [
        {
          name: 'all instances',
          points: rows.map((r) => ({
            value: r.throughput.median,
            min: r.throughput.min,
            max: r.throughput.max,
          })),
        },
        {
          name: 'per instance',
          points: rows.map((r) => ({
            value: r.perInstance.median,
            min: r.perInstance.min,
            max: r.perInstance.max,
          })),
        },
      ],
      yLabel: 'successful requests/s',
      xLabel: 'row',
      formatValue: formatSi,
    }),
  );
}

/** One bar chart of successful requests/s: a group per category, a bar per version (median, min-max). */
function throughputChart(
  s: KmsHttpSettings,
  title: string,
  xLabel: string,
  categories: readonly { label: string; throughput: MixComparison['throughput'] }[],
): string {
  return barChartSvg({
    title,
    subtitle: `median with min-max over ${s.reps} repetition(s), ${s.concurrency} in flight`,
    categories: categories.map((c) => c.label),
    series: s.versions.map((v) => ({
      name: KMS_VERSIONS[v].label,
      points: categories.map((c) => {
        const t = c.throughput[v];
        return t ? { value: t.median, min: t.min, max: t.max } : { value: 0 };
      }),
    })),
    yLabel: 'successful requests/s',
    xLabel,
    formatValue: formatSi,
  });
}

/** Successful requests/s per Kerberos row and version. */
async function writeKerberosChart(
  ctx: ScenarioContext<KmsHttpSettings>,
  rows: readonly KerberosRow[],
): Promise<void> {
  await ctx.results.writeChart(
    'kms-http-kerberos-throughput',
    'Successful requests/s with Kerberos, by mix and way of authenticating creations',
    throughputChart(
      ctx.flags,
      'KMS requests/s with Kerberos',
      'verify:create, creations by',
      rows.map((r) => ({ label: kerberosRowLabel(r), throughput: r.comparison.throughput })),
    ),
  );
}

/** The matrix's charts: requests/s and verify p99 by mix. */
async function writeMatrixCharts(
  ctx: ScenarioContext<KmsHttpSettings>,
  rows: readonly MixComparison[],
): Promise<void> {
  const s = ctx.flags;
  await ctx.results.writeChart(
    'kms-http-throughput',
    'Successful requests/s by mix',
    throughputChart(
      s,
      'KMS requests/s with token creation mixed in',
      'verify:create',
      rows.map((r) => ({ label: r.mix, throughput: r.throughput })),
    ),
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
}
