import {
  startDelayProxyProcess,
  startZooKeeper,
  type DelayProxyProcess,
  type DelayProxyStats,
  type ZooKeeperFixture,
} from '@fastpath/zookeeper-fixture';
import type { ScenarioContext } from '../../harness/index.js';
import type { KmsHttpSettings } from './kms-http-settings.js';
import type { ZooKeeperSetup } from './kms-passes.js';
import { ENSEMBLE_NODES, type ZooKeeperTopology } from './kms-zookeeper-settings.js';
import type { WindowCpu } from './load-generator-main.js';

/** What a case's JSON records of its ZooKeeper (`zookeeperSetup`). */
export interface CaseZooKeeperRecord {
  topology: ZooKeeperTopology;
  nodes: number;
  /** What the KMS was given: every server (or the proxy's listener for each). */
  kmsConnectString: string;
  /** The servers themselves. */
  serversConnectString: string;
  /** One-way delay of the proxy, ms; null when the KMS talks to ZooKeeper directly. */
  delayMs: number | null;
  /** CPU of every ZooKeeper server JVM together in the measured window (the load generator reads it): seconds, and % of one core. */
  serversCpuSeconds: number | null;
  serversCpuPercentOfOneCore: number | null;
  /** The delay proxy's own process: its CPU in the measured window, and its counters after the case. */
  proxy: {
    pid: number;
    cpuSeconds: number | null;
    cpuPercentOfOneCore: number | null;
    stats: DelayProxyStats;
  } | null;
}

/** A case's ZooKeeper: the fixture, and the delay proxy in front of it when the case has one. */
export interface CaseZooKeeper extends AsyncDisposable {
  /** What the KMS and the case's checks connect to. */
  readonly connectString: string;
  readonly fixture: ZooKeeperFixture;
  /** `mntr` of the leader (of the one server when standalone). */
  mntr(): Promise<Record<string, number | string>>;
  /** The delay proxy's process id, for the load generator's CPU watch; undefined without a proxy. */
  readonly proxyPid: number | undefined;
  /** What the case JSON records, with the CPU of the watch groups `zookeeper` and `proxy` in the window. */
  record(windowCpu: WindowCpu): Promise<CaseZooKeeperRecord>;
}

/** Starts a fresh ZooKeeper (standalone or a 3-node ensemble) and, for a sweep case, the delay proxy process. */
export async function startCaseZooKeeper(
  ctx: ScenarioContext<KmsHttpSettings>,
  setup: ZooKeeperSetup,
  id: string,
): Promise<CaseZooKeeper> {
  const nodes = setup.topology === 'ensemble' ? ENSEMBLE_NODES : 1;
  const fixture = await startZooKeeper({ nodes });
  let proxy: DelayProxyProcess | undefined;
  try {
    if (setup.delayMs !== null) {
      proxy = await startDelayProxyProcess({
        target: fixture.connectString,
        delayMs: setup.delayMs,
        logFile: ctx.results.logPath(`zk-proxy-${id}`),
      });
      ctx.results.recordCommand(
        `delay-proxy-main.ts --target ${fixture.connectString} --delay-ms ${setup.delayMs} (pid ${proxy.pid})`,
        `ZooKeeper delay proxy, case ${id}`,
      );
    }
  } catch (err) {
    await fixture.close();
    throw err;
  }
  const close = async (): Promise<void> => {
    await proxy?.close();
    await fixture.close();
  };
  return {
    connectString: proxy?.connectString ?? fixture.connectString,
    fixture,
    mntr: async () => fixture.mntr(await fixture.leader()),
    proxyPid: proxy?.pid,
    async record(windowCpu) {
      const percent = (cpu: number | null | undefined): number | null =>
        cpu == null || windowCpu.intervalMs <= 0 ? null : (100 * cpu) / (windowCpu.intervalMs / 1000);
      const serversCpuSeconds = windowCpu.seconds['zookeeper'] ?? null;
      const proxyCpuSeconds = windowCpu.seconds['proxy'] ?? null;
      return {
        topology: setup.topology,
        nodes,
        kmsConnectString: proxy?.connectString ?? fixture.connectString,
        serversConnectString: fixture.connectString,
        delayMs: setup.delayMs,
        serversCpuSeconds,
        serversCpuPercentOfOneCore: percent(serversCpuSeconds),
        proxy: proxy
          ? {
              pid: proxy.pid,
              cpuSeconds: proxyCpuSeconds,
              cpuPercentOfOneCore: percent(proxyCpuSeconds),
              stats: await proxy.stats(),
            }
          : null,
      };
    },
    close,
    [Symbol.asyncDispose]: close,
  } as CaseZooKeeper & { close(): Promise<void> };
}
