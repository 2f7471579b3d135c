import { MetricsRegistry } from './metrics-registry.js';
import { expectError } from '@fastpath/test-support';
import { FastpathError } from './fastpath-error.js';

describe('FastHistogram', () => {
  it('prints exactly what a prom-client histogram prints for the same observations', async () => {
    const fast = new MetricsRegistry();
    const slow = new MetricsRegistry();
    const buckets = [0.001, 0.01, 0.1, 1];
    const f = fast.fastHistogram('op_seconds', 'op time', ['op', 'mode'], buckets);
    const s = slow.histogram('op_seconds', 'op time', ['op', 'mode'], buckets);
    const values = [0, 0.0005, 0.001, 0.002, 0.05, 0.5, 1, 3, 0.01];
    const fRead = f.series('verify', 'read');
    const fWrite = f.series('create', 'write');
    values.forEach((v, i) => {
      (i % 2 === 0 ? fRead : fWrite).observe(v);
      s.labels(i % 2 === 0 ? 'verify' : 'create', i % 2 === 0 ? 'read' : 'write').observe(v);
    });
    const normalise = (text: string): string[] => text.split('\n').filter(Boolean).sort();
    expect(normalise(await fast.metrics())).toEqual(normalise(await slow.metrics()));
  });

  it('is got-or-created by name and resets', async () => {
    const metrics = new MetricsRegistry();
    const a = metrics.fastHistogram('x_seconds', 'x', ['l'], [1]);
    expect(metrics.fastHistogram('x_seconds', 'x', ['l'], [1])).toBe(a);
    expectError(() => metrics.counter('x_seconds', 'x'), FastpathError, { code: 'ERR_METRIC_TYPE_CONFLICT' });
    a.series('v').observe(2);
    expect(await metrics.metrics()).toContain('x_seconds_count{l="v"} 1');
    a.reset();
    expect(await metrics.metrics()).toContain('x_seconds_count{l="v"} 0');
  });
});
