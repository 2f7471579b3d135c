// The accounting of the secure-random scenario: how worker results add up to a round, and how
// the measured figures are held against the goals. Pure functions, unit-tested.
import type { LatencySummary } from '@fastpath/core';
import type { RatioSummary, Summary } from '../../harness/index.js';
import { TARGET_VARIANT, type BulkVariantId, type DrawVariantId } from './draw-variants.js';

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

/** One size of the bulk comparison: both variants, the same rounds. */
export interface BulkCase {
  bytes: number;
  variant: BulkVariantId;
  rounds: DrawRound[];
  /** Bytes per second. */
  bytesPerSec: Summary;
  /** Against `crypto.randomFillSync`, round by round. */
  vsRandomFillSync: RatioSummary;
}

export interface GoalCheck {
  goal: string;
  target: string;
  /** The measured value as text, or why there is none. */
  measured: string;
  /** null when it was not measured in this run. */
  met: boolean | null;
}

function ratioText(r: RatioSummary): string {
  const f = (v: number): string => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
  return `${f(r.ratio)}× (${f(r.min)}–${f(r.max)})`;
}

/** The goals of the package, held against this run's figures (shown, never enforced). */
export function evaluateGoals(cases: readonly DrawCase[], bulk: readonly BulkCase[]): GoalCheck[] {
  const checks: GoalCheck[] = [];
  const threadCounts = [...new Set(cases.map((c) => c.threads))].sort((a, b) => a - b);
  const find = (threads: number, variant: DrawVariantId): DrawCase | undefined =>
    cases.find((c) => c.threads === threads && c.variant === variant);
  const threadsText = (n: number): string => (n === 1 ? '1 thread' : `${n} threads`);

  for (const threads of threadCounts) {
    const target = find(threads, TARGET_VARIANT);
    checks.push(
      target
        ? {
            goal: `pooled per worker vs Hadoop-style, ${threadsText(threads)}`,
            target: '≥ 200×',
            measured: ratioText(target.vsBaseline),
            met: target.vsBaseline.ratio >= 200,
          }
        : notMeasured(`pooled per worker vs Hadoop-style, ${threadsText(threads)}`, '≥ 200×'),
    );
  }
  for (const threads of threadCounts) {
    const goal = `pooled per worker vs randomFillSync per call, ${threadsText(threads)}`;
    const min = threads === 1 ? 8 : 10;
    const target = find(threads, TARGET_VARIANT);
    checks.push(
      target?.vsPerCall
        ? {
            goal,
            target: `≥ ${min}×`,
            measured: ratioText(target.vsPerCall),
            met: target.vsPerCall.ratio >= min,
          }
        : notMeasured(goal, `≥ ${min}×`),
    );
  }
  for (const b of bulk.filter((x) => x.variant === 'pooled' && x.bytes >= 65536)) {
    checks.push({
      goal: `generateSecureRandom(${b.bytes}) vs randomFillSync`,
      target: '≥ 0.95×',
      measured: ratioText(b.vsRandomFillSync),
      met: b.vsRandomFillSync.ratio >= 0.95,
    });
  }
  for (const threads of threadCounts) {
    const goal = `p99 per op incl. refills, pooled per worker, ${threadsText(threads)}`;
    const latency = find(threads, TARGET_VARIANT)?.latency;
    checks.push(
      latency
        ? {
            goal,
            target: '≤ 25 µs',
            measured: `${(latency.p99Ms * 1000).toFixed(0)} µs`,
            met: latency.p99Ms <= 0.025,
          }
        : notMeasured(goal, '≤ 25 µs'),
    );
  }
  return checks;
}

function notMeasured(goal: string, target: string): GoalCheck {
  return { goal, target, measured: 'not measured in this run', met: null };
}
