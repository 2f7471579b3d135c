import type { LockOp } from './lock-variants.js';

/** The two ways the locks are driven. */
export type LockMode = 'uncontended' | 'contended';

export const LOCK_MODES: readonly LockMode[] = ['uncontended', 'contended'];

/** One time-boxed round. */
export interface LockRound {
  ops: number;
  elapsedMs: number;
  opsPerSec: number;
  /** Most callers seen inside the critical section at once (contended mode; 1 when uncontended). */
  maxHolders: number;
}

// Reading the clock costs about as much as an uncontended acquire, so loops look at it only every
// so many operations; a round overshoots its length by at most one batch per loop.
const UNCONTENDED_BATCH = 256;
const CONTENDED_BATCH = 32;

let sink = 0;

/** What the uncontended loop does under the lock: no await, as in a short in-memory update. */
function syncSection(): void {
  sink++;
}

/** One caller acquiring and releasing in a loop: the price every call pays when nobody waits. */
export async function measureUncontended(op: LockOp, durationMs: number): Promise<LockRound> {
  const start = performance.now();
  const end = start + durationMs;
  let ops = 0;
  let now = start;
  do {
    for (let i = 0; i < UNCONTENDED_BATCH; i++) await op(syncSection);
    ops += UNCONTENDED_BATCH;
    now = performance.now();
  } while (now < end);
  const elapsedMs = now - start;
  return { ops, elapsedMs, opsPerSec: (ops * 1000) / elapsedMs, maxHolders: 1 };
}

/**
 * `concurrency` async loops acquiring the same lock. The critical section awaits once while held,
 * as a real one that touches I/O or another promise does, so the other loops queue behind it.
 */
export async function measureContended(
  op: LockOp,
  durationMs: number,
  concurrency: number,
): Promise<LockRound> {
  let inside = 0;
  let maxHolders = 0;
  const section = async (): Promise<void> => {
    inside++;
    if (inside > maxHolders) maxHolders = inside;
    await Promise.resolve();
    inside--;
    sink++;
  };
  const start = performance.now();
  const end = start + durationMs;
  let ops = 0;
  const loop = async (): Promise<void> => {
    let mine = 0;
    do {
      for (let i = 0; i < CONTENDED_BATCH; i++) await op(section);
      mine += CONTENDED_BATCH;
    } while (performance.now() < end);
    ops += mine;
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  const elapsedMs = performance.now() - start;
  return { ops, elapsedMs, opsPerSec: (ops * 1000) / elapsedMs, maxHolders };
}

/** Measures one round of `mode`. */
export function measureLockRound(
  mode: LockMode,
  op: LockOp,
  durationMs: number,
  concurrency: number,
): Promise<LockRound> {
  return mode === 'uncontended'
    ? measureUncontended(op, durationMs)
    : measureContended(op, durationMs, concurrency);
}

/** Keeps the critical sections' work observable, so it cannot be optimised away. */
export function sectionCount(): number {
  return sink;
}
