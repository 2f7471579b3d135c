import { ManualClock, systemClock } from './clock.js';

describe('clocks', () => {
  it('ManualClock moves only when told, both readings together', () => {
    const clock = new ManualClock(1_000);
    expect(clock.now()).toBe(1_000);
    clock.advance(500);
    expect(clock.now()).toBe(1_500);
    expect(clock.monotonicMs()).toBe(500);
    clock.set(2_000);
    expect(clock.now()).toBe(2_000);
    expect(clock.monotonicMs()).toBe(1_000);
    expect(() => clock.advance(-1)).toThrow(RangeError);
  });

  it('systemClock follows Date.now', () => {
    const before = Date.now();
    const now = systemClock.now();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(systemClock.monotonicMs()).toBeGreaterThan(0);
  });
});
