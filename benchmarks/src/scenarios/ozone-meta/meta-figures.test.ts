import { describe, expect, it } from '@jest/globals';
import {
  clientOpFigures,
  compareOp,
  metaGoals,
  metaLevelRounds,
  opsCeiling,
  problemCount,
  verifyTotals,
  windowFigures,
  type RoundSample,
} from './meta-figures.js';
import type { WindowSample } from './meta-workload.js';

const sample = (
  ops: number,
  elapsedMs: number,
  cpuMs: number,
  extra: Partial<WindowSample> = {},
): WindowSample => ({
  ops,
  errors: 0,
  elapsedMs,
  cpuMs,
  latenciesUs: Array.from({ length: ops }, (_, i) => (i + 1) * 1000),
  ...extra,
});
const rounds = (...samples: WindowSample[]): RoundSample[] =>
  samples.map((s, i) => ({ round: i + 1, sample: s }));

describe('ozone-meta figures', () => {
  it('ops/s over the window as it ran (shorter when the keys ran out), CPU per op; nothing done is null', () => {
    expect(windowFigures(sample(500, 2000, 250))).toEqual({ opsPerSec: 250, cpuMsPerOp: 0.5 });
    expect(windowFigures(sample(0, 2000, 10))).toBeNull();
  });

  it('per client: medians and ranges of the rounds, p50/p99 over every operation, errors and early stops', () => {
    const f = clientOpFigures(
      rounds(
        sample(100, 1000, 100),
        sample(300, 1000, 150),
        sample(200, 1000, 400, { errors: 2, firstError: 'boom', exhausted: true }),
      ),
    )!;
    expect(f.opsPerSec).toMatchObject({ median: 200, min: 100, max: 300 });
    expect(f.cpuMsPerOp).toMatchObject({ median: 1, min: 0.5, max: 2 });
    expect(f).toMatchObject({ rounds: 3, ops: 600, errors: 2, exhaustedRounds: 1, firstError: 'boom' });
    // 600 latencies: 1..100, 1..300, 1..200 ms; the 300th is 100 ms or less.
    expect(f.p50Ms).toBeLessThanOrEqual(100);
    expect(f.p99Ms).toBeGreaterThan(200);
    expect(clientOpFigures(rounds(sample(0, 1000, 1)))).toBeNull();
  });

  it("the cluster's CPU per op, the cores busy, and the ceiling it sets on the ops/s of any client", () => {
    const o = compareOp('lookup', {
      // 1,000 ops/s; the cluster spends 1.5 ms per op, the client 0.25 ms: 1.75 cores busy.
      'fastpath-rpc': rounds(
        sample(1000, 1000, 250, { clusterCpuMs: 1500 }),
        sample(1000, 1000, 250, { clusterCpuMs: 1400 }),
      ),
      // A window whose cluster CPU could not be read has no cluster figures.
      'fastpath-grpc': rounds(sample(800, 1000, 400)),
      java: rounds(
        sample(800, 1000, 500, { clusterCpuMs: 1200 }),
        sample(900, 1000, 500, { clusterCpuMs: 1350 }),
      ),
    });
    const rpc = o.clients['fastpath-rpc']!;
    expect(rpc.clusterCpuMsPerOp).toMatchObject({ median: 1.45, min: 1.4, max: 1.5 });
    expect(rpc.busyCores).toMatchObject({ min: 1.65, max: 1.75 });
    expect(o.clients['fastpath-grpc']!.clusterCpuMsPerOp).toBeUndefined();
    // 2 cores ÷ 1.45 ms per op = 1,379 ops/s at most, 1.62× Java's median of 850.
    const ceiling = opsCeiling(o, 'fastpath-rpc', 2)!;
    expect(ceiling.opsPerSec).toBeCloseTo(2000 / 1.45, 6);
    expect(ceiling.againstJava).toBeCloseTo(2000 / 1.45 / 850, 6);
    expect(opsCeiling(o, 'fastpath-grpc', 2)).toBeNull();
  });

  it("each fastpath transport against Java's client over rounds paired by number, and the goals", () => {
    const o = compareOp('lookup', {
      'fastpath-rpc': rounds(sample(300, 1000, 30), sample(400, 1000, 40)),
      'fastpath-grpc': rounds(sample(150, 1000, 30), sample(200, 1000, 40)),
      java: rounds(sample(100, 1000, 100), sample(200, 1000, 200)),
    });
    // RPC: 3× and 2× per round; ratio of medians 350 / 150.
    expect(o.againstJava['fastpath-rpc']!.opsPerSec.ratio).toBeCloseTo(350 / 150, 9);
    expect(o.againstJava['fastpath-rpc']!.opsPerSec).toMatchObject({ min: 2, max: 3 });
    // CPU per op: 0.1 ms against 1 ms in both rounds.
    expect(o.againstJava['fastpath-rpc']!.cpuMsPerOp.ratio).toBeCloseTo(0.1, 9);
    expect(o.againstJava['fastpath-grpc']!.opsPerSec.ratio).toBeCloseTo(175 / 150, 9);
    const goals = metaGoals([o]);
    expect(goals.map((g) => g.met)).toEqual([false, true]);
    expect(goals[0]!.measured).toMatch(/^RPC .*, gRPC /);
    const alone = compareOp('lookup', {
      'fastpath-rpc': rounds(sample(1, 1, 1)),
      'fastpath-grpc': rounds(sample(1, 1, 1)),
    });
    expect(alone.againstJava).toEqual({});
    expect(metaGoals([alone]).map((g) => g.met)).toEqual([null, null]);
  });

  it('counts failed operations, clients with nothing done and listing problems as problems', () => {
    const o = compareOp('rename', {
      'fastpath-rpc': rounds(sample(10, 100, 1, { errors: 1 })),
      'fastpath-grpc': rounds(sample(0, 100, 1)),
    });
    expect(o.nothingDone).toEqual(['fastpath-grpc']);
    const v = verifyTotals([
      { expected: 10, found: 9, missing: 1, unexpected: 0, firstProblem: 'a not found' },
      { expected: 5, found: 5, missing: 0, unexpected: 2 },
    ]);
    expect(v).toEqual({
      listings: 2,
      expected: 15,
      found: 14,
      missing: 1,
      unexpected: 2,
      firstProblem: 'a not found',
    });
    expect(problemCount([o], { 'fastpath-rpc': v })).toBe(1 + 1 + 1 + 2);
    expect(problemCount([], {})).toBe(0);
  });

  it("gives each client's rounds, in round order, to the security cost; a round with nothing done is left out", () => {
    const out = metaLevelRounds('kerberos', 'lookup', {
      'fastpath-rpc': [
        { round: 2, sample: sample(300, 1000, 30) },
        { round: 1, sample: sample(100, 1000, 20) },
      ],
      java: [
        { round: 1, sample: sample(0, 1000, 5) },
        { round: 2, sample: sample(50, 500, 50) },
      ],
      'fastpath-grpc': [],
    });
    expect(out).toEqual([
      {
        client: 'fastpath-rpc',
        operation: 'lookup (GetKeyInfo)',
        level: 'kerberos',
        throughput: [100, 300],
        cpuPerOp: [0.2, 0.1],
      },
      {
        client: 'java',
        operation: 'lookup (GetKeyInfo)',
        level: 'kerberos',
        throughput: [100],
        cpuPerOp: [1],
      },
    ]);
  });
});
