import { startKmsProcess } from '@fastpath/kms-server/testing';
import type { ScenarioContext } from '../../harness/index.js';
import type { CaseServer, ServerFigures } from './case-server.js';
import type { KmsHttpSettings } from './kms-http-settings.js';
import { checkBuildInfo } from './kms-preflight.js';
import type { FastpathVersionSettings } from './kms-versions.js';
import { histogramMean, parsePrometheusText, total } from './prometheus-text.js';

/** A fastpath-kms process of version `v` on the case's ZooKeeper. */
export async function startFastpathCaseServer(
  ctx: ScenarioContext<KmsHttpSettings>,
  v: FastpathVersionSettings,
  connectString: string,
  id: string,
): Promise<CaseServer> {
  const s = ctx.flags;
  const args = [
    '--workers',
    String(s.workers),
    '-D',
    'hadoop.kms.authentication.zk-dt-secret-manager.enable=true',
    '-D',
    `hadoop.kms.authentication.zk-dt-secret-manager.zkConnectionString=${connectString}`,
    '-D',
    `hadoop.kms.authentication.zk-dt-secret-manager.token.seqnum.batch.size=${s.seqNumBatchSize}`,
    '-D',
    `fastpath.kms.token.creation.locking=${v.creationLocking}`,
    '-D',
    `fastpath.kms.token.persist.coalescing=${v.persistCoalescing}`,
  ];
  ctx.results.recordCommand(`fastpath-kms ${args.join(' ')}`, `KMS server, case ${id}`);
  const kms = await startKmsProcess({
    args,
    // Request logging is a diagnostic extra: pinned off, whatever the caller's environment says.
    env: { FASTPATH_KMS_KEYSTORE_PASSWORD: 'benchmark-only', FASTPATH_KMS_LOG_LEVEL: 'silent' },
  });
  const metricsText = async (): Promise<string> => (await fetch(`${kms.url}/metrics`)).text();
  return {
    origin: kms.url,
    pid: kms.pid,
    serverWarmupMs: 0,
    details: { server: 'fastpath-kms', workers: s.workers },
    async identify() {
      return [
        await checkBuildInfo(kms.url, {
          implementation: 'zookeeper',
          creationLocking: v.creationLocking,
          persistCoalescing: v.persistCoalescing,
          workers: s.workers,
        }),
        'diagnostic extras off: request logging silent, no TLS, no test hooks (not configurable)',
      ];
    },
    async measure() {
      const before = parsePrometheusText(await metricsText());
      return {
        async finish(): Promise<ServerFigures> {
          const text = await metricsText();
          ctx.results.writeText(`metrics/${id}.prom`, text);
          const after = parsePrometheusText(text);
          const mean = (name: string): number | null => {
            const m = histogramMean(after, name, {}, before);
            return m === null ? null : m * 1000;
          };
          return {
            eventLoopDelayP99Ms: eventLoopP99Ms(after),
            gcSeconds:
              total(after, 'nodejs_gc_duration_seconds_sum') -
              total(before, 'nodejs_gc_duration_seconds_sum'),
            stageMeansMs: {
              allocate: mean('token_manager_create_allocate_seconds'),
              prepare: mean('token_manager_create_prepare_seconds'),
              persist: mean('token_manager_create_persist_seconds'),
              verify: mean('token_manager_verify_seconds'),
            },
            persistBatchMean: histogramMean(after, 'token_manager_persist_batch_size', {}, before),
            zookeeperOpMeanMs: mean('token_manager_zookeeper_operation_seconds'),
          };
        },
      };
    },
    afterwards: () => Promise.resolve([]),
    [Symbol.asyncDispose]: () => kms[Symbol.asyncDispose](),
  };
}

function eventLoopP99Ms(metrics: ReturnType<typeof parsePrometheusText>): number | null {
  const kms = metrics.find((m) => m.name === 'kms_event_loop_delay_seconds' && m.labels.quantile === '0.99');
  if (kms) return kms.value * 1000;
  const node = metrics.find((m) => m.name === 'nodejs_eventloop_lag_p99_seconds');
  return node ? node.value * 1000 : null;
}
