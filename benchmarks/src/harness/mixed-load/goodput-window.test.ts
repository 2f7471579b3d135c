import { GoodputWindow } from './goodput-window.js';

describe('GoodputWindow', () => {
  it('counts only successful completions inside the window; late completions are drained', () => {
    const w = new GoodputWindow(1_000, 3_000); // 2 s window
    w.record('verify', true, 900, 950); // warm-up
    w.record('verify', true, 990, 1_010); // started in warm-up, completed inside: counts
    w.record('verify', true, 1_500, 1_501);
    w.record('create', true, 2_000, 2_010);
    w.record('create', false, 2_100, 2_200, 'HTTP 500');
    w.record('verify', true, 2_990, 3_000); // exactly at the cutoff: counts
    w.record('verify', true, 2_995, 3_001); // after the cutoff: drained
    w.record('create', true, 2_999, 3_100); // drained
    const s = w.summary();
    expect(s.counted).toEqual({ verify: { ok: 3, errors: 0 }, create: { ok: 1, errors: 1 } });
    expect(s.warmup.verify.ok).toBe(1);
    expect(s.drained).toEqual({ verify: { ok: 1, errors: 0 }, create: { ok: 1, errors: 0 } });
    expect(s.throughput).toBe(2); // 4 successes / 2 s
    expect(s.throughputByOp).toEqual({ verify: 1.5, create: 0.5 });
    expect(s.errorSamples).toEqual(['create: HTTP 500']);
    expect(w.latency.verify.count).toBe(3);
    expect(w.latency.create.count).toBe(1);
  });

  it('refuses a window that ends before it starts', () => {
    expect(() => new GoodputWindow(5, 5)).toThrow(RangeError);
  });
});
