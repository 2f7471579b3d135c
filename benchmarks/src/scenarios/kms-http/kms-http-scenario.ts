import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LatencyRecorder } from '@fastpath/core';
import {
  BenchmarkCheckError,
  startChild,
  type Scenario,
  type ScenarioContext,
  type ScenarioReport,
} from '../../harness/index.js';
import { aggregateCases, figures, kerberosFigures } from './aggregate-cases.js';
import { cpuPerRequest } from './cpu-per-request.js';
import { EVENT_LOOP_PROBE_MODULE, eventLoopProbeEnv, readEventLoopWindow } from './event-loop-probe.js';
import { baselineCaseMs, caseMs, estimateKmsHttpMs } from './kms-http-estimate.js';
import { kmsHttpReport, type BaselineRun } from './kms-http-report.js';
import { KMS_HTTP_FLAGS, parseKmsHttpFlags, type KmsHttpSettings } from './kms-http-settings.js';
import { versionOrder } from './kms-versions.js';
import type { LoadInput, LoadOutput } from './load-generator-main.js';
import { caseId, comparisonKey, kmsPasses, type KmsPass } from './kms-passes.js';
import { withKmsServerBundle, type KmsServerBundle } from './kms-server-bundle.js';
import { runKmsCase, type KmsCaseResult } from './run-kms-case.js';
import { startBenchKerberos } from './bench-kerberos.js';
import { kerberosRowLabel, kerberosRows } from './kms-kerberos-report.js';

/**
 * The end-to-end KMS benchmark of HADOOP-20045: per case a fresh standalone ZooKeeper, a fresh
 * KMS server process and a separate load-generator process; verification by delegation token
 * mixed with token creation; the original global-lock creation against the staged fix (and the
 * fix with persist coalescing), in one run.
 */
export const kmsHttpScenario: Scenario<KmsHttpSettings> = {
  name: 'kms-http',
  title: 'KMS over HTTP: token verification while tokens are created (HADOOP-20045)',
  description:
    'Closed-loop HTTP load on a fastpath KMS backed by a standalone ZooKeeper: verification is GET key metadata ' +
    'authenticated by a delegation token, creation is GETDELEGATIONTOKEN with simple authentication, mixed ' +
    '100:0, 99:1, 95:5 and 90:10 in exact shuffled blocks of 100. "Original" runs creation locking `global`, ' +
    '"fixed" runs `staged`, "fixed + coalesced" adds persist coalescing; nothing else differs. "Hadoop KMS" ' +
    "(in `all`, or `--versions hadoop,...`) is Apache Hadoop's own KMSWebServer with its ZooKeeper token store " +
    'and the same sequence batch, warmed up first at the case mix for --jvm-warmup. Fresh processes and data ' +
    'for every case, ZooKeeper warmed first (the same for every version, on a scratch path deleted before the ' +
    'server starts); original/fixed order alternates across repetitions. `--zookeeper ensemble` runs the matrix ' +
    'on a 3-node ensemble (the quorum table); `--quorum-mixes` adds an ensemble pass after a standalone matrix and ' +
    '`--zk-delay-ms` a latency sweep at 90:10 through a delay proxy in its own process (both in `all`). ' +
    '`--auth kerberos` puts every server in Kerberos mode against a real MIT KDC and measures the Kerberos table ' +
    "instead (100:0 and 90:10, Hadoop's KMS, original and fixed, creations by SPNEGO and by cookie; in `all` as " +
    'kms-http-kerberos); with `--instances 2` or `3` also the fleet table: that many instances on one ZooKeeper ' +
    'behind a round-robin balancer, creations by cookie, the signer secrets shared through ZooKeeper, random per ' +
    "instance, and a mixed fleet with Hadoop's KMS, after two fleets of one (one instance behind the balancer, secrets shared and random). " +
    '`--profile-fleet` adds, in the first repetition, a window of its own after the measured one of each fleet case and of ' +
    "the single instance's cookie case, with every fastpath instance under V8's profiler: where an instance's CPU per request goes.",
  flags: KMS_HTTP_FLAGS,
  parseFlags: (args, { quick, all }) => parseKmsHttpFlags(args, quick, all),
  async run(ctx) {
    return withKmsServerBundle(ctx, (bundle) => runKmsHttp(ctx, bundle));
  },
};

