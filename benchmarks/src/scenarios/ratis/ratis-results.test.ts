import type { LoadFigures } from './load-figures.js';
import { compareSize } from './ratis-results.js';

const round = (writesPerSec: number, cpuMicrosPerWrite = 100, p99Ms = 10): LoadFigures => ({
  writesPerSec,
  mibPerSec: writesPerSec / 1024,
  p50Ms: p99Ms / 2,
  p99Ms,
  cpuMicrosPerWrite,
});
const size = { size: '1KiB', sizeBytes: 1024, window: 32, writesPerRound: 100 };

describe('compareSize', () => {
  it('summarizes each client and pairs rounds for fastpath ÷ Java', () => {
    const c = compareSize(size, {
      fastpath: { rounds: [round(200, 50), round(300, 60), round(250, 40)] },
      java: { rounds: [round(100), round(200), round(100)] },
    });
    expect(c.clients.fastpath?.writesPerSec).toMatchObject({ median: 250, min: 200, max: 300 });
    expect(c.ratios?.writesPerSec).toMatchObject({ ratio: 2.5, min: 1.5, max: 2.5, rounds: 3 });
    expect(c.ratios?.cpuMicrosPerWrite.ratio).toBe(0.5);
    expect(c.errors).toEqual({});
  });

  it('keeps what a client measured before it stopped, and pairs only rounds both have', () => {
    const c = compareSize(size, {
      fastpath: { rounds: [round(200)], error: 'round 2: ERR_RATIS_TIMEOUT' },
      java: { rounds: [round(100), round(400)] },
    });
    expect(c.errors.fastpath).toMatch(/ERR_RATIS_TIMEOUT/);
    expect(c.clients.fastpath?.rounds).toBe(1);
    expect(c.ratios?.writesPerSec).toMatchObject({ ratio: 2, rounds: 1 });
  });

  it('has no ratios when a client measured nothing', () => {
    const c = compareSize(size, {
      fastpath: { rounds: [], error: 'did not open' },
      java: { rounds: [round(1)] },
    });
    expect(c.clients.fastpath).toBeUndefined();
    expect(c.ratios).toBeUndefined();
  });
});
