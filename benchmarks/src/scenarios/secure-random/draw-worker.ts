// A worker thread of the secure-random scenario: runs one variant for a time box when called.
import { LatencyRecorder } from '@fastpath/core';
import type { SessionKeyBytes, SessionKeys } from '@fastpath/secure-random';
import { serveCalls } from '../../harness/index.js';
import type { BulkVariantId, DrawVariantId } from './draw-variants.js';
import { bulkDraw, sessionDraw } from './session-draws.js';

/** One call: run a variant from `startAtMs` (epoch ms, shared by all workers) for `durationMs`. */
export type DrawCall =
  | {
      kind: 'throughput' | 'latency';
      variant: DrawVariantId;
      keyBytes: SessionKeyBytes;
      durationMs: number;
      startAtMs: number;
    }
  | { kind: 'bulk'; variant: BulkVariantId; bytes: number; durationMs: number; startAtMs: number };

export interface DrawResult {
  ops: number;
  elapsedMs: number;
  /** `latency` calls: every op's duration, as `LatencyRecorder.toBase64()`. */
  latency?: string;
  /** Hex of one in-key drawn after the time box, for the uniqueness check across workers. */
  sample: string;
  /** Keeps the JIT from dropping the draws as unused. */
  sink: number;
}

const sessionDraws = new Map<string, () => SessionKeys>();
const bulkDraws = new Map<string, () => Buffer>();

function sessionOp(variant: DrawVariantId, keyBytes: SessionKeyBytes): () => SessionKeys {
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

function checkKeys(keys: SessionKeys, keyBytes: number): string {
  const parts = [keys.inKey, keys.inIv, keys.outKey, keys.outIv].map((p) => p.unwrap());
  const sizes = parts.map((p) => p.length).join(',');
  if (sizes !== `${keyBytes},16,${keyBytes},16`) throw new Error(`session draw returned sizes ${sizes}`);
  const hex = parts.map((p) => p.toString('hex'));
  if (new Set(hex).size !== 4 || parts.some((p) => p.every((b) => b === 0))) {
    throw new Error('session draw returned repeated or all-zero parts');
  }
  return hex[0]!;
}

serveCalls(async (call: DrawCall): Promise<DrawResult> => {
  if (call.kind === 'bulk') {
    const draw = bulkOp(call.variant, call.bytes);
    await waitUntil(call.startAtMs);
    const measured = timeBox(() => draw()[0]!, call.durationMs);
    const sample = draw();
    if (sample.length !== call.bytes) throw new Error(`bulk draw returned ${sample.length} bytes`);
    return { ...measured, sample: sample.toString('hex', 0, 16) };
  }
  const draw = sessionOp(call.variant, call.keyBytes);
  const op = (): number => draw().inKey.unwrap()[0]!;
  await waitUntil(call.startAtMs);
  if (call.kind === 'throughput') {
    const measured = timeBox(op, call.durationMs);
    return { ...measured, sample: checkKeys(draw(), call.keyBytes) };
  }
  const latency = new LatencyRecorder();
  const measured = latencyBox(op, call.durationMs, latency);
  return { ...measured, latency: latency.toBase64(), sample: checkKeys(draw(), call.keyBytes) };
});
