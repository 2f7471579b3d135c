import { setTimeout as sleep } from 'node:timers/promises';
import { MetricsRegistry } from '@fastpath/core';
import { EVENT_LOOP_RESOLUTION_MS, eventLoopDelaySeconds, KmsMetrics } from './kms-metrics.js';

function gaugeValue(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  if (line === undefined) throw new Error(`no ${series} in:\n${text}`);
  return Number(line.slice(series.length + 1));
}

describe('KmsMetrics event loop', () => {
  it('reports delay as the part of a tick interval beyond the resolution, never below 0', () => {
    // A monitor tick 10.3 ms after the previous one, at 10 ms resolution: 0.3 ms late.
    expect(eventLoopDelaySeconds(10.3e6, 10)).toBeCloseTo(0.0003, 9);
    expect(eventLoopDelaySeconds(10e6, 10)).toBe(0);
    // Timers may fire a little early; that is no delay.
    expect(eventLoopDelaySeconds(9.9e6, 10)).toBe(0);
  });

  it('shows a blocked loop in the delay and the utilization, and only the block beyond the resolution', async () => {
    const registry = new MetricsRegistry();
    const metrics = new KmsMetrics(registry);
    try {
      await registry.metrics(); // starts both windows here
      await sleep(3 * EVENT_LOOP_RESOLUTION_MS);
      const blockMs = 80;
      // The loop can run nothing for 80 ms, timed with the monotonic clock: Date.now() is whole
      // milliseconds, so waiting for it to pass now + 80 blocked as little as 79.x ms.
      const started = performance.now();
      while (performance.now() - started < blockMs);
      await sleep(3 * EVENT_LOOP_RESOLUTION_MS);
      const text = await registry.metrics();
      const max = gaugeValue(text, 'kms_event_loop_delay_seconds{quantile="1"}');
      expect(max).toBeGreaterThanOrEqual((blockMs - EVENT_LOOP_RESOLUTION_MS) / 1000);
      const busy = gaugeValue(text, 'kms_event_loop_utilization');
      expect(busy).toBeGreaterThan(0);
      expect(busy).toBeLessThanOrEqual(1);
    } finally {
      metrics.close();
    }
  });
});
