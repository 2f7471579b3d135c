import { LatencyRecorder } from './latency-recorder.js';
import { expectError } from '@fastpath/test-support';
import { FastpathError } from './fastpath-error.js';

describe('LatencyRecorder', () => {
  it('gives exact percentiles to three significant digits', () => {
    const recorder = new LatencyRecorder();
    for (let ms = 1; ms <= 1000; ms++) recorder.recordMs(ms);
    const s = recorder.summary();
    expect(s.count).toBe(1000);
    expect(s.p50Ms).toBeCloseTo(500, 0);
    expect(s.p90Ms).toBeCloseTo(900, 0);
    expect(s.p99Ms).toBeCloseTo(990, 0);
    expect(s.p999Ms).toBeCloseTo(999, 0);
    expect(s.maxMs).toBeCloseTo(1000, 0);
    expect(s.minMs).toBeCloseTo(1, 2);
    expect(s.meanMs).toBeCloseTo(500.5, 0);
  });

  it('keeps microsecond resolution for sub-millisecond values', () => {
    const recorder = new LatencyRecorder();
    recorder.recordMs(0.012);
    recorder.recordMs(0.25);
    expect(recorder.summary().minMs).toBeCloseTo(0.012, 3);
    expect(recorder.summary().maxMs).toBeCloseTo(0.25, 3);
  });

  it('merges recorders sent across as base64, as from worker threads', () => {
    const a = new LatencyRecorder();
    const b = new LatencyRecorder();
    for (let i = 0; i < 100; i++) a.recordMs(1);
    for (let i = 0; i < 100; i++) b.recordMs(100);
    const merged = new LatencyRecorder();
    merged.merge(LatencyRecorder.fromBase64(a.toBase64()));
    merged.merge(LatencyRecorder.fromBase64(b.toBase64()));
    const s = merged.summary();
    expect(s.count).toBe(200);
    expect(s.p50Ms).toBeCloseTo(1, 1);
    expect(s.p99Ms).toBeCloseTo(100, 0);
  });

  it('rejects negative values and garbage encodings with typed errors', () => {
    const recorder = new LatencyRecorder();
    expectError(() => recorder.recordMs(-1), FastpathError, { code: 'ERR_INVALID_LATENCY' });
    expectError(() => recorder.recordMs(Number.NaN), FastpathError, { code: 'ERR_INVALID_LATENCY' });
    expectError(() => LatencyRecorder.fromBase64('not a histogram'), FastpathError, {
      code: 'ERR_INVALID_LATENCY',
    });
  });

  it('reports zeros when empty and after reset', () => {
    const recorder = new LatencyRecorder();
    expect(recorder.summary()).toMatchObject({ count: 0, maxMs: 0, p99Ms: 0 });
    recorder.recordMs(5);
    recorder.reset();
    expect(recorder.count).toBe(0);
  });
});