async function runKmsHttp(
  ctx: ScenarioContext<KmsHttpSettings>,
  bundle: KmsServerBundle,
): Promise<ScenarioReport> {
  const s = ctx.flags;
  ctx.results.writeConfig({ scenario: 'kms-http', quick: ctx.quick, settings: s });
  await using kerberos = s.auth === 'kerberos' ? await startBenchKerberos() : undefined;
  if (kerberos !== undefined) {
    ctx.log(
      `Kerberos: realm ${kerberos.kdc.realm} (MIT KDC on 127.0.0.1:${kerberos.kdc.port}), creations by ${s.creationAuth.map((a) => (a === 'spnego' ? 'a Kerberos exchange each' : 'the cookie of one log-in')).join(', then by ')}`,
    );
  }
  // The same plan as the all-report's estimate (kms-http-estimate.ts), case by case.
  const baselineMs = baselineCaseMs(s);
  const passes = kmsPasses(s);
  ctx.progress.begin('kms-http', estimateKmsHttpMs(s));
  const results: KmsCaseResult[] = [];
  const baselines: BaselineRun[] = [];
  for (let rep = 0; rep < s.reps; rep++) {
    if (s.baseline) {
      ctx.progress.setDetail(`rep ${rep + 1}/${s.reps} · trivial Fastify route`);
      baselines.push(await runBaseline(ctx, rep));
      ctx.progress.advance(baselineMs);
    }
    for (const pass of passes) {
      const where = passLabel(pass);
      for (const mix of pass.mixes) {
        for (const version of versionOrder(rep, pass.versions)) {
          if (ctx.signal.aborted) throw new Error('interrupted');
          ctx.progress.setDetail(`rep ${rep + 1}/${s.reps} · ${where}${mix.label} · ${version}`);
          const result = await runKmsCase(ctx, version, mix, rep, pass, bundle, kerberos);
          results.push(result);
          const errors = result.window.counted.verify.errors + result.window.counted.create.errors;
          ctx.results.writeCase(caseId(pass, mix, version, rep), result);
          ctx.results.recordComparison(comparisonKey(pass, mix, version, rep), {
            version,
            mix: mix.label,
            rep,
            zookeeper: pass.zookeeper.topology,
            zkDelayMs: pass.zookeeper.delayMs,
            creationAuth: pass.creationAuth,
            requestsPerSec: result.window.throughput,
            verifyPerSec: result.window.throughputByOp.verify,
            createPerSec: result.window.throughputByOp.create,
            verifyP99Ms: result.latency.verify.p99Ms,
            createP99Ms: result.latency.create.count > 0 ? result.latency.create.p99Ms : null,
            serverUsPerRequest: result.cpu.serverUsPerRequest,
            serverUsPerVerification: result.cpu.serverUsPerVerification,
            zookeeperUsPerCreation: result.cpu.zookeeperUsPerCreation,
            generatorUsPerRequest: result.cpu.generatorUsPerRequest,
            serverEventLoopP99Ms: result.server.eventLoopDelayP99Ms,
            proxyCpuPercentOfOneCore: result.zookeeperSetup.proxy?.cpuPercentOfOneCore ?? null,
            errors,
            // The counts the Kerberos table's CPU per creation (per handshake with SPNEGO) divides by.
            requests: result.cpu.requests,
            creations: result.window.counted.create.ok + result.window.counted.create.errors,
            fleet: pass.fleet ?? null,
            reauthentications: result.reauthentications ?? 0,
          });
          const us = (x: number | null): string => (x === null ? '—' : x.toFixed(0));
          ctx.note(
            `${where}${mix.label} ${version} rep ${rep + 1}: ${Math.round(result.window.throughput)} req/s, verify p99 ${result.latency.verify.p99Ms.toFixed(2)} ms, ` +
              `server ${us(result.cpu.serverUsPerRequest)} µs/request, errors ${errors}`,
          );
          ctx.progress.advance(caseMs(s, pass, version, mix, rep));
        }
      }
    }
    // The comparison JSON also carries the per-mix medians so far, so a crashed run keeps them.
    ctx.results.recordComparison(
      'medians',
      s.auth === 'kerberos'
        ? kerberosMedianEntries(results)
        : medianEntries(
            results.filter((r) => r.part === passes[0]?.part),
            s,
          ),
    );
  }
  ctx.progress.end();
  const profiled = results.flatMap((r) => r.profiled ?? []);
  if (profiled.length > 0) ctx.results.writeJson('profiles.json', profiled);
  const errors = results.reduce(
    (n, r) => n + r.window.counted.verify.errors + r.window.counted.create.errors,
    0,
  );
  const report = await kmsHttpReport(ctx, results, baselines);
  if (errors > 0) {
    // Still write the report: the numbers are kept, and the failure says why they are suspect.
    ctx.results.writeReport(report.markdown);
    throw new BenchmarkCheckError(
      `${errors} request(s) failed inside the measured windows; see the case files`,
    );
  }
  return report;
}

/** A prefix for the progress line and notes naming a case's extra part. */
function passLabel(pass: KmsPass): string {
  if (pass.fleet) return `fleet ${pass.fleet.kind} ×${pass.fleet.instances} · `;
  if (pass.part === 'kerberos') return `Kerberos ${pass.creationAuth === 'spnego' ? 'SPNEGO' : 'cookie'} · `;
  if (pass.zookeeper.delayMs !== null) return `sweep ${pass.zookeeper.delayMs} ms · `;
  return pass.zookeeper.topology === 'ensemble' ? 'ensemble · ' : '';
}

