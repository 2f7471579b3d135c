// A worker thread of the secure-random scenario: runs one variant for a time box when called (or,
// for bulk draws, both bulk variants in alternating slices).
import { LatencyRecorder } from '@fastpath/core';
import type { SessionKeyBytes } from '@fastpath/secure-random';
import { serveCalls } from '../../harness/index.js';
import { BULK_VARIANT_IDS, type BulkVariantId, type DrawVariantId } from './draw-variants.js';
import { bulkDraw, sessionDraw, type SessionDraw } from './session-draws.js';

/** One call: run a variant from `startAtMs` (epoch ms, shared by all workers) for `durationMs`. */
export type DrawCall =
  | {
      kind: 'throughput' | 'latency';
      variant: DrawVariantId;
      keyBytes: SessionKeyBytes;
      durationMs: number;
      startAtMs: number;
    }
  | { kind: 'bulk'; bytes: number; durationMs: number; startAtMs: number };

export interface DrawResult {
  ops: number;
  elapsedMs: number;
  /** `bulk` calls: what each bulk variant did in its slices (`ops`/`elapsedMs` are the totals). */
  bulk?: Record<BulkVariantId, { ops: number; elapsedMs: number }>;
  /** `latency` calls: every op's duration, as `LatencyRecorder.toBase64()`. */
  latency?: string;
  /** Hex of one in-key drawn after the time box, for the uniqueness check across workers. */
  sample: string;
  /** Keeps the JIT from dropping the draws as unused. */
  sink: number;
}

const sessionDraws = new Map<string, SessionDraw>();
const bulkDraws = new Map<string, () => Buffer>();

function sessionOp(variant: DrawVariantId, keyBytes: SessionKeyBytes): SessionDraw {
  const key = `${variant}/${keyBytes}`;
  let draw = sessionDraws.get(key);
  if (draw === undefined) {
    draw = sessionDraw(variant, keyBytes);
    sessionDraws.set(key, draw);
  }
  return draw;
}

function bulkOp(variant: BulkVariantId, bytes: number): () => Buffer {
  const key = `${variant}/${bytes}`;
  let draw = bulkDraws.get(key);
  if (draw === undefined) {
    draw = bulkDraw(variant, bytes);
    bulkDraws.set(key, draw);
  }
  return draw;
}

async function waitUntil(epochMs: number): Promise<void> {
  const delay = epochMs - Date.now();
  if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
}

// Reading the clock costs about as much as a pooled op, so ops run in batches that grow until a
// batch takes half a millisecond; the box overruns by at most one batch, and elapsedMs is exact.
function timeBox(op: () => number, durationMs: number): { ops: number; elapsedMs: number; sink: number } {
  const start = performance.now();
  const end = start + durationMs;
  let ops = 0;
  let batch = 1;
  let sink = 0;
  for (;;) {
    const batchStart = performance.now();
    for (let i = 0; i < batch; i++) sink ^= op();
    ops += batch;
    const now = performance.now();
    if (now >= end) return { ops, elapsedMs: now - start, sink };
    if (now - batchStart < 0.5 && batch < 1 << 20) batch *= 2;
  }
}

// Every op timed on its own, refills included: the clock reads add a constant ~0.1 µs to each.
function latencyBox(op: () => number, durationMs: number, latency: LatencyRecorder) {
  const start = performance.now();
  const end = start + durationMs;
  let ops = 0;
  let sink = 0;
  for (;;) {
    const before = performance.now();
    sink ^= op();
    const after = performance.now();
    latency.recordMs(after - before);
    ops++;
    if (after >= end) return { ops, elapsedMs: after - start, sink };
  }
}

// The bulk variants do the same work (large draws bypass the pool), so the comparison is all about
// noise. They alternate in short slices within one call, each pair in the opposite order to the last,
// so that both see the same machine: load from elsewhere lands on both alike.
const BULK_SLICE_MS = 2;

function alternatingBulk(bytes: number, durationMs: number): Omit<DrawResult, 'sample'> {
  const draws = BULK_VARIANT_IDS.map((variant) => bulkOp(variant, bytes));
  const ops = draws.map(() => 0);
  const elapsed = draws.map(() => 0);
  let sink = 0;
  const start = performance.now();
  const end = start + durationMs;
  for (let slice = 0; performance.now() < end; slice++) {
    const pair = slice >> 1;
    const k = (slice & 1) ^ (pair & 1);
    const draw = draws[k]!;
    const sliceStart = performance.now();
    let n = 0;
    let now: number;
    do {
      sink ^= draw()[0]!;
      n++;
      now = performance.now();
    } while (now - sliceStart < BULK_SLICE_MS);
    ops[k]! += n;
    elapsed[k]! += now - sliceStart;
  }
  const perVariant = Object.fromEntries(
    BULK_VARIANT_IDS.map((variant, k) => [variant, { ops: ops[k]!, elapsedMs: elapsed[k]! }]),
  ) as Record<BulkVariantId, { ops: number; elapsedMs: number }>;
  return {
    ops: ops.reduce((a, b) => a + b, 0),
    elapsedMs: performance.now() - start,
    bulk: perVariant,
    sink,
  };
}

function checkParts(parts: readonly Uint8Array[], keyBytes: number): string[] {
  const sizes = parts.map((p) => p.length).join(',');
  if (sizes !== `${keyBytes},16,${keyBytes},16`) throw new Error(`session draw returned sizes ${sizes}`);
  const hex = parts.map((p) => Buffer.from(p).toString('hex'));
  if (new Set(hex).size !== 4 || parts.some((p) => p.every((b) => b === 0))) {
    throw new Error('session draw returned repeated or all-zero parts');
  }
  return hex;
}

// Two ops after the time box: each must give four parts of the right sizes, distinct and not zero,
// and the second must share no part with the first (a fill that wrote nothing would).
function checkDraw(draw: SessionDraw, keyBytes: number): string {
  const first = checkParts(draw.sample(), keyBytes);
  const second = checkParts(draw.sample(), keyBytes);
  if (first.some((part) => second.includes(part))) {
    throw new Error('two session draws in a row returned the same part');
  }
  return first[0]!;
}

serveCalls(async (call: DrawCall): Promise<DrawResult> => {
  if (call.kind === 'bulk') {
    await waitUntil(call.startAtMs);
    const measured = alternatingBulk(call.bytes, call.durationMs);
    const samples = BULK_VARIANT_IDS.map((variant) => bulkOp(variant, call.bytes)());
    for (const sample of samples) {
      if (sample.length !== call.bytes) throw new Error(`bulk draw returned ${sample.length} bytes`);
    }
    return { ...measured, sample: samples.map((sample) => sample.toString('hex', 0, 16)).join('/') };
  }
  const draw = sessionOp(call.variant, call.keyBytes);
  const op = draw.op;
  await waitUntil(call.startAtMs);
  if (call.kind === 'throughput') {
    const measured = timeBox(op, call.durationMs);
    return { ...measured, sample: checkDraw(draw, call.keyBytes) };
  }
  const latency = new LatencyRecorder();
  const measured = latencyBox(op, call.durationMs, latency);
  return { ...measured, latency: latency.toBase64(), sample: checkDraw(draw, call.keyBytes) };
});
