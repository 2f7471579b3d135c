import { numberField, stringField } from '../../all/json-fields.js';
import { HADOOP_20045_TABLE, sourceRatio } from '../../all/published-tables.js';
import { entriesMatching } from '../../all/scenario-results-folder.js';
import type { RangedValue, RatioFigure, ScenarioSummary } from '../../all/scenario-summary.js';
import {
  formatRatioWithRange,
  formatSiWithRange,
  median,
  type RatioSummary,
  type Summary,
} from '../../harness/index.js';
import { aggregateCases, type CaseFigures, type MixComparison } from './aggregate-cases.js';
import { estimateKmsHttpMs, kmsHttpCases } from './kms-http-estimate.js';
import { evaluateGoals, type BaselineRun } from './kms-http-report.js';
import type { KmsHttpSettings } from './kms-http-settings.js';
import { KMS_VERSIONS, type KmsVersion } from './kms-versions.js';
import { ENSEMBLE_NODES } from './kms-zookeeper-settings.js';
import { delayRow, zookeeperGoals, zookeeperRows, type ZooKeeperRows } from './kms-zookeeper-report.js';

const SOURCE_LABEL = 'fixed / original';
const isVersion = (v: string | null): v is KmsVersion => v !== null && Object.hasOwn(KMS_VERSIONS, v);
const ranged = (r: RatioSummary | null): RangedValue | null =>
  r ? { value: r.ratio, min: r.min, max: r.max } : null;
const withRange = (s: Summary | undefined): string => (s ? formatSiWithRange(s.median, s.min, s.max) : '—');
const ratioCell = (r: RatioSummary | null): string => (r ? formatRatioWithRange(r.ratio, r.min, r.max) : '—');

/** A case's figures from its comparison entry; none when the entry lacks them. */
export function caseFigures(
  entry: Parameters<typeof stringField>[0],
  mix: string,
  rep: number,
): CaseFigures[] {
  const version = stringField(entry, 'version');
  const throughput = numberField(entry, 'requestsPerSec');
  const verifyP99Ms = numberField(entry, 'verifyP99Ms');
  if (!isVersion(version) || throughput === null || verifyP99Ms === null) return [];
  return [
    {
      version,
      mix,
      rep,
      throughput,
      verifyP99Ms,
      createP99Ms: numberField(entry, 'createP99Ms'),
      errors: numberField(entry, 'errors') ?? 0,
      serverUsPerRequest: numberField(entry, 'serverUsPerRequest'),
      zookeeperUsPerCreation: numberField(entry, 'zookeeperUsPerCreation'),
      generatorUsPerRequest: numberField(entry, 'generatorUsPerRequest'),
    },
  ];
}

/** One line each for the quorum table and the sweep, which the combined report has no table for. */
function zookeeperNotes(zk: ZooKeeperRows): string[] {
  const ratios = (rows: readonly MixComparison[]): string =>
    rows.map((r) => `${r.mix} ${ratioCell(r.fixedOverOriginal)}`).join(', ');
  return [
    ...(zk.quorum.length > 0
      ? [
          `Quorum (${ENSEMBLE_NODES}-node ZooKeeper ensemble), fixed/original: ${ratios(zk.quorum)}; the table is in the scenario's report.`,
        ]
      : []),
    ...(zk.sweep.length > 0
      ? [
          `ZooKeeper-latency sweep (one-way delay through a proxy process), fixed/original: ${ratios(zk.sweep)}; the table, with the proxy's CPU, is in the scenario's report.`,
        ]
      : []),
  ];
}

