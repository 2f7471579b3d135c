import { LatencyRecorder, type LatencySummary } from '@fastpath/core';
import { startKmsProcess } from '@fastpath/kms-server/testing';
import {
  closeZooKeeperClient,
  connectZooKeeper,
  startZooKeeper,
  zkGetChildren,
} from '@fastpath/zookeeper-fixture';
import { BenchmarkCheckError, startChild, type ScenarioContext } from '../../harness/index.js';
import type { WindowSummary } from '../../harness/mixed-load/goodput-window.js';
import type { OperationMix } from '../../harness/mixed-load/operation-mix.js';
import type { KmsHttpSettings } from './kms-http-settings.js';
import { KMS_VERSIONS, type KmsVersion } from './kms-versions.js';
import type { LoadInput, LoadOutput } from './load-generator-main.js';
import { processTreeCpuSeconds } from './process-cpu.js';
import { histogramMean, parsePrometheusText, total } from './prometheus-text.js';
import { preflight, createBenchKey, fetchToken, BENCH_USER } from './kms-preflight.js';

const TOKENS_ROOT = '/zkdtsm/ZKDTSMRoot/ZKDTSMTokensRoot';
export const BENCH_KEY = 'bench-key';

/** Everything recorded about one case: one server version, one mix, one repetition. */
export interface KmsCaseResult {
  version: KmsVersion;
  mix: string;
  rep: number;
  window: WindowSummary;
  latency: { verify: LatencySummary; create: LatencySummary };
  submitted: LoadOutput['submitted'];
  completeBlocks: number;
  tailSubmissions: LoadOutput['tailSubmissions'];
  checks: { preflight: string[]; dtNodesBefore: number; dtNodesAfter: number; createdTotal: number };
  server: {
    cpuSeconds: number | null;
    cpuPercentOfOneCore: number | null;
    eventLoopDelayP99Ms: number | null;
    gcSeconds: number | null;
    stageMeansMs: Record<string, number | null>;
    persistBatchMean: number | null;
    zookeeperOpMeanMs: number | null;
  };
  zookeeper: Record<string, number | string>;
  generatorEventLoopP99Ms: number;
}

/**
 * Runs one case from nothing: a fresh standalone ZooKeeper, a fresh KMS process of the given
 * version, the checks, a separate load-generator process, and the bookkeeping. Everything is
 * stopped before it returns, whatever happens.
 */
