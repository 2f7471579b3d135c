import type { LatencySummary } from '@fastpath/core';
import {
  BenchmarkCheckError,
  barChartSvg,
  compareRounds,
  latencyChartSvg,
  mergeLatencies,
  startWorker,
  summarize,
  type Scenario,
  type ScenarioContext,
  type WorkerHandle,
} from '../../harness/index.js';
import type { DrawCall, DrawResult } from './draw-worker.js';
import {
  BASELINE_VARIANT,
  BULK_VARIANT_IDS,
  DRAW_VARIANTS,
  PER_CALL_VARIANT,
  type BulkVariantId,
  type DrawVariantId,
} from './draw-variants.js';
import {
  latencyChart,
  ratioChart,
  secureRandomMarkdown,
  secureRandomSummary,
  threadsTitle,
  throughputChart,
} from './secure-random-report.js';
import {
  aggregateRound,
  evaluateAllocatingReference,
  evaluateGoals,
  pairedRatio,
  type BulkCase,
  type DrawCase,
  type DrawRound,
} from './secure-random-results.js';
import {
  parseSecureRandomFlags,
  SECURE_RANDOM_FLAGS,
  type SecureRandomSettings,
} from './secure-random-settings.js';

type DrawWorker = WorkerHandle<DrawCall, DrawResult>;
type Ctx = ScenarioContext<SecureRandomSettings>;

// Calls reach the workers within a few ms; every worker then waits for the same start time, so
// all threads of a round draw over the same wall-clock window.
const START_DELAY_MS = 50;
const CALL_GRACE_MS = 120_000;

function rotate<T>(items: readonly T[], by: number): T[] {
  const k = items.length ? by % items.length : 0;
  return [...items.slice(k), ...items.slice(0, k)];
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new Error('interrupted');
}

/** Runs one call on every worker at once and collects the answers. */
async function callAll(
  workers: readonly DrawWorker[],
  call: (startAtMs: number) => DrawCall,
  samples: string[],
): Promise<DrawResult[]> {
  const startAtMs = Date.now() + START_DELAY_MS;
  const input = call(startAtMs);
  const results = await Promise.all(
    workers.map((w) => w.call(input, { timeoutMs: input.durationMs + START_DELAY_MS + CALL_GRACE_MS })),
  );
  samples.push(...results.map((r) => r.sample));
  return results;
}

