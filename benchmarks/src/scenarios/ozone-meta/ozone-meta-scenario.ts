import { writeFileSync } from 'node:fs';
import os from 'node:os';
import {
  barChartSvg,
  BenchmarkCheckError,
  startChild,
  type Scenario,
  type ScenarioContext,
} from '../../harness/index.js';
import { treeCpuSeconds } from '../../harness/process-cpu.js';
import { startBenchmarkKdc, type BenchmarkKdc } from '../ozone-read/cluster-security.js';
import {
  securityCost as securityCostRows,
  securityCostGoals,
  type LevelRounds,
} from '../ozone-read/security-cost.js';
import { writeSecurityCostCharts } from '../ozone-read/security-cost-report.js';
import {
  anySecure,
  SECURITY_LEVEL_LABEL,
  securityMark,
  type SecurityLevel,
} from '../ozone-read/security-levels.js';
import { startJavaMetaClient } from './java-meta-client.js';
import { startMetaCluster, type MetaCluster } from './meta-cluster.js';
import {
  compareOp,
  metaGoals,
  metaLevelRounds,
  problemCount,
  verifyTotals,
  type OpComparison,
  type RoundSample,
  type VerifyTotals,
} from './meta-figures.js';
import {
  META_SECURITY_COST_LABELS,
  ozoneMetaReport,
  type LevelVerify,
  type ProfiledWindow,
} from './meta-report.js';
import {
  LIST_KEYS,
  listPrefix,
  META_BUCKET,
  META_CLIENT_LABEL,
  META_OP_LABEL,
  META_VOLUME,
  roundPrefix,
  type InitAnswer,
  type MetaCall,
  type MetaClient,
  type MetaOp,
  type VerifyCounts,
  type WindowSample,
} from './meta-workload.js';
import {
  estimateRunMs,
  levelClients,
  OZONE_META_FLAGS,
  parseOzoneMetaFlags,
  profiledClients,
  roundMs,
  setupMs,
  type OzoneMetaSettings,
} from './ozone-meta-settings.js';

/** A call's bound beyond its window: a loaded machine, a failover on the HA cluster. */
const CALL_SLACK_MS = 300_000;

/** One client process, whichever language: it answers the calls of meta-workload.ts. */
interface MetaClientProcess extends AsyncDisposable {
  call(request: MetaCall, timeoutMs: number): Promise<unknown>;
}

async function startClient(
  ctx: ScenarioContext<OzoneMetaSettings>,
  client: MetaClient,
  cluster: MetaCluster,
  level: SecurityLevel,
  kdc: BenchmarkKdc | undefined,
): Promise<MetaClientProcess> {
  const name = `${securityMark(level)}${client}`;
  if (client === 'java') {
    const jvm = await startJavaMetaClient(ctx, cluster.javaArgs);
    return {
      call: (request, timeoutMs) => jvm.call(request, timeoutMs),
      [Symbol.asyncDispose]: () => jvm[Symbol.asyncDispose](),
    };
  }
  const child = startChild<MetaCall, unknown>(ctx.sourcePath('scenarios/ozone-meta/meta-client-main.ts'), {
    name,
    logFile: ctx.results.logPath(name),
    // libkrb5 in the client process reads the realm from its environment.
    ...(level !== 'none' && kdc && { env: kdc.clientEnv }),
    onSpawn: (c) =>
      ctx.results.recordCommand(c, `${META_CLIENT_LABEL[client]} (a client under test) in its own process`),
  });
  await child.ready;
  return {
    call: (request, timeoutMs) => child.call(request, { timeoutMs }),
    [Symbol.asyncDispose]: () => child.close(),
  };
}

/** What one security level's cluster gave: its figures and checks, each client's rounds for the security cost. */
interface LevelResult {
  level: SecurityLevel;
  ops: OpComparison[];
  verify: Partial<Record<MetaClient, VerifyTotals>>;
  rounds: LevelRounds[];
  /** With `--profile`: each fastpath client's profiled window of each operation. */
  profiled: ProfiledWindow[];
  cluster: string;
  layout: string;
}