export async function runKmsCase(
  ctx: ScenarioContext<KmsHttpSettings>,
  version: KmsVersion,
  mix: OperationMix,
  rep: number,
): Promise<KmsCaseResult> {
  const s = ctx.flags;
  const id = `${mix.verify}-${mix.create}-${version}-rep${rep}`;
  const v = KMS_VERSIONS[version];
  await using zk = await startZooKeeper();
  const args = [
    '--workers',
    String(s.workers),
    '-D',
    'hadoop.kms.authentication.zk-dt-secret-manager.enable=true',
    '-D',
    `hadoop.kms.authentication.zk-dt-secret-manager.zkConnectionString=${zk.connectString}`,
    '-D',
    `hadoop.kms.authentication.zk-dt-secret-manager.token.seqnum.batch.size=${s.seqNumBatchSize}`,
    '-D',
    `fastpath.kms.token.creation.locking=${v.creationLocking}`,
    '-D',
    `fastpath.kms.token.persist.coalescing=${v.persistCoalescing}`,
  ];
  ctx.results.recordCommand(`fastpath-kms ${args.join(' ')}`, `KMS server, case ${id}`);
  await using kms = await startKmsProcess({
    args,
    // Request logging is a diagnostic extra: pinned off, whatever the caller's environment says.
    env: { FASTPATH_KMS_KEYSTORE_PASSWORD: 'benchmark-only', FASTPATH_KMS_LOG_LEVEL: 'silent' },
  });
  const admin = await connectZooKeeper(zk.connectString);
  try {
    await createBenchKey(kms.url, BENCH_KEY);
    const verifyToken = await fetchToken(kms.url);
    const preflightChecks = await preflight(kms.url, BENCH_KEY, verifyToken, {
      implementation: 'zookeeper',
      creationLocking: v.creationLocking,
      persistCoalescing: v.persistCoalescing,
      workers: s.workers,
    });
    const dtNodesBefore = (await zkGetChildren(admin, TOKENS_ROOT)).filter((n) => n.startsWith('DT_')).length;
    const metricsBefore = parsePrometheusText(await (await fetch(`${kms.url}/metrics`)).text());
    const cpuBefore = processTreeCpuSeconds(kms.pid);
    const startedMs = performance.now();

    await using generator = startChild<LoadInput, LoadOutput>(
      ctx.sourcePath('scenarios/kms-http/load-generator-main.ts'),
      {
        name: `load-${id}`,
        logFile: ctx.results.logPath(`load-${id}`),
        onSpawn: (c) => ctx.results.recordCommand(c, `load generator, case ${id}`),
      },
    );
    await generator.ready;
    const load = await generator.call(
      {
        origin: kms.url,
        target: 'kms',
        mix: mix.label,
        concurrency: s.concurrency,
        warmupMs: s.warmupMs,
        measureMs: s.measureMs,
        seed: 7919 * (rep + 1) + mix.create,
        keyName: BENCH_KEY,
        verifyToken,
        creator: BENCH_USER,
        requestTimeoutMs: s.requestTimeoutMs,
      },
      { timeoutMs: s.warmupMs + s.measureMs + s.requestTimeoutMs + 60_000 },
    );
    const elapsedS = (performance.now() - startedMs) / 1000;
    const cpuAfter = processTreeCpuSeconds(kms.pid);
    const metricsText = await (await fetch(`${kms.url}/metrics`)).text();
    ctx.results.writeText(`metrics/${id}.prom`, metricsText);
    const metrics = parsePrometheusText(metricsText);
    const dtNodesAfter = (await zkGetChildren(admin, TOKENS_ROOT)).filter((n) => n.startsWith('DT_')).length;
    // The token count check: every creation the generator saw succeed is a znode, no more, no less.
    if (dtNodesAfter - dtNodesBefore !== load.createdTotal) {
      throw new BenchmarkCheckError(
        `${id}: ${load.createdTotal} creations succeeded but DT_* znodes grew by ${dtNodesAfter - dtNodesBefore}`,
      );
    }
    const mean = (name: string, before = metricsBefore) => {
      const m = histogramMean(metrics, name, {}, before);
      return m === null ? null : m * 1000;
    };
    const cpuSeconds = cpuBefore !== null && cpuAfter !== null ? cpuAfter - cpuBefore : null;
    const verify = LatencyRecorder.fromBase64(load.latency.verify).summary();
    const create = LatencyRecorder.fromBase64(load.latency.create).summary();
    return {
      version,
      mix: mix.label,
      rep,
      window: load.window,
      latency: { verify, create },
      submitted: load.submitted,
      completeBlocks: load.completeBlocks,
      tailSubmissions: load.tailSubmissions,
      checks: {
        preflight: [
          ...preflightChecks,
          'diagnostic extras off: request logging silent, no TLS, no test hooks (not configurable)',
        ],
        dtNodesBefore,
        dtNodesAfter,
        createdTotal: load.createdTotal,
      },
      server: {
        cpuSeconds,
        cpuPercentOfOneCore: cpuSeconds === null ? null : (100 * cpuSeconds) / elapsedS,
        eventLoopDelayP99Ms: eventLoopP99Ms(metrics),
        gcSeconds:
          total(metrics, 'nodejs_gc_duration_seconds_sum') -
          total(metricsBefore, 'nodejs_gc_duration_seconds_sum'),
        stageMeansMs: {
          allocate: mean('token_manager_create_allocate_seconds'),
          prepare: mean('token_manager_create_prepare_seconds'),
          persist: mean('token_manager_create_persist_seconds'),
          verify: mean('token_manager_verify_seconds'),
        },
        persistBatchMean: histogramMean(metrics, 'token_manager_persist_batch_size', {}, metricsBefore),
        zookeeperOpMeanMs: mean('token_manager_zookeeper_operation_seconds'),
      },
      zookeeper: await zk.mntr(),
      generatorEventLoopP99Ms: load.generatorEventLoopP99Ms,
    };
  } finally {
    await closeZooKeeperClient(admin);
  }
}

function eventLoopP99Ms(metrics: ReturnType<typeof parsePrometheusText>): number | null {
  const kms = metrics.find((m) => m.name === 'kms_event_loop_delay_seconds' && m.labels.quantile === '0.99');
  if (kms) return kms.value * 1000;
  const node = metrics.find((m) => m.name === 'nodejs_eventloop_lag_p99_seconds');
  return node ? node.value * 1000 : null;
}
