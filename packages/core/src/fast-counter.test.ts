import { expectError } from '@fastpath/test-support';
import { FastpathError } from './fastpath-error.js';
import { MetricsRegistry } from './metrics-registry.js';

describe('FastCounter', () => {
  it('prints exactly what a prom-client counter prints for the same increments', async () => {
    const fast = new MetricsRegistry();
    const slow = new MetricsRegistry();
    const f = fast.fastCounter('requests_total', 'requests', ['op', 'status']);
    const s = slow.counter('requests_total', 'requests', ['op', 'status']);
    const fOk = f.series('verify', '200');
    const fDenied = f.series('verify', '403');
    for (let i = 0; i < 7; i++) {
      (i % 3 === 0 ? fDenied : fOk).inc();
      s.labels('verify', i % 3 === 0 ? '403' : '200').inc();
    }
    fOk.inc(2.5);
    s.labels('verify', '200').inc(2.5);
    const normalise = (text: string): string[] => text.split('\n').filter(Boolean).sort();
    expect(normalise(await fast.metrics())).toEqual(normalise(await slow.metrics()));
  });

  it('prints a counter without labels as 0 before its first increment, as prom-client does', async () => {
    const fast = new MetricsRegistry();
    const slow = new MetricsRegistry();
    fast.fastCounter('done_total', 'done');
    slow.counter('done_total', 'done');
    expect(await fast.metrics()).toBe(await slow.metrics());
    expect(await fast.metrics()).toContain('done_total 0');
  });

  it('is got-or-created by name and resets', async () => {
    const metrics = new MetricsRegistry();
    const a = metrics.fastCounter('x_total', 'x', ['l']);
    expect(metrics.fastCounter('x_total', 'x', ['l'])).toBe(a);
    expectError(() => metrics.counter('x_total', 'x'), FastpathError, { code: 'ERR_METRIC_TYPE_CONFLICT' });
    a.series('v').inc();
    expect(await metrics.metrics()).toContain('x_total{l="v"} 1');
    a.reset();
    expect(await metrics.metrics()).toContain('x_total{l="v"} 0');
  });
});