/** One level's cluster and clients, up and ready, and the steps of its rounds. */
interface OpenLevel extends AsyncDisposable {
  readonly level: SecurityLevel;
  /** Every client starts round `round`'s keys (round 0 is the unmeasured warm-up). */
  begin(round: number | 'profile'): Promise<void>;
  /** Every client's window of `op` (the `opIndex`-th operation) in `round`, each going first in turn. */
  window(op: MetaOp, opIndex: number, round: number): Promise<void>;
  /** Each fastpath client's window of `op` under the profiler, after {@link begin}('profile'). */
  profileWindow(op: MetaOp): Promise<void>;
  /** Each client lists its round's keys (not measured) against what its operations should have left. */
  check(when: string, round: number): Promise<void>;
  result(): LevelResult;
}

/** The label of a round at a level, for progress and the log. */
function roundLabel(s: OzoneMetaSettings, level: SecurityLevel, round: number): string {
  const at = s.security.length > 1 || level !== 'none' ? ` (${SECURITY_LEVEL_LABEL[level]})` : '';
  return `${round === 0 ? 'warm-up' : `round ${round}/${s.rounds}`}${at}`;
}

/** Starts one level's cluster and its clients (each in a process of its own), their keys to list made. */
async function openLevel(
  ctx: ScenarioContext<OzoneMetaSettings>,
  level: SecurityLevel,
  kdc: BenchmarkKdc | undefined,
): Promise<OpenLevel> {
  const s = ctx.flags;
  const clients = levelClients(s, level);
  const mark = securityMark(level);
  const at = s.security.length > 1 || level !== 'none' ? ` (${SECURITY_LEVEL_LABEL[level]})` : '';
  const warmupUnits = s.warmupMs > 0 ? roundMs(s, s.warmupMs) : 0;
  const roundUnits = roundMs(s, s.windowMs);
  ctx.progress.setDetail(`starting the ${s.cluster} cluster${at}`);
  const cluster = await startMetaCluster(ctx, level, kdc);
  const processes = new Map<MetaClient, MetaClientProcess>();
  const dispose = async (): Promise<void> => {
    for (const p of processes.values()) await p[Symbol.asyncDispose]();
    await cluster[Symbol.asyncDispose]();
  };
  let layout = '';
  try {
    for (const client of clients) {
      ctx.progress.setDetail(`starting ${META_CLIENT_LABEL[client]}${at} and its ${LIST_KEYS} keys to list`);
      const p = await startClient(ctx, client, cluster, level, kdc);
      processes.set(client, p);
      const init = (await p.call(
        {
          op: 'init',
          target: cluster.target(client),
          volume: META_VOLUME,
          bucket: META_BUCKET,
          listPrefix: listPrefix(client),
          listKeys: LIST_KEYS,
        },
        CALL_SLACK_MS,
      )) as InitAnswer;
      layout = init.layout;
      ctx.log(
        `${mark}${client}: transport ${init.transport}${init.version ? `, Ozone ${init.version}` : ''}, bucket layout ${init.layout}`,
      );
    }
  } catch (err) {
    await dispose();
    throw err;
  }
  ctx.progress.advance(setupMs(s, level));

  const measured = new Map<MetaOp, Partial<Record<MetaClient, RoundSample[]>>>(
    s.ops.map((op) => [op, Object.fromEntries(clients.map((c) => [c, []]))]),
  );
  const verified: Partial<Record<MetaClient, VerifyCounts[]>> = Object.fromEntries(
    clients.map((c) => [c, []]),
  );
  const profiled: ProfiledWindow[] = [];
  return {
    level,
    async begin(round) {
      const tag = round === 'profile' ? 'profile' : round === 0 ? 'warmup' : `r${round}`;
      for (const [client, p] of processes)
        await p.call({ op: 'begin', prefix: roundPrefix(client, tag) }, CALL_SLACK_MS);
    },
    async profileWindow(op) {
      for (const client of profiledClients(s, level)) {
        if (ctx.signal.aborted) return;
        ctx.progress.setDetail(`profiling${at} · ${META_OP_LABEL[op]} · ${client}`);
        const file = ctx.results.path(`profiles/${mark}${op}-${client}.cpuprofile`);
        const sample = (await processes
          .get(client)!
          .call(
            { op: 'window', operation: op, workers: s.workers, windowMs: s.windowMs, profilePath: file },
            s.windowMs + CALL_SLACK_MS,
          )) as WindowSample;
        ctx.log(
          `profiled${at} · ${op} · ${client}: ${sample.ops} ops, CPU ${sample.cpuMs.toFixed(0)} ms, profile in ${file}`,
        );
        profiled.push({
          level,
          op,
          client,
          ops: sample.ops,
          errors: sample.errors,
          cpuMs: sample.cpuMs,
          profile: sample.profile!,
          topFunctions: sample.topFunctions ?? [],
        });
        ctx.progress.advance(roundUnits / s.ops.length);
      }
    },
    async window(op, opIndex, round) {
      const windowMs = round === 0 ? s.warmupMs : s.windowMs;
      const what = roundLabel(s, level, round);
      for (const client of turnOrder(clients, round, opIndex)) {
        if (ctx.signal.aborted) return;
        ctx.progress.setDetail(`${what} · ${META_OP_LABEL[op]} · ${client}`);
        const clusterBefore = treeCpuSeconds(cluster.pid);
        const sample = (await processes
          .get(client)!
          .call(
            { op: 'window', operation: op, workers: s.workers, windowMs },
            windowMs + CALL_SLACK_MS,
          )) as WindowSample;
        const clusterAfter = treeCpuSeconds(cluster.pid);
        if (clusterBefore !== null && clusterAfter !== null)
          sample.clusterCpuMs = (clusterAfter - clusterBefore) * 1000;
        const rate = sample.elapsedMs > 0 ? (sample.ops * 1000) / sample.elapsedMs : 0;
        ctx.log(
          `${what} · ${op} · ${client}: ${sample.ops} ops in ${sample.elapsedMs.toFixed(0)} ms (${rate.toFixed(0)}/s), CPU ${sample.cpuMs.toFixed(0)} ms, errors ${sample.errors}${sample.firstError ? ` (${sample.firstError.split('\n')[0]})` : ''}`,
        );
        if (round > 0) {
          measured.get(op)![client]!.push({ round, sample });
          ctx.results.writeCase(`${mark}${op}-${client}-r${round}`, {
            op,
            client,
            round,
            ...(mark ? { security: level } : {}),
            ...sample,
            latenciesUs: undefined,
          });
        }
        ctx.progress.advance((round === 0 ? warmupUnits : roundUnits) / s.ops.length);
      }
    },
    async check(when, round) {
      for (const [client, p] of processes) {
        ctx.progress.setDetail(`${when} · listing ${client}'s keys`);
        const v = (await p.call({ op: 'verify' }, CALL_SLACK_MS)) as VerifyCounts;
        if (round > 0) verified[client]!.push(v);
        if (v.missing > 0 || v.unexpected > 0)
          ctx.note(
            `${when} · ${client}: ${v.missing} key(s) missing, ${v.unexpected} left over (${v.firstProblem ?? ''})`,
          );
      }
    },
    result() {
      // Today's results keep their shape: the level is written only when the run has levels.
      const levels = s.security.length > 1 || level !== 'none';
      return {
        level,
        ops: s.ops.map((op) => ({
          ...compareOp(op, measured.get(op)!),
          ...(levels ? { security: level } : {}),
        })),
        verify: Object.fromEntries(clients.map((c) => [c, verifyTotals(verified[c] ?? [])])),
        rounds: s.ops.flatMap((op) => metaLevelRounds(level, op, measured.get(op)!)),
        profiled,
        cluster: cluster.description,
        layout,
      };
    },
    [Symbol.asyncDispose]: dispose,
  };
}

