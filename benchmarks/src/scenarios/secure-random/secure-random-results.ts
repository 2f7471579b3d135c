// The accounting of the secure-random scenario: how worker results add up to a round, and how
// the measured figures are held against the goals. Pure functions, unit-tested.
import type { LatencySummary } from '@fastpath/core';
import {
  BenchmarkInputError,
  compareRounds,
  median,
  type RatioSummary,
  type Summary,
} from '../../harness/index.js';
import {
  ALLOCATING_PER_CALL_VARIANT,
  ALLOCATING_VARIANT,
  BASELINE_VARIANT,
  DRAW_VARIANTS,
  PER_CALL_VARIANT,
  TARGET_VARIANT,
  type BulkVariantId,
  type DrawVariantId,
} from './draw-variants.js';

/** What one worker measured in one time box. */
export interface WorkerMeasurement {
  ops: number;
  elapsedMs: number;
}

/** One round of one variant: all its threads, drawing over the same time box. */
export interface DrawRound {
  /** Sum over the threads of each thread's ops per second. */
  opsPerSec: number;
  workers: WorkerMeasurement[];
}

/**
 * Adds up the workers of one round. Every worker ran the same wall-clock window (a shared start
 * time, a fixed length, overrun by at most one short batch), so the total rate is the sum of the
 * per-worker rates.
 */
export function aggregateRound(workers: readonly WorkerMeasurement[]): DrawRound {
  if (workers.length === 0) throw new RangeError('a round needs at least one worker');
  let opsPerSec = 0;
  for (const w of workers) {
    if (!(w.elapsedMs > 0) || !(w.ops >= 0)) throw new RangeError(`bad measurement ${JSON.stringify(w)}`);
    opsPerSec += (w.ops * 1000) / w.elapsedMs;
  }
  return { opsPerSec, workers: [...workers] };
}

/** Everything measured for one variant at one thread count. */
export interface DrawCase {
  threads: number;
  variant: DrawVariantId;
  warmup: DrawRound | null;
  rounds: DrawRound[];
  opsPerSec: Summary;
  /** Against the Hadoop-style baseline, round by round. */
  vsBaseline: RatioSummary;
  /** Against `crypto.randomFillSync` per draw, round by round, when that variant ran. */
  vsPerCall: RatioSummary | null;
  /** Per-op latency from the latency round, when it ran. */
  latency: LatencySummary | null;
}

/** A ratio taken round by round from rounds that ran at the same time. */
export interface PairedRatio {
  /** The median of the per-round ratios. */
  ratio: number;
  /** Smallest per-round ratio. */
  min: number;
  /** Largest per-round ratio. */
  max: number;
  /** Number of paired rounds. */
  rounds: number;
}

/**
 * The ratio of two variants measured in the same rounds at the same time (alternating slices): the
 * median of the per-round ratios. Load from elsewhere hits both halves of a round alike and cancels
 * in its ratio; a ratio of the two medians would take them from different rounds and bring it back.
 */
export function pairedRatio(candidate: readonly number[], baseline: readonly number[]): PairedRatio {
  if (candidate.length === 0 || candidate.length !== baseline.length) {
    throw new BenchmarkInputError(
      `pairedRatio: ${candidate.length} candidate rounds but ${baseline.length} baseline rounds`,
    );
  }
  const perRound = candidate.map((v, i) => {
    const base = baseline[i]!;
    if (!(v >= 0) || !(base > 0)) throw new BenchmarkInputError(`pairedRatio: bad round ${v} / ${base}`);
    return v / base;
  });
  return {
    ratio: median(perRound),
    min: Math.min(...perRound),
    max: Math.max(...perRound),
    rounds: perRound.length,
  };
}

/** One size of the bulk comparison: both variants, the same rounds. */
export interface BulkCase {
  bytes: number;
  variant: BulkVariantId;
  rounds: DrawRound[];
  /** Bytes per second. */
  bytesPerSec: Summary;
  /** Against `crypto.randomFillSync`, round by round (both ran in each round, alternating). */
  vsRandomFillSync: PairedRatio;
}

export interface GoalCheck {
  goal: string;
  /** Which rows (and so which op) the figure is read from. */
  readFrom: string;
  target: string;
  /** The measured value as text, or why there is none. */
  measured: string;
  /** null when it was not measured in this run. */
  met: boolean | null;
}

function ratioText(r: RatioSummary | PairedRatio): string {
  const f = (v: number): string => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
  return `${f(r.ratio)}× (${f(r.min)}–${f(r.max)})`;
}

function threadsText(n: number): string {
  return n === 1 ? '1 thread' : `${n} threads`;
}

/** `name` and what its op does with memory, for the "read from" column. */
function rowText(variant: DrawVariantId): string {
  const name = DRAW_VARIANTS[variant].benchmark.replace(/^SecureRandomBench\./, '');
  return `\`${name}\` (${DRAW_VARIANTS[variant].allocates ? 'allocates' : 'fills caller-owned buffers'})`;
}

function ratioRow(variant: DrawVariantId, over: DrawVariantId): string {
  return `${rowText(variant)} ÷ ${rowText(over)}`;
}

