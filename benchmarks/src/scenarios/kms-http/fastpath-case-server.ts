import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startKmsProcess } from '@fastpath/kms-server/testing';
import type { ScenarioContext } from '../../harness/index.js';
import type { CaseServer, ServerFigures } from './case-server.js';
import { EVENT_LOOP_PROBE_MODULE, eventLoopProbeEnv, readEventLoopWindow } from './event-loop-probe.js';
import type { CaseServerSettings } from './kms-http-settings.js';
import { checkBuildInfo } from './kms-preflight.js';
import type { FastpathVersionSettings } from './kms-versions.js';
import { histogramMean, parsePrometheusText, total } from './prometheus-text.js';
import { withProfileProbe } from './server-profile-probe.js';

/** A fastpath-kms process of version `v` on the case's ZooKeeper, run from the package built in `packageDir`. */
export async function startFastpathCaseServer(
  ctx: ScenarioContext<CaseServerSettings>,
  v: FastpathVersionSettings,
  connectString: string,
  id: string,
  packageDir: string,
  /** kms-site.xml entries of Kerberos mode (--auth kerberos); none for simple authentication. */
  kerberosSite: Readonly<Record<string, string>> = {},
  /** The profile probe's built module, to load it into the server (`--profile-fleet`); none by default. */
  profileProbe?: string,
): Promise<CaseServer> {
  const s = ctx.flags;
  const args = [
    ...Object.entries(kerberosSite).flatMap(([key, value]) => ['-D', `${key}=${value}`]),
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
  ctx.results.recordCommand(
    `node ${packageDir}/dist/cli-main.js ${args.join(' ')}`,
    `KMS server (fastpath-kms)${profileProbe === undefined ? '' : ', the profile probe loaded'}, case ${id}`,
  );
  // The event-loop probe is loaded into the server from outside (NODE_OPTIONS), so the server
  // measured is the one that ships; its snapshots land here and are read after the window.
  const loopDir = mkdtempSync(path.join(tmpdir(), 'fastpath-kms-loop-'));
  // The profile probe, likewise from outside; idle until the load generator signals it.
  const profileDir =
    profileProbe === undefined ? null : mkdtempSync(path.join(tmpdir(), 'fastpath-kms-profile-'));
  const removeDirs = (): void => {
    for (const dir of [loopDir, profileDir]) if (dir !== null) rmSync(dir, { recursive: true, force: true });
  };
  const loopEnv = eventLoopProbeEnv(loopDir, ctx.sourcePath(EVENT_LOOP_PROBE_MODULE));
  const kms = await startKmsProcess({
    packageDir,
    args,
    env: {
      // Request logging is a diagnostic extra: pinned off, whatever the caller's environment says.
      FASTPATH_KMS_KEYSTORE_PASSWORD: 'benchmark-only',
      FASTPATH_KMS_LOG_LEVEL: 'silent',
      ...(profileDir === null || profileProbe === undefined
        ? loopEnv
        : withProfileProbe(loopEnv, profileDir, profileProbe)),
    },
  }).catch((error: unknown) => {
    removeDirs();
    throw error;
  });
  const metricsText = async (): Promise<string> => (await fetch(`${kms.url}/metrics`)).text();
  return {
    origin: kms.url,
    pid: kms.pid,
    eventLoopProbeDir: loopDir,
    profileProbeDir: profileDir,
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
          const eventLoop = readEventLoopWindow(loopDir);
          return {
            eventLoopDelayP99Ms: eventLoop?.busiest?.p99Ms ?? null,
            eventLoop,
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
    async [Symbol.asyncDispose]() {
      await kms[Symbol.asyncDispose]();
      removeDirs();
    },
  };
}
