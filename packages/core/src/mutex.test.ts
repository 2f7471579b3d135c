import fc from 'fast-check';
import { MetricsRegistry } from './metrics-registry.js';
import { Mutex } from './mutex.js';
import { expectError } from '@fastpath/test-support';
import { FastpathError } from './fastpath-error.js';

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('Mutex', () => {
  it('serves callers one at a time in arrival order', async () => {
    const mutex = new Mutex({ name: 'm' });
    const order: number[] = [];
    let inside = 0;
    let maxInside = 0;
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        mutex.runExclusive(async () => {
          inside++;
          maxInside = Math.max(maxInside, inside);
          order.push(i);
          await settle();
          inside--;
        }),
      ),
    );
    expect(maxInside).toBe(1);
    expect(order).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(mutex.isLocked()).toBe(false);
  });

  for (const how of ['abort', 'timeout'] as const) {
    for (let position = 0; position < 4; position++) {
      it(`passes the turn on when the waiter at position ${position} gives up (${how})`, async () => {
        jest.useFakeTimers();
        try {
          const mutex = new Mutex({ name: 'm' });
          const holder = await mutex.acquire();
          const controller = new AbortController();
          const granted: number[] = [];
          const outcomes = Array.from({ length: 4 }, (_, i) => {
            const options =
              i === position ? (how === 'abort' ? { signal: controller.signal } : { timeoutMs: 50 }) : {};
            return mutex.acquire(options).then(
              (release) => {
                granted.push(i);
                release();
                return 'granted';
              },
              (error: { code: string }) => error.code,
            );
          });
          expect(mutex.waiting).toBe(4);
          if (how === 'abort') controller.abort();
          else await jest.advanceTimersByTimeAsync(50);
          expect(mutex.waiting).toBe(3);
          holder();
          const results = await Promise.all(outcomes);
          expect(results[position]).toBe(how === 'abort' ? 'ERR_LOCK_ABORTED' : 'ERR_LOCK_TIMEOUT');
          expect(granted).toEqual([0, 1, 2, 3].filter((i) => i !== position));
          expect(mutex.isLocked()).toBe(false);
          expect(mutex.waiting).toBe(0);
        } finally {
          jest.useRealTimers();
        }
      });
    }
  }

  it('never lets two callers in at once, whoever gives up (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ hold: fc.nat(3), giveUpAfter: fc.option(fc.nat(4), { nil: null }) }), {
          maxLength: 10,
        }),
        async (calls) => {
          const mutex = new Mutex();
          let inside = 0;
          let broken = false;
          await Promise.all(
            calls.map(async ({ hold, giveUpAfter }) => {
              const controller = new AbortController();
              if (giveUpAfter !== null) {
                void (async () => {
                  for (let i = 0; i < giveUpAfter; i++) await settle();
                  controller.abort();
                })();
              }
              try {
                await mutex.runExclusive(
                  async () => {
                    inside++;
                    if (inside > 1) broken = true;
                    for (let i = 0; i < hold; i++) await settle();
                    inside--;
                  },
                  { signal: controller.signal },
                );
              } catch (error) {
                expect((error as { code: string }).code).toBe('ERR_LOCK_ABORTED');
              }
            }),
          );
          expect(broken).toBe(false);
          expect(mutex.isLocked()).toBe(false);
          expect(mutex.waiting).toBe(0);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('detects a double release and reports to metrics', async () => {
    const metrics = new MetricsRegistry();
    const mutex = new Mutex({ name: 'alloc', metrics });
    const release = await mutex.acquire();
    const waiter = mutex.acquire();
    let text = await metrics.metrics();
    expect(text).toContain('core_lock_holders{lock="alloc",mode="exclusive"} 1');
    expect(text).toContain('core_lock_waiters{lock="alloc",mode="exclusive"} 1');
    release();
    expectError(() => release(), FastpathError, { code: 'ERR_LOCK_STATE' });
    (await waiter)();
    text = await metrics.metrics();
    expect(text).toContain('core_lock_wait_seconds_count{lock="alloc",mode="exclusive"} 2');
    expect(text).toContain('core_lock_hold_seconds_count{lock="alloc",mode="exclusive"} 2');
    expect(text).toContain('core_lock_holders{lock="alloc",mode="exclusive"} 0');
  });
});
