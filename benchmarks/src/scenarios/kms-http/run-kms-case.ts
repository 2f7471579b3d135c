import { LatencyRecorder, type LatencySummary } from '@fastpath/core';
import { closeZooKeeperClient, connectZooKeeper, zkGetChildren } from '@fastpath/zookeeper-fixture';
import { BenchmarkCheckError, startChild, type ScenarioContext } from '../../harness/index.js';
import type { WindowSummary } from '../../harness/mixed-load/goodput-window.js';
import type { OperationMix } from '../../harness/mixed-load/operation-mix.js';
import { startRoundRobinProxy, type RoundRobinProxy } from '@fastpath/hadoop-fixture';
import { combineServerFigures, type CaseServer, type ServerFigures } from './case-server.js';
import { fleetMembers, fleetSignerSite, type FleetSetup } from './kms-fleet.js';
import { startCaseZooKeeper, type CaseZooKeeperRecord } from './case-zookeeper.js';
import { startFastpathCaseServer } from './fastpath-case-server.js';
import { startHadoopCaseServer } from './hadoop-case-server.js';
import type { KmsHttpSettings } from './kms-http-settings.js';
import { caseId, type KmsPass } from './kms-passes.js';
import { KMS_VERSIONS, type KmsVersion } from './kms-versions.js';
import type { LoadInput, LoadOutput } from './load-generator-main.js';
import { cpuPerRequest, type CpuPerRequest } from './cpu-per-request.js';
import {
  DEFAULT_ZOOKEEPER_WARMUP_OPTIONS,
  warmZooKeeper,
  type ZooKeeperWarmupRecord,
} from './zookeeper-warmup.js';
import { preflight, createBenchKey, fetchToken, BENCH_USER } from './kms-preflight.js';
import type { KmsServerBundle } from './kms-server-bundle.js';
import { kerberosOrigin, type BenchKerberos } from './bench-kerberos.js';
import { profiledCase, type ProfiledInstance } from './fleet-profiles.js';
import { PROFILE_WARMUP_MS, profiledWindow } from './profiled-window.js';

const TOKENS_ROOT = '/zkdtsm/ZKDTSMRoot/ZKDTSMTokensRoot';
export const BENCH_KEY = 'bench-key';

/** The load a case ran before its measured call, and what came of it. */
export interface CaseWarmup {
  /** ZooKeeper's warm-up, before the server started (every version alike). */
  zookeeper: ZooKeeperWarmupRecord;
  /** The measured call's own warm-up (every version): load whose results are not counted. */
  generatorWarmupMs: number;
  /** Extra load before that, at the case's mix, for a JIT-compiled server; null for none. */
  server: {
    durationMs: number;
    mix: string;
    requestsPerSec: number;
    succeeded: number;
    errors: number;
  } | null;
}

/** Everything recorded about one case: one server version, one mix, one repetition. */
export interface KmsCaseResult {
  version: KmsVersion;
  mix: string;
  rep: number;
  warmup: CaseWarmup;
  window: WindowSummary;
  latency: { verify: LatencySummary; create: LatencySummary };
  submitted: LoadOutput['submitted'];
  completeBlocks: number;
  tailSubmissions: LoadOutput['tailSubmissions'];
  checks: { preflight: string[]; dtNodesBefore: number; dtNodesAfter: number; createdTotal: number };
  server: ServerFigures & {
    details: Record<string, unknown>;
    /** Over the measured window (read by the load generator at its boundaries). */
    cpuSeconds: number | null;
    cpuPercentOfOneCore: number | null;
  };
  /** CPU per request of the server, ZooKeeper and the load generator, over the measured window. */
  cpu: CpuPerRequest & { windowCpu: LoadOutput['windowCpu'] };
  zookeeper: Record<string, number | string>;
  /** The report part, and the ZooKeeper the case ran against (topology, proxy and their CPU). */
  part: KmsPass['part'];
  /** How its creations authenticated: `simple`, or with Kerberos `spnego` or `cookie`. */
  creationAuth: KmsPass['creationAuth'];
  zookeeperSetup: CaseZooKeeperRecord;
  generatorEventLoopP99Ms: number;
  /** The fleet behind the balancer (part `fleet`); null for one instance. */
  fleet?: FleetSetup | null;
  /** New Kerberos log-ins in the window after a refused cookie (creations by cookie). */
  reauthentications?: number;
  /** With `--profile-fleet`, each fastpath instance's profiled window after the measured one. */
  profiled?: ProfiledInstance[];
}

/**
 * Runs one case from nothing: a fresh ZooKeeper as the pass says (standalone, a 3-node ensemble,
 * or standalone behind the delay proxy), a fresh KMS of the given version
 * (fastpath-kms process or Hadoop's KMS JVM), the checks, a separate load-generator process, and
 * the bookkeeping. Everything is stopped before it returns, whatever happens.
 */