function sessionGoals(cases: readonly DrawCase[], variant: DrawVariantId, label: string): GoalCheck[] {
  const checks: GoalCheck[] = [];
  const threadCounts = [...new Set(cases.map((c) => c.threads))].sort((a, b) => a - b);
  const find = (threads: number): DrawCase | undefined =>
    cases.find((c) => c.threads === threads && c.variant === variant);

  for (const threads of threadCounts) {
    const goal = `${label} vs Hadoop-style, ${threadsText(threads)}`;
    const readFrom = ratioRow(variant, BASELINE_VARIANT);
    const c = find(threads);
    checks.push(
      c
        ? {
            goal,
            readFrom,
            target: '≥ 200×',
            measured: ratioText(c.vsBaseline),
            met: c.vsBaseline.ratio >= 200,
          }
        : notMeasured(goal, readFrom, '≥ 200×'),
    );
  }
  for (const threads of threadCounts) {
    const goal = `${label} vs randomFillSync per call, ${threadsText(threads)}`;
    const readFrom = ratioRow(variant, PER_CALL_VARIANT);
    const min = threads === 1 ? 8 : 10;
    const c = find(threads);
    checks.push(
      c?.vsPerCall
        ? {
            goal,
            readFrom,
            target: `≥ ${min}×`,
            measured: ratioText(c.vsPerCall),
            met: c.vsPerCall.ratio >= min,
          }
        : notMeasured(goal, readFrom, `≥ ${min}×`),
    );
  }
  return checks;
}

function latencyGoals(cases: readonly DrawCase[], variant: DrawVariantId, label: string): GoalCheck[] {
  const threadCounts = [...new Set(cases.map((c) => c.threads))].sort((a, b) => a - b);
  return threadCounts.map((threads) => {
    const goal = `p99 per op incl. refills, ${label}, ${threadsText(threads)}`;
    const readFrom = `latency round of ${rowText(variant)}`;
    const latency = cases.find((c) => c.threads === threads && c.variant === variant)?.latency;
    return latency
      ? {
          goal,
          readFrom,
          target: '≤ 25 µs',
          measured: `${(latency.p99Ms * 1000).toFixed(latency.p99Ms < 0.01 ? 1 : 0)} µs`,
          met: latency.p99Ms <= 0.025,
        }
      : notMeasured(goal, readFrom, '≤ 25 µs');
  });
}

/**
 * The package's goals, held against this run's figures (shown, never enforced). They are read from
 * the op the issue defines (one connection's two keys and two IVs) in its allocation-free form,
 * `fillSessionKeys` into caller-owned buffers, against baselines filling the same kind of buffers.
 */
export function evaluateGoals(cases: readonly DrawCase[], bulk: readonly BulkCase[]): GoalCheck[] {
  const label = 'pooled per worker';
  const checks = sessionGoals(cases, TARGET_VARIANT, label);
  for (const b of bulk.filter((x) => x.variant === 'pooled' && x.bytes >= 65536)) {
    checks.push({
      goal: `generateSecureRandom(${b.bytes}) vs randomFillSync`,
      readFrom: `bulk rounds: \`generateSecureRandom(n)\` ÷ \`randomFillSync(Buffer.allocUnsafeSlow(n))\` (both allocate), median of per-round ratios`,
      target: '≥ 0.95×',
      measured: ratioText(b.vsRandomFillSync),
      met: b.vsRandomFillSync.ratio >= 0.95,
    });
  }
  checks.push(...latencyGoals(cases, TARGET_VARIANT, label));
  return checks;
}

/**
 * The same thresholds read from the allocating API (`generateSessionKeys`, four new Buffers in
 * Redacted boxes per op) on the same kind of pool, for reading next to the goals: the goals are not
 * about this op, but a reader should see what allocation costs. The last rows compare it with
 * `randomBytes`, the one baseline that allocates as well.
 */
export function evaluateAllocatingReference(cases: readonly DrawCase[]): GoalCheck[] {
  const label = 'pooled allocating';
  const checks = [
    ...sessionGoals(cases, ALLOCATING_VARIANT, label),
    ...latencyGoals(cases, ALLOCATING_VARIANT, label),
  ];
  const threadCounts = [...new Set(cases.map((c) => c.threads))].sort((a, b) => a - b);
  for (const threads of threadCounts) {
    const goal = `${label} vs randomBytes (both allocate), ${threadsText(threads)}`;
    const readFrom = ratioRow(ALLOCATING_VARIANT, ALLOCATING_PER_CALL_VARIANT);
    const find = (variant: DrawVariantId): DrawCase | undefined =>
      cases.find((c) => c.threads === threads && c.variant === variant);
    const alloc = find(ALLOCATING_VARIANT);
    const perCall = find(ALLOCATING_PER_CALL_VARIANT);
    if (alloc && perCall) {
      const ratio = compareRounds(
        alloc.rounds.map((r) => r.opsPerSec),
        perCall.rounds.map((r) => r.opsPerSec),
      );
      checks.push({ goal, readFrom, target: '≥ 15×', measured: ratioText(ratio), met: ratio.ratio >= 15 });
    } else {
      checks.push(notMeasured(goal, readFrom, '≥ 15×'));
    }
  }
  return checks;
}

function notMeasured(goal: string, readFrom: string, target: string): GoalCheck {
  return { goal, readFrom, target, measured: 'not measured in this run', met: null };
}