async function runThreadCount(
  ctx: Ctx,
  workers: readonly DrawWorker[],
  samples: string[],
): Promise<DrawCase[]> {
  const s = ctx.flags;
  const threads = workers.length;
  const title = threadsTitle(threads);
  const session =
    (kind: 'throughput' | 'latency', variant: DrawVariantId, durationMs: number) => (startAtMs: number) =>
      ({ kind, variant, keyBytes: s.keyBytes, durationMs, startAtMs }) satisfies DrawCall;

  const warmups = new Map<DrawVariantId, DrawRound | null>();
  for (const variant of s.variants) {
    throwIfAborted(ctx.signal);
    ctx.progress.setDetail(`${title} · ${DRAW_VARIANTS[variant].label} · warm-up`);
    warmups.set(
      variant,
      s.warmupMs > 0
        ? aggregateRound(await callAll(workers, session('throughput', variant, s.warmupMs), samples))
        : null,
    );
    ctx.progress.advance(s.warmupMs);
  }
  // Round r runs every variant once, in an order rotated by r, so drift of a shared machine hits
  // all variants alike and round r of a variant pairs with round r of the baseline.
  const rounds = new Map<DrawVariantId, DrawRound[]>(s.variants.map((v) => [v, []]));
  for (let r = 0; r < s.rounds; r++) {
    for (const variant of rotate(s.variants, r)) {
      throwIfAborted(ctx.signal);
      ctx.progress.setDetail(`${title} · ${DRAW_VARIANTS[variant].label} · round ${r + 1}/${s.rounds}`);
      const results = await callAll(workers, session('throughput', variant, s.roundMs), samples);
      rounds.get(variant)!.push(aggregateRound(results));
      ctx.progress.advance(s.roundMs);
    }
  }
  const latencies = new Map<DrawVariantId, LatencySummary>();
  if (s.latencyMs > 0) {
    for (const variant of s.variants) {
      throwIfAborted(ctx.signal);
      ctx.progress.setDetail(`${title} · ${DRAW_VARIANTS[variant].label} · per-op latency`);
      const results = await callAll(workers, session('latency', variant, s.latencyMs), samples);
      latencies.set(variant, mergeLatencies(results.map((x) => x.latency ?? '')).summary());
      ctx.progress.advance(s.latencyMs);
    }
  }

  const opsOf = (variant: DrawVariantId): number[] => rounds.get(variant)!.map((x) => x.opsPerSec);
  const cases = s.variants.map((variant): DrawCase => ({
    threads,
    variant,
    warmup: warmups.get(variant) ?? null,
    rounds: rounds.get(variant)!,
    opsPerSec: summarize(opsOf(variant)),
    vsBaseline: compareRounds(opsOf(variant), opsOf(BASELINE_VARIANT)),
    vsPerCall: s.variants.includes(PER_CALL_VARIANT)
      ? compareRounds(opsOf(variant), opsOf(PER_CALL_VARIANT))
      : null,
    latency: latencies.get(variant) ?? null,
  }));
  for (const c of cases) {
    ctx.results.writeCase(`${threads}t-${c.variant}`, {
      ...c,
      benchmark: DRAW_VARIANTS[c.variant].benchmark,
      settings: { roundMs: s.roundMs, warmupMs: s.warmupMs, latencyMs: s.latencyMs, keyBytes: s.keyBytes },
    });
    ctx.results.recordComparison(`${threads}t/${c.variant}`, {
      threads,
      benchmark: DRAW_VARIANTS[c.variant].benchmark,
      medianOpsPerSec: c.opsPerSec.median,
      minOpsPerSec: c.opsPerSec.min,
      maxOpsPerSec: c.opsPerSec.max,
      ratioToHadoopStyle: c.vsBaseline.ratio,
      ratioToHadoopStyleMin: c.vsBaseline.min,
      ratioToHadoopStyleMax: c.vsBaseline.max,
      ratioToRandomFillSync: c.vsPerCall?.ratio ?? null,
      ratioToRandomFillSyncMin: c.vsPerCall?.min ?? null,
      ratioToRandomFillSyncMax: c.vsPerCall?.max ?? null,
      p50Ms: c.latency?.p50Ms ?? null,
      p99Ms: c.latency?.p99Ms ?? null,
      p999Ms: c.latency?.p999Ms ?? null,
      maxMs: c.latency?.maxMs ?? null,
    });
  }
  return cases;
}

async function runBulk(ctx: Ctx, worker: DrawWorker, samples: string[]): Promise<BulkCase[]> {
  const s = ctx.flags;
  const out: BulkCase[] = [];
  for (const bytes of s.bulkBytes) {
    // One call runs both variants in alternating slices (see draw-worker.ts): each round pairs them
    // over the same stretch of time.
    const bulk = (startAtMs: number) =>
      ({ kind: 'bulk', bytes, durationMs: s.bulkRoundMs, startAtMs }) satisfies DrawCall;
    throwIfAborted(ctx.signal);
    ctx.progress.setDetail(`bulk ${bytes} B · warm-up`);
    await callAll([worker], bulk, samples);
    ctx.progress.advance(s.bulkRoundMs);
    const rounds = new Map<BulkVariantId, DrawRound[]>(BULK_VARIANT_IDS.map((v) => [v, []]));
    for (let r = 0; r < s.bulkRounds; r++) {
      throwIfAborted(ctx.signal);
      ctx.progress.setDetail(`bulk ${bytes} B · round ${r + 1}/${s.bulkRounds}`);
      const [result] = await callAll([worker], bulk, samples);
      for (const variant of BULK_VARIANT_IDS) {
        const measured = result?.bulk?.[variant];
        if (!measured) throw new Error(`bulk round returned no measurement of ${variant}`);
        rounds.get(variant)!.push(aggregateRound([measured]));
      }
      ctx.progress.advance(s.bulkRoundMs);
    }
    const bytesPerSec = (variant: BulkVariantId): number[] =>
      rounds.get(variant)!.map((x) => x.opsPerSec * bytes);
    for (const variant of BULK_VARIANT_IDS) {
      const c: BulkCase = {
        bytes,
        variant,
        rounds: rounds.get(variant)!,
        bytesPerSec: summarize(bytesPerSec(variant)),
        vsRandomFillSync: pairedRatio(bytesPerSec(variant), bytesPerSec('random-fill-sync')),
      };
      out.push(c);
      ctx.results.writeCase(`bulk-${bytes}-${variant}`, c);
      ctx.results.recordComparison(`bulk/${bytes}/${variant}`, {
        bytes,
        variant,
        medianBytesPerSec: c.bytesPerSec.median,
        minBytesPerSec: c.bytesPerSec.min,
        maxBytesPerSec: c.bytesPerSec.max,
        ratioToRandomFillSync: c.vsRandomFillSync.ratio,
        ratioMin: c.vsRandomFillSync.min,
        ratioMax: c.vsRandomFillSync.max,
      });
    }
  }
  return out;
}