export async function runKmsCase(
  ctx: ScenarioContext<KmsHttpSettings>,
  version: KmsVersion,
  mix: OperationMix,
  rep: number,
  pass: KmsPass,
  /** fastpath-kms as built for the run (kms-server-bundle.ts). */
  bundle: KmsServerBundle,
  /** The run's realm with --auth kerberos; undefined for simple authentication. */
  kerberos?: BenchKerberos,
): Promise<KmsCaseResult> {
  const s = ctx.flags;
  const id = caseId(pass, mix, version, rep);
  const v = KMS_VERSIONS[version];
  const profiling = profiledCase(s, pass, version, mix, rep);
  // The first fastpath case builds the bundle, before any process of the case starts.
  if (v.server !== 'hadoop') await bundle.packageDir();
  await using zk = await startCaseZooKeeper(ctx, pass.zookeeper, id);
  const zookeeperPids = zk.fixture.nodes.flatMap((n) => (n.pid === undefined ? [] : [n.pid]));
  // Before the server exists, so the KMS starts on an empty tree and every version gets the same.
  const zookeeperWarmup = await warmZooKeeper(zk.fixture.connectString, zookeeperPids, {
    ...DEFAULT_ZOOKEEPER_WARMUP_OPTIONS,
    maxDurationMs: s.zkWarmupMs,
  });
  if (zookeeperWarmup.creations > 0) {
    const us = (x: number | null): string => (x === null ? '—' : `${x.toFixed(0)} µs`);
    ctx.log(
      `${id}: ZooKeeper warm-up ${zookeeperWarmup.creations} creations in ${(zookeeperWarmup.durationMs / 1000).toFixed(1)} s, ` +
        `CPU per creation ${us(zookeeperWarmup.perCreateCpuUsAtStart)} → ${us(zookeeperWarmup.perCreateCpuUsAtEnd)}` +
        (zookeeperWarmup.settled ? ' (settled)' : ' (not settled within the bound)'),
    );
  }
  const admin = await connectZooKeeper(zk.connectString);
  const members: CaseServer[] = [];
  let balancer: RoundRobinProxy | undefined;
  try {
    // One server, or a fleet's members one after another (each checked as it comes up, before the
    // next shares its sequence counter) and the round-robin balancer in front of them.
    const memberVersions = pass.fleet ? fleetMembers(pass.fleet) : [version];
    const site = {
      ...(kerberos?.site ?? {}),
      ...(pass.fleet ? fleetSignerSite(pass.fleet.kind, zk.connectString) : {}),
    };
    const preflightChecks: string[] = [];
    for (const [i, memberVersion] of memberVersions.entries()) {
      const mv = KMS_VERSIONS[memberVersion];
      const memberId = pass.fleet ? `${id}-i${i}` : id;
      const member =
        mv.server === 'hadoop'
          ? await startHadoopCaseServer(
              ctx,
              zk.connectString,
              memberId,
              kerberos && { site, javaOptions: kerberos.kdc.javaOptions() },
            )
          : await startFastpathCaseServer(
              ctx,
              mv,
              zk.connectString,
              memberId,
              await bundle.packageDir(),
              site,
              profiling ? await bundle.profileProbe() : undefined,
            );
      members.push(member);
      preflightChecks.push(...(await member.identify(admin)));
    }
    if (pass.fleet) {
      balancer = await startRoundRobinProxy({ targets: members.map((m) => m.origin) });
      ctx.results.recordCommand(
        `round-robin balancer ${balancer.url} -> ${members.map((m) => m.origin).join(', ')} (in the benchmark process)`,
        `balancer, case ${id}`,
      );
    }
    // Kerberos clients name the service after the URL's host (HTTP/localhost).
    const named = (o: string): string => (kerberos === undefined ? o : kerberosOrigin(o));
    const origin = named(balancer?.url ?? (members[0] as CaseServer).origin);
    // Each instance has its own key store: the key is created on every one. The tokens are shared.
    for (const m of members) await createBenchKey(named(m.origin), BENCH_KEY, kerberos !== undefined);
    // From the first instance directly (the store is shared): a client that logs in by a request of
    // its own, as kms-client does, has its cookie refused by the next instance over random secrets.
    const verifyToken = await fetchToken(named((members[0] as CaseServer).origin), kerberos !== undefined);
    for (const m of members)
      preflightChecks.push(...(await preflight(named(m.origin), BENCH_KEY, verifyToken)));

    await using generator = startChild<LoadInput, LoadOutput>(
      ctx.sourcePath('scenarios/kms-http/load-generator-main.ts'),
      {
        name: `load-${id}`,
        logFile: ctx.results.logPath(`load-${id}`),
        onSpawn: (c) => ctx.results.recordCommand(c, `load generator, case ${id}`),
      },
    );
    await generator.ready;
    const seed = 7919 * (rep + 1) + mix.create;
    const watch: NonNullable<LoadInput['watch']> = {
      cpu: {
        server: members.map((m) => m.pid),
        zookeeper: zookeeperPids,
        ...(zk.proxyPid === undefined ? {} : { proxy: [zk.proxyPid] }),
      },
      probeDirs: members.flatMap((m) => (m.eventLoopProbeDir === null ? [] : [m.eventLoopProbeDir])),
    };
    const load = (
      warmupMs: number,
      measureMs: number,
      seedOffset: number,
      windowWatch = watch,
    ): Promise<LoadOutput> =>
      generator.call(
        {
          origin,
          target: 'kms',
          creationAuth: pass.creationAuth,
          mix: mix.label,
          concurrency: s.concurrency,
          warmupMs,
          measureMs,
          seed: seed + seedOffset,
          keyName: BENCH_KEY,
          verifyToken,
          creator: BENCH_USER,
          requestTimeoutMs: s.requestTimeoutMs,
          watch: windowWatch,
        },
        { timeoutMs: warmupMs + measureMs + s.requestTimeoutMs + 60_000 },
      );

    let serverWarmup: CaseWarmup['server'] = null;
    const serverWarmupMs = Math.max(...members.map((m) => m.serverWarmupMs));
    if (serverWarmupMs > 0) {
      // Counted only for the record: it is there to let the JIT compile the paths the case measures.
      const w = await load(0, serverWarmupMs, 1);
      serverWarmup = {
        durationMs: serverWarmupMs,
        mix: mix.label,
        requestsPerSec: w.window.throughput,
        succeeded: w.window.counted.verify.ok + w.window.counted.create.ok,
        errors: w.window.counted.verify.errors + w.window.counted.create.errors,
      };
      ctx.log(`${id}: server warm-up ${serverWarmupMs} ms, ${Math.round(w.window.throughput)} req/s`);
    }

    const dtNodesBefore = (await zkGetChildren(admin, TOKENS_ROOT)).filter((n) => n.startsWith('DT_')).length;
    const measurements = await Promise.all(members.map((m) => m.measure()));
    const measured = await load(s.warmupMs, s.measureMs, 0);
    const cpu = cpuPerRequest(measured.window, measured.windowCpu);
    const figures = combineServerFigures(await Promise.all(measurements.map((m) => m.finish())));
    const zookeeperSetup = await zk.record(measured.windowCpu);
    const dtNodesAfter = (await zkGetChildren(admin, TOKENS_ROOT)).filter((n) => n.startsWith('DT_')).length;
    // The token count check: every creation the generator saw succeed is a znode, no more, no less.
    if (dtNodesAfter - dtNodesBefore !== measured.createdTotal) {
      throw new BenchmarkCheckError(
        `${id}: ${measured.createdTotal} creations succeeded but DT_* znodes grew by ${dtNodesAfter - dtNodesBefore}`,
      );
    }
    const afterChecks: string[] = [];
    for (const m of members) afterChecks.push(...(await m.afterwards(admin)));
    const profiled = profiling
      ? await profiledWindow(ctx, id, members, balancer, cpu.serverUsPerRequest, (w) =>
          load(PROFILE_WARMUP_MS, s.measureMs, 2, w),
        )
      : undefined;
    const fleetOf = pass.fleet ?? null;
    return {
      version,
      mix: mix.label,
      rep,
      warmup: { zookeeper: zookeeperWarmup, generatorWarmupMs: s.warmupMs, server: serverWarmup },
      window: measured.window,
      latency: {
        verify: LatencyRecorder.fromBase64(measured.latency.verify).summary(),
        create: LatencyRecorder.fromBase64(measured.latency.create).summary(),
      },
      submitted: measured.submitted,
      completeBlocks: measured.completeBlocks,
      tailSubmissions: measured.tailSubmissions,
      checks: {
        preflight: [...preflightChecks, ...afterChecks],
        dtNodesBefore,
        dtNodesAfter,
        createdTotal: measured.createdTotal,
      },
      server: {
        details: pass.fleet
          ? {
              fleet: pass.fleet,
              members: members.map((m) => m.details),
              balancerServed: balancer?.served() ?? null,
            }
          : (members[0] as CaseServer).details,
        cpuSeconds: measured.windowCpu.seconds['server'] ?? null,
        cpuPercentOfOneCore: cpu.percentOfOneCore.server,
        ...figures,
      },
      cpu: { ...cpu, windowCpu: measured.windowCpu },
      zookeeper: await zk.mntr(),
      part: pass.part,
      creationAuth: pass.creationAuth,
      zookeeperSetup,
      generatorEventLoopP99Ms: measured.generatorEventLoopP99Ms,
      fleet: fleetOf,
      reauthentications: measured.reauthentications,
      ...(profiled === undefined
        ? {}
        : { profiled: profiled.map((p) => ({ ...p, fleet: fleetOf, mix: mix.label })) }),
    };
  } finally {
    await balancer?.close();
    // The last started first, as `await using` would.
    for (const m of members.reverse()) await m[Symbol.asyncDispose]();
    await closeZooKeeperClient(admin);
  }
}