/** The end-to-end KMS scenario in the combined report, against HADOOP-20045's table. */
export const kmsHttpSummary: ScenarioSummary<KmsHttpSettings> = {
  source: HADOOP_20045_TABLE,
  // Hadoop's KMS (in `all` by default) puts Hadoop's version in the report's machine table.
  uses: (s) => (s.versions.includes('hadoop') ? ['java', 'zookeeper', 'hadoop'] : ['java', 'zookeeper']),
  cases: kmsHttpCases,
  // As the scenario plans its progress: per case its overhead (ZooKeeper's start and warm-up, an
  // ensemble's or a delay proxy's start, Hadoop's JVM start and warm-up), every pass included.
  estimateMs: estimateKmsHttpMs,
  read(folder) {
    const cases = entriesMatching(folder, /^(\d+:\d+)\/([a-z-]+)\/rep(\d+)$/).flatMap(({ match, entry }) =>
      caseFigures(entry, match[1]!, Number(match[3])),
    );
    const zk = zookeeperRows(
      entriesMatching(folder, /^quorum\/(\d+:\d+)\/([a-z-]+)\/rep(\d+)$/).flatMap(({ match, entry }) =>
        caseFigures(entry, match[1]!, Number(match[3])),
      ),
      entriesMatching(folder, /^sweep-([\d.]+)ms\/(\d+:\d+)\/([a-z-]+)\/rep(\d+)$/).flatMap(
        ({ match, entry }) => caseFigures(entry, delayRow(Number(match[1])), Number(match[4])),
      ),
    );
    const mixes = [...new Set(cases.map((c) => c.mix))];
    const rows = aggregateCases(cases, mixes);
    const baselines: BaselineRun[] = [];
    for (let rep = 0; folder.exists(`cases/baseline-rep${rep}.json`); rep++) {
      const run = folder.readJson(`cases/baseline-rep${rep}.json`) as Record<string, unknown> | undefined;
      const requestsPerSec = numberField(run ?? null, 'requestsPerSec');
      const p99Ms = numberField(run ?? null, 'p99Ms');
      if (requestsPerSec !== null && p99Ms !== null)
        baselines.push({
          rep,
          requestsPerSec,
          p99Ms,
          errors: numberField(run ?? null, 'errors') ?? 0,
          serverUsPerRequest: numberField(run ?? null, 'serverUsPerRequest'),
          generatorUsPerRequest: numberField(run ?? null, 'generatorUsPerRequest'),
          serverEventLoopP99Ms: numberField(run ?? null, 'serverEventLoopP99Ms'),
        });
    }
    const ratios: RatioFigure[] = rows.map((r) => ({
      row: r.mix,
      label: SOURCE_LABEL,
      ours: ranged(r.fixedOverOriginal),
      source: sourceRatio(HADOOP_20045_TABLE, r.mix, SOURCE_LABEL),
    }));
    const headline = ratios.find((r) => r.row === '90:10') ?? ratios[ratios.length - 1];
    const errors = rows.reduce((n, r) => n + r.errors, 0);
    // Hadoop's KMS is in `all` by default; a folder from a run without it shows no empty column.
    const hadoop = rows.some((r) => r.throughput.hadoop !== undefined);
    const cpuOf = (version: KmsVersion): string => {
      const x = rows.find((r) => r.mix === '100:0')?.serverUsPerRequest[version];
      return x ? `${x.median.toFixed(0)} µs (${x.min.toFixed(0)}–${x.max.toFixed(0)})` : '—';
    };
    const trivialCpu = baselines.map((b) => b.serverUsPerRequest).filter((x): x is number => x !== null);
    return {
      table: {
        caption: 'Median successful total HTTP requests per second over the repetitions (min–max)',
        columns: [
          { header: 'Verify:create' },
          ...(hadoop
            ? [
                { header: 'Hadoop KMS requests/s', align: 'right' as const },
                { header: 'Fixed/Hadoop', align: 'right' as const },
              ]
            : []),
          { header: 'Original requests/s', align: 'right' },
          { header: 'Fixed requests/s', align: 'right' },
          { header: 'Fixed/original', align: 'right' },
          { header: 'Fixed + coalesced requests/s', align: 'right' },
          { header: 'coalesced/original', align: 'right' },
        ],
        rows: rows.map((r) => [
          r.mix,
          ...(hadoop ? [withRange(r.throughput.hadoop), ratioCell(r.overHadoop.fixed ?? null)] : []),
          withRange(r.throughput.original),
          withRange(r.throughput.fixed),
          ratioCell(r.fixedOverOriginal),
          withRange(r.throughput.coalesced),
          ratioCell(r.coalescedOverOriginal),
        ]),
      },
      ratios,
      headline: headline
        ? { ...headline, label: `${SOURCE_LABEL} at ${headline.row}`, better: 'higher' }
        : null,
      goals: [...(cases.length > 0 ? evaluateGoals(rows, baselines) : []), ...zookeeperGoals(zk)].map(
        (g) => ({
          goal: g.goal,
          target: '',
          measured: g.measured,
          met: g.met,
        }),
      ),
      notes: [
        ...zookeeperNotes(zk),
        `Errors in the measured windows: ${errors + [...zk.quorum, ...zk.sweep].reduce((n, r) => n + r.errors, 0)}. The source ran Hadoop's KMS in a JVM on a larger machine; here a fastpath KMS${hadoop ? " (and, in its own cases, Apache Hadoop's KMS)" : ''}, ZooKeeper and the load generator share 2 cores.`,
        // Runs before CPU was read per request have none: no line of dashes.
        ...(trivialCpu.length > 0 || rows.some((r) => Object.keys(r.serverUsPerRequest).length > 0)
          ? [
              `Server CPU per verification at 100:0: fixed ${cpuOf('fixed')}, original ${cpuOf('original')}${hadoop ? `, Hadoop KMS ${cpuOf('hadoop')}` : ''}; ` +
                `the trivial route ${trivialCpu.length ? `${median(trivialCpu).toFixed(0)} µs` : '—'} in the same run.`,
            ]
          : []),
      ],
    };
  },
};
