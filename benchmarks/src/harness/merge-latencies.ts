import { LatencyRecorder } from '@fastpath/core';

/**
 * Rebuilds and merges latency recorders sent back by workers or child processes as
 * `LatencyRecorder.toBase64()` strings.
 *
 * @example
 * ```ts
 * const results = await Promise.all(workers.map((w) => w.call({ durationMs })));
 * const p99Ms = mergeLatencies(results.map((r) => r.latency)).summary().p99Ms;
 * ```
 */
export function mergeLatencies(encoded: Iterable<string>): LatencyRecorder {
  const merged = new LatencyRecorder();
  for (const e of encoded) merged.merge(LatencyRecorder.fromBase64(e));
  return merged;
}
