import { InFlightLimiter } from './in-flight-limiter.js';

describe('InFlightLimiter', () => {
  it('runs at most `limit` tasks at once, in arrival order', async () => {
    const limiter = new InFlightLimiter(2);
    const started: number[] = [];
    const gates: Array<() => void> = [];
    let peak = 0;
    const tasks = [0, 1, 2, 3, 4].map((i) =>
      limiter.run(async () => {
        started.push(i);
        peak = Math.max(peak, limiter.active);
        await new Promise<void>((resolve) => gates.push(resolve));
        return i;
      }),
    );
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([0, 1]);
    while (gates.length > 0 || started.length < 5) {
      gates.shift()?.();
      await new Promise((r) => setImmediate(r));
    }
    expect(await Promise.all(tasks)).toEqual([0, 1, 2, 3, 4]);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(peak).toBe(2);
    expect(limiter.active).toBe(0);
  });

  it('releases its slot when a task throws', async () => {
    const limiter = new InFlightLimiter(1);
    await expect(limiter.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await limiter.run(() => Promise.resolve(7))).toBe(7);
  });
});
