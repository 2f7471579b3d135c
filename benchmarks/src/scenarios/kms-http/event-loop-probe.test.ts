import { eventLoopWindowOf, type EventLoopSnapshot } from './event-loop-probe.js';

const snapshot = (
  pid: number,
  seq: number,
  elu: { idleMs: number; activeMs: number },
  delayMs: { p50: number; p99: number; max: number } = { p50: 1.05, p99: 3, max: 9 },
): EventLoopSnapshot => ({
  pid,
  seq,
  atMs: seq * 1000,
  resolutionMs: 1,
  delay: {
    count: 900,
    meanNs: 1.2e6,
    p50Ns: delayMs.p50 * 1e6,
    p99Ns: delayMs.p99 * 1e6,
    maxNs: delayMs.max * 1e6,
  },
  elu,
});

describe('the event-loop window from the probe snapshots', () => {
  it('takes the delay beyond the 1 ms resolution and the utilization between the last two snapshots', () => {
    const window = eventLoopWindowOf([
      snapshot(10, 1, { idleMs: 500, activeMs: 500 }),
      // 10 s later: 7.5 s busy, 2.5 s idle.
      snapshot(10, 2, { idleMs: 3000, activeMs: 8000 }, { p50: 1.04, p99: 2.5, max: 12 }),
    ]);
    expect(window?.resolutionMs).toBe(1);
    expect(window?.processes).toHaveLength(1);
    const p = window!.processes[0]!;
    expect(p.p50Ms).toBeCloseTo(0.04, 9);
    expect(p.p99Ms).toBeCloseTo(1.5, 9);
    expect(p.maxMs).toBeCloseTo(11, 9);
    expect(p.utilization).toBeCloseTo(0.75, 9);
    expect(window?.busiest).toBe(p);
  });

  it('names the busiest process of a cluster and leaves out one with a single snapshot', () => {
    const window = eventLoopWindowOf([
      snapshot(1, 1, { idleMs: 0, activeMs: 0 }),
      snapshot(1, 2, { idleMs: 9500, activeMs: 500 }), // the primary: idles
      snapshot(2, 1, { idleMs: 0, activeMs: 0 }),
      snapshot(2, 3, { idleMs: 1000, activeMs: 9000 }), // a worker; seq 2 was an earlier window
      snapshot(2, 2, { idleMs: 0, activeMs: 0 }),
      snapshot(3, 1, { idleMs: 0, activeMs: 0 }), // started late
    ]);
    expect(window?.processes.map((p) => p.pid)).toEqual([1, 2]);
    expect(window?.busiest?.pid).toBe(2);
    expect(window?.busiest?.utilization).toBeCloseTo(0.9, 9);
  });

  it('is null without two snapshots of any process', () => {
    expect(eventLoopWindowOf([])).toBeNull();
    expect(eventLoopWindowOf([snapshot(1, 1, { idleMs: 1, activeMs: 1 })])).toBeNull();
  });
});
