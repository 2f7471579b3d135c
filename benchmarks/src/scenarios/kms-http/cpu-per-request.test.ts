import type { WindowSummary } from '../../harness/mixed-load/goodput-window.js';
import { cpuPerRequest, estimatedCreationUs } from './cpu-per-request.js';

const window = (verify: number, create: number, measureMs = 10_000): WindowSummary => ({
  measureMs,
  counted: { verify: { ok: verify, errors: 0 }, create: { ok: create, errors: 0 } },
  warmup: { verify: { ok: 0, errors: 0 }, create: { ok: 0, errors: 0 } },
  drained: { verify: { ok: 0, errors: 0 }, create: { ok: 0, errors: 0 } },
  throughput: (verify + create) / (measureMs / 1000),
  throughputByOp: { verify: verify / (measureMs / 1000), create: create / (measureMs / 1000) },
  errorSamples: [],
});

describe('CPU per request', () => {
  it('divides each group’s CPU over the window by the requests counted in it', () => {
    // 10 s, 100 000 verifications, the server used 8 s: 80 µs each, 80% of a core.
    const c = cpuPerRequest(window(100_000, 0), {
      intervalMs: 10_000,
      seconds: { server: 8, zookeeper: 0.1 },
      generatorSeconds: 7.5,
    });
    expect(c.requests).toBe(100_000);
    expect(c.serverUsPerRequest).toBeCloseTo(80, 9);
    expect(c.serverUsPerVerification).toBeCloseTo(80, 9);
    expect(c.generatorUsPerRequest).toBeCloseTo(75, 9);
    expect(c.zookeeperUsPerCreation).toBeNull();
    expect(c.percentOfOneCore.server).toBeCloseTo(80, 9);
  });

  it('prices ZooKeeper per creation and gives no per-verification figure for a mix with creations', () => {
    const c = cpuPerRequest(window(9000, 1000), {
      intervalMs: 10_000,
      seconds: { server: 1.2, zookeeper: 0.45 },
      generatorSeconds: 0.8,
    });
    expect(c.serverUsPerRequest).toBeCloseTo(120, 9);
    expect(c.serverUsPerVerification).toBeNull();
    expect(c.zookeeperUsPerCreation).toBeCloseTo(450, 9);
    expect(c.creations).toBe(1000);
  });

  it('uses CPU rates, so a reading interval a little longer than the window does not inflate the cost', () => {
    const c = cpuPerRequest(window(10_000, 0), {
      intervalMs: 10_100,
      seconds: { server: 1.01 },
      generatorSeconds: 0,
    });
    expect(c.serverUsPerRequest).toBeCloseTo(100, 9);
  });

  it('is null where /proc was not readable or nothing completed', () => {
    const none = cpuPerRequest(window(0, 0), {
      intervalMs: 10_000,
      seconds: { server: 1 },
      generatorSeconds: 1,
    });
    expect(none.serverUsPerRequest).toBeNull();
    const noProc = cpuPerRequest(window(10, 0), {
      intervalMs: 10_000,
      seconds: { server: null },
      generatorSeconds: 1,
    });
    expect(noProc.serverUsPerRequest).toBeNull();
    expect(noProc.percentOfOneCore.server).toBeNull();
  });

  it('estimates a creation from a mixed case and the 100:0 cost per verification', () => {
    // 90:10 at 150 µs per request, 100 µs per verification: a creation costs 600 µs.
    expect(estimatedCreationUs(150, 0.1, 100)).toBeCloseTo(600, 9);
    expect(estimatedCreationUs(100, 0, 100)).toBeNull();
  });
});
