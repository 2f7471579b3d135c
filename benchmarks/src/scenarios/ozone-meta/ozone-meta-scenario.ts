import { writeFileSync } from 'node:fs';
import os from 'node:os';
import {
  barChartSvg,
  BenchmarkCheckError,
  startChild,
  type Scenario,
  type ScenarioContext,
} from '../../harness/index.js';
import { startJavaMetaClient } from './java-meta-client.js';
import { startMetaCluster } from './meta-cluster.js';
import {
  compareOp,
  metaGoals,
  problemCount,
  verifyTotals,
  type OpComparison,
  type RoundSample,
  type VerifyTotals,
} from './meta-figures.js';
import { ozoneMetaReport } from './meta-report.js';
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
  OZONE_META_FLAGS,
  parseOzoneMetaFlags,
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
): Promise<MetaClientProcess> {
  if (client === 'java') {
    const jvm = await startJavaMetaClient(ctx);
    return {
      call: (request, timeoutMs) => jvm.call(request, timeoutMs),
      [Symbol.asyncDispose]: () => jvm[Symbol.asyncDispose](),
    };
  }
  const child = startChild<MetaCall, unknown>(ctx.sourcePath('scenarios/ozone-meta/meta-client-main.ts'), {
    name: client,
    logFile: ctx.results.logPath(client),
    onSpawn: (c) =>
      ctx.results.recordCommand(c, `${META_CLIENT_LABEL[client]} (a client under test) in its own process`),
  });
  await child.ready;
  return {
    call: (request, timeoutMs) => child.call(request, { timeoutMs }),
    [Symbol.asyncDispose]: () => child.close(),
  };
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
    'found under their current names, deleted keys gone. The default run is the embedded mini cluster, fastpath alone.',
  flags: OZONE_META_FLAGS,
  parseFlags: (args, { quick }) => parseOzoneMetaFlags(args, quick),
  async run(ctx) {
    const s = ctx.flags;
    ctx.results.writeConfig({ scenario: 'ozone-meta', quick: ctx.quick, settings: s });
    const loadAtStart = os.loadavg();
    const setup = setupMs(s);
    const warmupUnits = s.warmupMs > 0 ? roundMs(s, s.warmupMs) : 0;
    const roundUnits = roundMs(s, s.windowMs);
    ctx.progress.begin('ozone-meta', estimateRunMs(s));
    ctx.progress.setDetail(`starting the ${s.cluster} cluster`);
    await using cluster = await startMetaCluster(ctx);

    const processes = new Map<MetaClient, MetaClientProcess>();
    await using _stop = {
      [Symbol.asyncDispose]: async () => {
        for (const p of processes.values()) await p[Symbol.asyncDispose]();
      },
    };
    let layout = '';
    for (const client of s.clients) {
      ctx.progress.setDetail(`starting ${META_CLIENT_LABEL[client]} and its ${LIST_KEYS} keys to list`);
      const p = await startClient(ctx, client);
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
        `${client}: transport ${init.transport}${init.version ? `, Ozone ${init.version}` : ''}, bucket layout ${init.layout}`,
      );
    }
    ctx.progress.advance(setup);

    const measured = new Map<MetaOp, Partial<Record<MetaClient, RoundSample[]>>>(
      s.ops.map((op) => [op, Object.fromEntries(s.clients.map((c) => [c, []]))]),
    );
    const verified: Partial<Record<MetaClient, VerifyCounts[]>> = Object.fromEntries(
      s.clients.map((c) => [c, []]),
    );
    /** Each client lists its round's keys (not measured) against what its operations should have left. */
    const check = async (what: string, round: number): Promise<void> => {
      for (const [client, p] of processes) {
        ctx.progress.setDetail(`${what} · listing ${client}'s keys`);
        const v = (await p.call({ op: 'verify' }, CALL_SLACK_MS)) as VerifyCounts;
        if (round > 0) verified[client]!.push(v);
        if (v.missing > 0 || v.unexpected > 0)
          ctx.note(
            `${what} · ${client}: ${v.missing} key(s) missing, ${v.unexpected} left over (${v.firstProblem ?? ''})`,
          );
      }
    };
    /** One round of every operation, every client; round 0 is the unmeasured warm-up. */
    const runRound = async (round: number): Promise<void> => {
      const tag = round === 0 ? 'warmup' : `r${round}`;
      const windowMs = round === 0 ? s.warmupMs : s.windowMs;
      const what = round === 0 ? 'warm-up' : `round ${round}/${s.rounds}`;
      for (const [client, p] of processes)
        await p.call({ op: 'begin', prefix: roundPrefix(client, tag) }, CALL_SLACK_MS);
      for (const [i, op] of s.ops.entries()) {
        // The delete window leaves few keys or none: every key is checked before it too.
        if (op === 'delete' && i > 0) await check(`${what}, before the deletes`, round);
        for (const client of turnOrder(s.clients, round, i)) {
          if (ctx.signal.aborted) return;
          ctx.progress.setDetail(`${what} · ${META_OP_LABEL[op]} · ${client}`);
          const sample = (await processes
            .get(client)!
            .call(
              { op: 'window', operation: op, workers: s.workers, windowMs },
              windowMs + CALL_SLACK_MS,
            )) as WindowSample;
          const rate = sample.elapsedMs > 0 ? (sample.ops * 1000) / sample.elapsedMs : 0;
          ctx.log(
            `${what} · ${op} · ${client}: ${sample.ops} ops in ${sample.elapsedMs.toFixed(0)} ms (${rate.toFixed(0)}/s), CPU ${sample.cpuMs.toFixed(0)} ms, errors ${sample.errors}${sample.firstError ? ` (${sample.firstError.split('\n')[0]})` : ''}`,
          );
          if (round > 0) {
            measured.get(op)![client]!.push({ round, sample });
            ctx.results.writeCase(`${op}-${client}-r${round}`, {
              op,
              client,
              round,
              ...sample,
              latenciesUs: undefined,
            });
          }
          ctx.progress.advance((round === 0 ? warmupUnits : roundUnits) / s.ops.length);
        }
      }
      await check(what, round);
    };
    if (s.warmupMs > 0) await runRound(0);
    for (let round = 1; round <= s.rounds && !ctx.signal.aborted; round++) {
      await runRound(round);
      ctx.note(`round ${round}/${s.rounds} done`);
    }
    ctx.progress.end();
    const loadAtEnd = os.loadavg();
    ctx.results.writeJson('load-average.json', { loadAtStart, loadAtEnd, cores: os.cpus().length });

    const ops: OpComparison[] = s.ops.map((op) => compareOp(op, measured.get(op)!));
    const verify: Partial<Record<MetaClient, VerifyTotals>> = Object.fromEntries(
      s.clients.map((c) => [c, verifyTotals(verified[c] ?? [])]),
    );
    for (const o of ops) ctx.results.recordComparison(`op-${o.op}`, o);
    ctx.results.recordComparison('verify', verify);
    const goals = metaGoals(ops);
    ctx.results.recordComparison('goals', goals);

    const charted = ops.filter((o) => s.clients.every((c) => o.clients[c] !== undefined));
    if (charted.length > 0)
      await ctx.results.writeChart(
        'ozone-meta-ops',
        "ops/s by operation: fastpath's two OM transports and Ozone's Java client",
        barChartSvg({
          title: 'Ozone metadata operations, ops/s (16 workers per client)',
          categories: charted.map((o) => o.label),
          series: s.clients.map((c) => ({
            name: META_CLIENT_LABEL[c],
            points: charted.map((o) => {
              const f = o.clients[c]!.opsPerSec;
              return { value: f.median, min: f.min, max: f.max };
            }),
          })),
          yLabel: 'ops/s',
        }),
      );
    const markdown = ozoneMetaReport(ops, verify, goals, {
      quick: ctx.quick,
      settings: s,
      cluster: cluster.description,
      layout,
      loadAtStart,
      loadAtEnd,
      cores: os.cpus().length,
    });
    const problems = problemCount(ops, verify);
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