/**
 * Every level's rounds, the levels paired window by window: within a round each operation runs on
 * every level back to back (the levels taking turns going first), so that a slow spell of the
 * machine or of a cluster falls on both sides of a secure ÷ unsecured ratio, not on one level's
 * whole run. Each level keeps its own order of operations (each uses what the ones before it
 * made) and its own checks.
 */
async function runPairedRounds(ctx: ScenarioContext<OzoneMetaSettings>, levels: OpenLevel[]): Promise<void> {
  const s = ctx.flags;
  const runRound = async (round: number): Promise<void> => {
    for (const l of levels) await l.begin(round);
    for (const [i, op] of s.ops.entries()) {
      for (const l of turnOrder(levels, round, i)) {
        if (ctx.signal.aborted) return;
        // The delete window leaves few keys or none: every key is checked before it too.
        if (op === 'delete' && i > 0)
          await l.check(`${roundLabel(s, l.level, round)}, before the deletes`, round);
        await l.window(op, i, round);
      }
    }
    for (const l of levels) await l.check(roundLabel(s, l.level, round), round);
  };
  if (s.warmupMs > 0) await runRound(0);
  for (let round = 1; round <= s.rounds && !ctx.signal.aborted; round++) {
    await runRound(round);
    ctx.note(`round ${round}/${s.rounds} done`);
  }
  if (!s.profile) return;
  // After the measured rounds, so that the profiler's cost is in no figure; the levels still take
  // turns, operation by operation, each on keys of a round of its own.
  for (const l of levels) await l.begin('profile');
  for (const [i, op] of s.ops.entries())
    for (const l of turnOrder(levels, 0, i)) if (!ctx.signal.aborted) await l.profileWindow(op);
  ctx.note('profiled windows done');
}