/** Per mix: median requests/s of each version and the ratios, as `<dir>/comparison.json` promises. */
function medianEntries(results: readonly KmsCaseResult[], s: KmsHttpSettings): Record<string, unknown> {
  const rows = aggregateCases(
    results.map(figures),
    s.mixes.map((m) => m.label),
  );
  return Object.fromEntries(
    rows.map((r) => [
      r.mix,
      {
        hadoop: r.throughput.hadoop?.median ?? null,
        original: r.throughput.original?.median ?? null,
        fixed: r.throughput.fixed?.median ?? null,
        coalesced: r.throughput.coalesced?.median ?? null,
        fixedOverOriginal: r.fixedOverOriginal?.ratio ?? null,
        coalescedOverOriginal: r.coalescedOverOriginal?.ratio ?? null,
        originalOverHadoop: r.overHadoop.original?.ratio ?? null,
        fixedOverHadoop: r.overHadoop.fixed?.ratio ?? null,
        coalescedOverHadoop: r.overHadoop.coalesced?.ratio ?? null,
      },
    ]),
  );
}

/** Per Kerberos row (`100:0`, `90:10 SPNEGO`, …): median requests/s of each version, over Hadoop's KMS. */
function kerberosMedianEntries(results: readonly KmsCaseResult[]): Record<string, unknown> {
  const rows = kerberosRows(results.filter((r) => r.part === 'kerberos').map(kerberosFigures));
  return Object.fromEntries(
    rows.map((r) => [
      kerberosRowLabel(r),
      {
        hadoop: r.comparison.throughput.hadoop?.median ?? null,
        original: r.comparison.throughput.original?.median ?? null,
        fixed: r.comparison.throughput.fixed?.median ?? null,
        originalOverHadoop: r.comparison.overHadoop.original?.ratio ?? null,
        fixedOverHadoop: r.comparison.overHadoop.fixed?.ratio ?? null,
        serverUsPerCreation: Object.fromEntries(
          Object.entries(r.serverUsPerCreation).map(([v, x]) => [v, x.median]),
        ),
      },
    ]),
  );
}

/** The trivial Fastify route under the same load generator: this machine's ceiling. */
async function runBaseline(ctx: ScenarioContext<KmsHttpSettings>, rep: number): Promise<BaselineRun> {
  const loopDir = mkdtempSync(path.join(tmpdir(), 'fastpath-baseline-loop-'));
  try {
    return await measureBaseline(ctx, rep, loopDir);
  } finally {
    rmSync(loopDir, { recursive: true, force: true });
  }
}

async function measureBaseline(
  ctx: ScenarioContext<KmsHttpSettings>,
  rep: number,
  loopDir: string,
): Promise<BaselineRun> {
  const s = ctx.flags;
  await using server = startChild(ctx.sourcePath('scenarios/kms-http/baseline-server-main.ts'), {
    name: `baseline-${rep}`,
    logFile: ctx.results.logPath(`baseline-${rep}`),
    // The same event-loop probe as the KMS, so both are measured the same way.
    env: eventLoopProbeEnv(loopDir, ctx.sourcePath(EVENT_LOOP_PROBE_MODULE)),
    onSpawn: (c) => ctx.results.recordCommand(c, 'trivial Fastify route'),
  });
  const { port } = await server.waitForMessage<{ port: number }>(
    (m) => (m as { kind?: string }).kind === 'baseline-listening',
    30_000,
  );
  const pid = server.pid;
  if (pid === undefined) throw new BenchmarkCheckError('the trivial route server has no pid');
  await using generator = startChild<LoadInput, LoadOutput>(
    ctx.sourcePath('scenarios/kms-http/load-generator-main.ts'),
    {
      name: `load-baseline-${rep}`,
      logFile: ctx.results.logPath(`load-baseline-${rep}`),
      onSpawn: (c) => ctx.results.recordCommand(c, 'load generator, trivial route'),
    },
  );
  await generator.ready;
  const out = await generator.call(
    {
      origin: `http://127.0.0.1:${port}`,
      target: 'baseline',
      mix: '100:0',
      concurrency: s.concurrency,
      warmupMs: s.warmupMs,
      measureMs: s.measureMs,
      seed: rep,
      keyName: '',
      verifyToken: '',
      creator: '',
      requestTimeoutMs: s.requestTimeoutMs,
      watch: { cpu: { server: [pid] }, probeDirs: [loopDir] },
    },
    { timeoutMs: s.warmupMs + s.measureMs + s.requestTimeoutMs + 60_000 },
  );
  const cpu = cpuPerRequest(out.window, out.windowCpu);
  const eventLoop = readEventLoopWindow(loopDir);
  const run: BaselineRun = {
    rep,
    requestsPerSec: out.window.throughput,
    p99Ms: LatencyRecorder.fromBase64(out.latency.verify).summary().p99Ms,
    errors: out.window.counted.verify.errors,
    serverUsPerRequest: cpu.serverUsPerRequest,
    generatorUsPerRequest: cpu.generatorUsPerRequest,
    serverEventLoopP99Ms: eventLoop?.busiest?.p99Ms ?? null,
  };
  ctx.results.writeCase(`baseline-rep${rep}`, {
    ...run,
    window: out.window,
    cpu: { ...cpu, windowCpu: out.windowCpu },
    eventLoop,
    generatorEventLoopP99Ms: out.generatorEventLoopP99Ms,
  });
  return run;
}
