import type { LatencySummary } from '@fastpath/core';
import { compareRounds, summarize } from '../../harness/index.js';
import type { DrawVariantId } from './draw-variants.js';
import { aggregateRound, evaluateGoals, type BulkCase, type DrawCase } from './secure-random-results.js';

function latency(p99Ms: number): LatencySummary {
  return {
    count: 1000,
    minMs: 0,
    meanMs: p99Ms / 2,
    p50Ms: p99Ms / 2,
    p90Ms: p99Ms,
    p99Ms,
    p999Ms: p99Ms,
    maxMs: p99Ms,
  };
}

/** A case whose rounds are `ops` against baseline rounds `base` and per-call rounds `perCall`. */
function drawCase(
  threads: number,
  variant: DrawVariantId,
  ops: number[],
  base: number[],
  perCall: number[],
  p99Ms: number | null,
): DrawCase {
  return {
    threads,
    variant,
    warmup: null,
    rounds: ops.map((o) => ({ opsPerSec: o, workers: [{ ops: o, elapsedMs: 1000 }] })),
    opsPerSec: summarize(ops),
    vsBaseline: compareRounds(ops, base),
    vsPerCall: compareRounds(ops, perCall),
    latency: p99Ms === null ? null : latency(p99Ms),
  };
}

describe('aggregateRound', () => {
  it('adds the rates of threads that ran the same window', () => {
    const round = aggregateRound([
      { ops: 1000, elapsedMs: 500 },
      { ops: 3000, elapsedMs: 1000 },
      { ops: 0, elapsedMs: 1000 },
    ]);
    expect(round.opsPerSec).toBe(2000 + 3000);
    expect(round.workers).toHaveLength(3);
  });

  it('refuses an empty round and impossible measurements', () => {
    expect(() => aggregateRound([])).toThrow(RangeError);
    expect(() => aggregateRound([{ ops: 10, elapsedMs: 0 }])).toThrow(RangeError);
    expect(() => aggregateRound([{ ops: Number.NaN, elapsedMs: 10 }])).toThrow(RangeError);
  });
});

describe('evaluateGoals', () => {
  const base = [1000, 1000, 1000];
  const perCall = [20_000, 20_000, 20_000];

  it('holds the pooled generator against every goal, per thread count', () => {
    const cases = [
      drawCase(1, 'pooled-per-worker', [150_000, 170_000, 160_000], base, perCall, 0.002),
      drawCase(10, 'pooled-per-worker', [250_000, 260_000, 240_000], base, perCall, 0.03),
    ];
    const bulk: BulkCase[] = [
      {
        bytes: 65536,
        variant: 'pooled',
        rounds: [],
        bytesPerSec: summarize([1]),
        vsRandomFillSync: compareRounds([0.9, 1, 1], [1, 1, 1]),
      },
      {
        bytes: 4096,
        variant: 'pooled',
        rounds: [],
        bytesPerSec: summarize([1]),
        vsRandomFillSync: compareRounds([0.5], [1]),
      },
    ];
    const goals = evaluateGoals(cases, bulk);
    expect(goals.map((g) => [g.goal, g.met])).toEqual([
      ['pooled per worker vs Hadoop-style, 1 thread', false],
      ['pooled per worker vs Hadoop-style, 10 threads', true],
      ['pooled per worker vs randomFillSync per call, 1 thread', true],
      ['pooled per worker vs randomFillSync per call, 10 threads', true],
      ['generateSecureRandom(65536) vs randomFillSync', true],
      ['p99 per op incl. refills, pooled per worker, 1 thread', true],
      ['p99 per op incl. refills, pooled per worker, 10 threads', false],
    ]);
    expect(goals[0]!.measured).toBe('160× (150–170)');
    expect(goals[2]!.target).toBe('≥ 8×');
    expect(goals[3]!.target).toBe('≥ 10×');
    expect(goals[6]!.measured).toBe('30 µs');
  });

  it('says what was not measured instead of judging it', () => {
    const goals = evaluateGoals([drawCase(1, 'random-bytes', [2000], [1000], [1000], null)], []);
    expect(goals.every((g) => g.met === null && g.measured === 'not measured in this run')).toBe(true);
    expect(goals).toHaveLength(3);
  });
});
