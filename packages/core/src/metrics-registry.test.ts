import { MetricsRegistry } from './metrics-registry.js';
import { expectError } from '@fastpath/test-support';
import { FastpathError } from './fastpath-error.js';

describe('MetricsRegistry', () => {
  it('gets or creates metrics by name, and refuses a second type under one name', async () => {
    const metrics = new MetricsRegistry({ defaultLabels: { instance: 'a' } });
    const c1 = metrics.counter('token_manager_created_total', 'created', ['kind']);
    const c2 = metrics.counter('token_manager_created_total', 'created', ['kind']);
    expect(c2).toBe(c1);
    c1.labels('kms-dt').inc(3);
    expect(await metrics.metrics()).toContain('token_manager_created_total{kind="kms-dt",instance="a"} 3');
    expectError(() => metrics.gauge('token_manager_created_total', 'x'), FastpathError, {
      code: 'ERR_METRIC_TYPE_CONFLICT',
    });
    expect(metrics.contentType).toContain('text/plain');
  });

  it('keeps registries apart', async () => {
    const a = new MetricsRegistry();
    const b = new MetricsRegistry();
    a.counter('x_total', 'x').inc();
    expect(await b.metrics()).not.toContain('x_total');
  });

  it('collects process metrics when asked', async () => {
    const metrics = new MetricsRegistry({ processMetrics: true });
    expect(await metrics.metrics()).toContain('nodejs_eventloop_lag_seconds');
  });

  it('runs a gauge collect hook on scrape', async () => {
    const metrics = new MetricsRegistry();
    let n = 0;
    metrics.gauge('queue_depth', 'depth', [], function () {
      this.set(++n);
    });
    await metrics.metrics();
    expect(await metrics.metrics()).toContain('queue_depth 2');
  });

  it('reports a gauge from live sources, one per label value, read at each scrape', async () => {
    const metrics = new MetricsRegistry();
    let a = 1;
    metrics.gaugeFrom('pool_open', 'open', 'client', 'a', () => a);
    metrics.gaugeFrom('pool_open', 'open', 'client', 'b', () => 5);
    a = 3;
    const text = await metrics.metrics();
    expect(text).toContain('pool_open{client="a"} 3');
    expect(text).toContain('pool_open{client="b"} 5');
    metrics.gaugeFrom('pool_open', 'open', 'client', 'a', () => 9);
    expect(await metrics.metrics()).toContain('pool_open{client="a"} 9');
  });
});