function plannedMs(s: SecureRandomSettings): number {
  const perThreadCount = s.variants.length * (s.warmupMs + s.rounds * s.roundMs + s.latencyMs);
  const bulk = s.bulkBytes.length * (1 + s.bulkRounds) * s.bulkRoundMs;
  return s.threadCounts.length * perThreadCount + bulk;
}

/**
 * HADOOP-16011 in Node: the key material of one encrypted connection drawn the way Hadoop did
 * before the fix (a new device reader per connection), with the device reader kept open, with
 * Node's CSPRNG per call, and with the pooled generator, on 1 and on 10 worker threads.
 */
export const secureRandomScenario: Scenario<SecureRandomSettings> = {
  name: 'secure-random',
  title: 'Secure random: session keys per connection (HADOOP-16011)',
  description:
    "Throughput and per-op latency of drawing one encrypted connection's key material (two keys, two IVs) " +
    'into caller-owned buffers Hadoop-style (a new /dev/urandom reader with an 8 KiB reservoir per connection, ' +
    'the baseline), with one device reader kept open, with crypto.randomFillSync per part, and with the pooled ' +
    'generator of @fastpath/secure-random (module default and own instance); crypto.randomBytes and the ' +
    'allocating generateSessionKeys as allocating rows; on 1 and 10 worker threads drawing at once, side by ' +
    'side in interleaved rounds; plus bulk draws of 64 KiB and 1 MiB against randomFillSync.',
  flags: SECURE_RANDOM_FLAGS,
  parseFlags: (args, { quick }) => parseSecureRandomFlags(args, quick),
  async run(ctx) {
    const s = ctx.flags;
    ctx.results.writeConfig({ scenario: 'secure-random', quick: ctx.quick, settings: s });
    const threadsNeeded = Math.max(...s.threadCounts);
    ctx.progress.begin('secure-random', plannedMs(s));
    ctx.progress.setDetail(`starting ${threadsNeeded} worker threads`);
    const workerPath = ctx.sourcePath('scenarios/secure-random/draw-worker.ts');
    const workers = Array.from({ length: threadsNeeded }, (_, i) =>
      startWorker<DrawCall, DrawResult>(workerPath, { name: `draw-${i + 1}` }),
    );
    const samples: string[] = [];
    const cases: DrawCase[] = [];
    let bulk: BulkCase[] = [];
    try {
      await Promise.all(workers.map((w) => w.ready));
      ctx.log(`${threadsNeeded} worker threads ready`);
      for (const threads of s.threadCounts) {
        cases.push(...(await runThreadCount(ctx, workers.slice(0, threads), samples)));
        ctx.log(`${threadsTitle(threads)} done`);
      }
      if (s.bulkBytes.length) bulk = await runBulk(ctx, workers[0]!, samples);
    } finally {
      await Promise.all(workers.map((w) => w.close()));
    }
    ctx.progress.end();

    const goals = evaluateGoals(cases, bulk);
    const reference = evaluateAllocatingReference(cases);
    ctx.results.recordComparison('goals', goals);
    ctx.results.recordComparison('allocatingReference', reference);
    await ctx.results.writeChart(
      'throughput',
      'Session key draws per second',
      barChartSvg(throughputChart(cases, s)),
    );
    // A run of the baseline alone has no ratio to draw.
    if (s.variants.some((v) => v !== BASELINE_VARIANT)) {
      await ctx.results.writeChart(
        'ratio',
        'Throughput relative to Hadoop-style',
        barChartSvg(ratioChart(cases, s)),
      );
    }
    if (s.latencyMs > 0) {
      await ctx.results.writeChart(
        'latency',
        'Latency per op (p50, p99, p99.9)',
        latencyChartSvg(latencyChart(cases, s)),
      );
    }
    // Every worker drew a key after every time box: a repeat means two threads (or two rounds)
    // got the same bytes, and nothing measured here can be trusted.
    if (new Set(samples).size !== samples.length) {
      throw new BenchmarkCheckError(
        `repeated random output across workers or rounds (${samples.length} samples)`,
      );
    }
    return {
      markdown: secureRandomMarkdown(cases, bulk, goals, reference, s),
      summary: secureRandomSummary(cases, goals, s),
    };
  },
};
