import type { LatencySummary } from '@fastpath/core';
import { compareRounds, summarize } from '../../harness/index.js';
import type { DrawVariantId } from './draw-variants.js';
import {
  aggregateRound,
  evaluateAllocatingReference,
  evaluateGoals,
  pairedRatio,
  type BulkCase,
  type DrawCase,
} from './secure-random-results.js';

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

describe('pairedRatio', () => {
  it('takes the median of the per-round ratios, not the ratio of the medians', () => {
    // The machine sped up over the rounds; the two halves of each round ran side by side.
    const candidate = [10, 21, 29];
    const baseline = [11, 20, 30];
    const paired = pairedRatio(candidate, baseline);
    expect(paired.ratio).toBeCloseTo(29 / 30, 12);
    expect(paired.min).toBeCloseTo(10 / 11, 12);
    expect(paired.max).toBeCloseTo(21 / 20, 12);
    expect(paired.rounds).toBe(3);
    // The ratio of the medians is round 2's ratio alone, the largest of the three.
    expect(compareRounds(candidate, baseline).ratio).toBeCloseTo(21 / 20, 12);
  });

  it('refuses rounds that do not pair up or cannot be divided', () => {
    expect(() => pairedRatio([1, 2], [1])).toThrow(/2 candidate rounds but 1 baseline rounds/);
    expect(() => pairedRatio([], [])).toThrow(/0 candidate rounds/);
    expect(() => pairedRatio([1], [0])).toThrow(/bad round/);
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
        vsRandomFillSync: pairedRatio([0.9, 1, 1], [1, 1, 1]),
      },
      {
        bytes: 4096,
        variant: 'pooled',
        rounds: [],
        bytesPerSec: summarize([1]),
        vsRandomFillSync: pairedRatio([0.5], [1]),
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
    expect(goals[5]!.measured).toBe('2.0 µs');
    expect(goals[6]!.measured).toBe('30 µs');
  });

  it('says which rows, and so which op, each goal is read from', () => {
    const goals = evaluateGoals(
      [drawCase(10, 'pooled-per-worker', [250_000], [1000], [20_000], 0.002)],
      [
        {
          bytes: 65536,
          variant: 'pooled',
          rounds: [],
          bytesPerSec: summarize([1]),
          vsRandomFillSync: pairedRatio([1], [1]),
        },
      ],
    );
    expect(goals.map((g) => g.readFrom)).toEqual([
      '`pooledPerWorker` (fills caller-owned buffers) ÷ `hadoopStyle` (fills caller-owned buffers)',
      '`pooledPerWorker` (fills caller-owned buffers) ÷ `randomFillSync` (fills caller-owned buffers)',
      expect.stringMatching(
        /^bulk rounds: .*generateSecureRandom.*randomFillSync.*\(both allocate\), median of per-round ratios$/,
      ),
      'latency round of `pooledPerWorker` (fills caller-owned buffers)',
    ]);
  });

  it('says what was not measured instead of judging it', () => {
    const goals = evaluateGoals([drawCase(1, 'random-bytes', [2000], [1000], [1000], null)], []);
    expect(goals.every((g) => g.met === null && g.measured === 'not measured in this run')).toBe(true);
    expect(goals).toHaveLength(3);
  });
});

describe('evaluateAllocatingReference', () => {
  const base = [1000, 1000, 1000];
  const perCall = [20_000, 20_000, 20_000];

  it('reads the same thresholds from the allocating row, and compares it with randomBytes', () => {
    const cases = [
      drawCase(1, 'pooled-allocating', [90_000, 100_000, 110_000], base, perCall, 0.004),
      drawCase(1, 'random-bytes', [5000, 5000, 10_000], base, perCall, 0.05),
      drawCase(1, 'pooled-per-worker', [300_000, 300_000, 300_000], base, perCall, 0.001),
    ];
    const reference = evaluateAllocatingReference(cases);
    expect(reference.map((g) => [g.goal, g.target, g.met])).toEqual([
      ['pooled allocating vs Hadoop-style, 1 thread', '≥ 200×', false],
      ['pooled allocating vs randomFillSync per call, 1 thread', '≥ 8×', false],
      ['p99 per op incl. refills, pooled allocating, 1 thread', '≤ 25 µs', true],
      ['pooled allocating vs randomBytes (both allocate), 1 thread', '≥ 15×', true],
    ]);
    expect(reference[0]!.measured).toBe('100× (90.0–110)');
    expect(reference[0]!.readFrom).toBe(
      '`pooledAllocating` (allocates) ÷ `hadoopStyle` (fills caller-owned buffers)',
    );
    expect(reference[3]!.measured).toBe('20.0× (11.0–20.0)');
    expect(reference[3]!.readFrom).toBe('`pooledAllocating` (allocates) ÷ `randomBytes` (allocates)');
  });

  it('says what was not measured', () => {
    const reference = evaluateAllocatingReference([
      drawCase(10, 'hadoop-style', [1000], [1000], [1000], null),
    ]);
    expect(reference).toHaveLength(4);
    expect(reference.every((g) => g.met === null)).toBe(true);
  });
});