/** The clients' order for one operation of one round: each goes first in turn. */
export function turnOrder<T>(clients: readonly T[], round: number, opIndex: number): T[] {
  const k = (round + opIndex) % clients.length;
  return [...clients.slice(k), ...clients.slice(0, k)];
}

export const ozoneMetaScenario: Scenario<OzoneMetaSettings> = {
  name: 'ozone-meta',
  title:
    "Ozone metadata operations: fastpath's client over Hadoop RPC and gRPC against Ozone's own Java client",
  description:
    'The OM-bound operations a real workload is full of, one timed window each with 16 workers per client: ' +
    'create+commit of an empty key and of a 1-byte key, lookup (GetKeyInfo), getFileStatus, a listing of a ' +
    'directory of 1,000 keys (listed whole), rename, delete, in a FILE_SYSTEM_OPTIMIZED bucket. Clients: ' +
    "fastpath's client over Hadoop RPC and over gRPC, and with `--cluster real` (one OM) or `real-ha` (three " +
    "OMs, every client through the service id) Ozone's own Java client, each in a process of its own; per " +
    'operation and client ops/s, p50/p99 and client process CPU per op, the clients taking turns going first. ' +
    'Renames move the empty keys back and forth within their directory; the delete window removes them, then the ' +
    "1-byte keys. Every round's keys are listed before the delete window and at the round's end: created keys " +
    'found under their current names, deleted keys gone. The default run is the embedded mini cluster, fastpath alone. ' +
    'With `--security` (real cluster, one OM) every level runs on a cluster of its own, all up at once and their ' +
    'windows paired (Kerberos; Kerberos with ' +
    "privacy and TLS), every client logged in from the Kerberos user's keytab, and reports each client's secure ÷ " +
    'unsecured ops/s and CPU per op beside the goal: fastpath pays no more for security than the Java client does.',
  flags: OZONE_META_FLAGS,
  parseFlags: (args, { quick }) => parseOzoneMetaFlags(args, quick),
  async run(ctx) {
    const s = ctx.flags;
    ctx.results.writeConfig({ scenario: 'ozone-meta', quick: ctx.quick, settings: s });
    const loadAtStart = os.loadavg();
    ctx.progress.begin('ozone-meta', estimateRunMs(s));
    await using kdc = anySecure(s.security) ? await startBenchmarkKdc(ctx) : undefined;
    // Every level's cluster up at once (about 2 GB of memory each), so that their windows pair.
    const open: OpenLevel[] = [];
    try {
      for (const level of s.security) {
        if (ctx.signal.aborted) break;
        open.push(await openLevel(ctx, level, kdc));
      }
      await runPairedRounds(ctx, open);
    } finally {
      for (const l of [...open].reverse()) await l[Symbol.asyncDispose]();
    }
    const levels: LevelResult[] = open.map((l) => l.result());
    ctx.progress.end();
    const loadAtEnd = os.loadavg();
    ctx.results.writeJson('load-average.json', { loadAtStart, loadAtEnd, cores: os.cpus().length });

    const ops: OpComparison[] = levels.flatMap((l) => l.ops);
    for (const l of levels) {
      const mark = securityMark(l.level);
      for (const o of l.ops) ctx.results.recordComparison(`${mark}op-${o.op}`, o);
      ctx.results.recordComparison(`${mark}verify`, l.verify);
    }
    const securityCost = securityCostRows(levels.flatMap((l) => l.rounds));
    const goals = [
      // Issue 31's goals are on today's (unsecured) cluster, where both transports run.
      ...metaGoals(ops.filter((o) => (o.security ?? 'none') === 'none')),
      ...securityCostGoals(
        securityCost,
        { client: 'java', label: META_SECURITY_COST_LABELS.baselineLabel },
        META_SECURITY_COST_LABELS.clientLabel,
      ),
    ];
    ctx.results.recordComparison('goals', goals);
    if (securityCost.length > 0) ctx.results.recordComparison('security-cost', securityCost);

    const multi = s.security.length > 1 || s.security[0] !== 'none';
    const charted = ops.filter((o) => Object.keys(o.clients).length > 0);
    if (charted.length > 0)
      await ctx.results.writeChart(
        'ozone-meta-ops',
        "ops/s by operation: fastpath's two OM transports and Ozone's Java client",
        barChartSvg({
          title: 'Ozone metadata operations, ops/s (16 workers per client)',
          categories: charted.map((o) =>
            multi ? `${o.label} · ${SECURITY_LEVEL_LABEL[o.security ?? 'none']}` : o.label,
          ),
          series: s.clients.map((c) => ({
            name: META_CLIENT_LABEL[c],
            points: charted.map((o) => {
              const f = o.clients[c]?.opsPerSec;
              return f ? { value: f.median, min: f.min, max: f.max } : null;
            }),
          })),
          yLabel: 'ops/s',
        }),
      );
    if (securityCost.length > 0)
      await writeSecurityCostCharts(ctx.results, securityCost, s.rounds, META_SECURITY_COST_LABELS, {
        scenario: 'ozone-meta',
        who: 'client',
        throughput: 'ops/s',
        cpu: 'client CPU per op',
      });
    const checks: LevelVerify[] = levels.map((l) => ({
      ...(multi ? { security: l.level } : {}),
      verify: l.verify,
    }));
    const profiled = levels.flatMap((l) => l.profiled);
    if (profiled.length > 0) ctx.results.writeJson('profiles.json', profiled);
    const markdown = ozoneMetaReport(ops, checks, goals, {
      securityCost,
      quick: ctx.quick,
      settings: s,
      cluster: levels.map((l) => l.cluster).join(' | '),
      layout: levels[0]?.layout ?? '',
      loadAtStart,
      loadAtEnd,
      cores: os.cpus().length,
      profiled,
    });
    const problems =
      levels.reduce((n, l) => n + problemCount(l.ops, l.verify), 0) +
      profiled.reduce((n, p) => n + p.errors, 0);
    if (problems > 0) {
      // The harness's report of a failed run holds the error only: the tables go beside it.
      writeFileSync(ctx.results.path('tables.md'), `${markdown}\n`);
      throw new BenchmarkCheckError(
        `${problems} failed operation(s), missing or left-over key(s), or operations with nothing done; see tables.md and the case files`,
      );
    }
    return { markdown, summary: markdown };
  },
};
