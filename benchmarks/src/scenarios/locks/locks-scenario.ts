import {
  BenchmarkCheckError,
  barChartSvg,
  compareRounds,
  summarize,
  type Scenario,
  type ScenarioContext,
} from '../../harness/index.js';
import { BASELINE_VARIANT, LOCK_VARIANTS, type LockOp, type LockVariantId } from './lock-variants.js';
import {
  locksMarkdown,
  locksTable,
  modeTitle,
  ratioChart,
  throughputChart,
  type LockCaseResult,
} from './locks-report.js';
import { LOCKS_FLAGS, parseLocksFlags, type LocksSettings } from './locks-settings.js';
import { measureLockRound, sectionCount, type LockMode, type LockRound } from './measure-lock-round.js';

function rotate<T>(items: readonly T[], by: number): T[] {
  const k = items.length ? by % items.length : 0;
  return [...items.slice(k), ...items.slice(0, k)];
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new Error('interrupted');
}

async function runMode(
  ctx: ScenarioContext<LocksSettings>,
  mode: LockMode,
  ops: ReadonlyMap<LockVariantId, LockOp>,
): Promise<LockCaseResult[]> {
  const s = ctx.flags;
  const title = modeTitle(mode, s);
  const warmups = new Map<LockVariantId, LockRound | null>();
  const rounds = new Map<LockVariantId, LockRound[]>(s.variants.map((v) => [v, []]));
  for (const variant of s.variants) {
    throwIfAborted(ctx.signal);
    ctx.progress.setDetail(`${title} · ${LOCK_VARIANTS[variant].label} · warm-up`);
    warmups.set(
      variant,
      s.warmupMs > 0 ? await measureLockRound(mode, ops.get(variant)!, s.warmupMs, s.concurrency) : null,
    );
    ctx.progress.advance(s.warmupMs);
  }
  // Round r measures every lock once, in an order rotated by r, so drift of a shared machine hits
  // all locks alike and round r of a lock pairs with round r of the baseline.
  for (let r = 0; r < s.rounds; r++) {
    for (const variant of rotate(s.variants, r)) {
      throwIfAborted(ctx.signal);
      ctx.progress.setDetail(`${title} · ${LOCK_VARIANTS[variant].label} · round ${r + 1}/${s.rounds}`);
      rounds.get(variant)!.push(await measureLockRound(mode, ops.get(variant)!, s.roundMs, s.concurrency));
      ctx.progress.advance(s.roundMs);
    }
  }
  const baselineOps = rounds.get(BASELINE_VARIANT)!.map((x) => x.opsPerSec);
  const results = s.variants.map((variant): LockCaseResult => {
    const measured = rounds.get(variant)!;
    const opsPerSec = measured.map((x) => x.opsPerSec);
    return {
      mode,
      variant,
      label: LOCK_VARIANTS[variant].label,
      warmup: warmups.get(variant) ?? null,
      rounds: measured,
      opsPerSec: summarize(opsPerSec),
      vsBaseline: compareRounds(opsPerSec, baselineOps),
      maxHolders: Math.max(...measured.map((x) => x.maxHolders)),
    };
  });
  for (const result of results) {
    ctx.results.writeCase(`${mode}-${result.variant}`, {
      ...result,
      settings: {
        roundMs: s.roundMs,
        warmupMs: s.warmupMs,
        concurrency: mode === 'contended' ? s.concurrency : 1,
      },
    });
    ctx.results.recordComparison(`${mode}/${result.variant}`, {
      mode,
      lock: result.label,
      medianOpsPerSec: result.opsPerSec.median,
      minOpsPerSec: result.opsPerSec.min,
      maxOpsPerSec: result.opsPerSec.max,
      ratioToAsyncMutex: result.vsBaseline.ratio,
      ratioMin: result.vsBaseline.min,
      ratioMax: result.vsBaseline.max,
      maxHolders: result.maxHolders,
    });
  }
  return results;
}

/**
 * The lock micro-benchmark: acquire/release of the core `ReadWriteLock` (read and write), the core
 * `Mutex` and their instrumented forms, against a bare async-mutex `Mutex` and against no lock,
 * uncontended and with many concurrent callers.
 */
export const locksScenario: Scenario<LocksSettings> = {
  name: 'locks',
  title: 'Lock micro-benchmark: acquire/release cost of the core locks',
  description:
    'Acquire/release throughput of the core ReadWriteLock (read and write), the core Mutex, and both with ' +
    'metrics on, against a bare async-mutex Mutex (the baseline) and against no lock: one caller ' +
    '(uncontended) and many concurrent async callers (contended), in one process, side by side in the same rounds.',
  flags: LOCKS_FLAGS,
  parseFlags: (args, { quick }) => parseLocksFlags(args, quick),
  async run(ctx) {
    const s = ctx.flags;
    ctx.results.writeConfig({ scenario: 'locks', quick: ctx.quick, settings: s });
    const cases = s.modes.length * s.variants.length;
    ctx.progress.begin('locks', cases * (s.warmupMs + s.rounds * s.roundMs));
    const results: LockCaseResult[] = [];
    for (const mode of s.modes) {
      // Fresh locks per mode, so the contended mode does not start on state left by the other.
      const ops = new Map(s.variants.map((v) => [v, LOCK_VARIANTS[v].create()] as const));
      results.push(...(await runMode(ctx, mode, ops)));
      ctx.log(`mode ${mode} done (${sectionCount()} critical sections so far)`);
    }
    ctx.progress.end();
    const broken = results.filter((r) => LOCK_VARIANTS[r.variant].exclusive && r.maxHolders > 1);
    await ctx.results.writeChart(
      'throughput',
      'Lock acquire/release throughput',
      barChartSvg(throughputChart(results, s)),
    );
    if (s.variants.length > 1) {
      await ctx.results.writeChart(
        'ratio',
        'Throughput relative to a bare async-mutex Mutex',
        barChartSvg(ratioChart(results, s)),
      );
    }
    if (broken.length > 0) {
      throw new BenchmarkCheckError(
        `exclusive lock held by several callers at once: ${broken.map((b) => `${b.label} (${b.maxHolders})`).join(', ')}`,
      );
    }
    return { markdown: locksMarkdown(results, s), summary: locksTable(results, s) };
  },
};
