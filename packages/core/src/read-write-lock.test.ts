import fc from 'fast-check';
import { FastpathError } from './fastpath-error.js';
import { MetricsRegistry } from './metrics-registry.js';
import { ReadWriteLock } from './read-write-lock.js';
import { expectError } from '@fastpath/test-support';

/** Lets every queued promise callback run. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function track<T>(promise: Promise<T>): {
  readonly done: boolean;
  readonly value: T | undefined;
  readonly error: unknown;
} {
  const state = { done: false, value: undefined as T | undefined, error: undefined as unknown };
  promise.then(
    (value) => Object.assign(state, { done: true, value }),
    (error: unknown) => Object.assign(state, { done: true, error }),
  );
  return state;
}

describe('ReadWriteLock', () => {
  it('lets readers share and keeps a writer alone', async () => {
    const lock = new ReadWriteLock({ name: 't' });
    const r1 = await lock.acquireRead();
    const r2 = await lock.acquireRead();
    expect(lock.activeReaders).toBe(2);
    const w = track(lock.acquireWrite());
    await settle();
    expect(w.done).toBe(false);
    r1();
    await settle();
    expect(w.done).toBe(false);
    r2();
    await settle();
    expect(w.done).toBe(true);
    expect(lock.writeLocked).toBe(true);
    const r3 = track(lock.acquireRead());
    await settle();
    expect(r3.done).toBe(false);
    (w.value as () => void)();
    await settle();
    expect(r3.done).toBe(true);
  });

  it('makes readers that arrive after a waiting writer wait behind it (no writer starvation)', async () => {
    const lock = new ReadWriteLock();
    const first = await lock.acquireRead();
    const writer = track(lock.acquireWrite());
    const lateReader = track(lock.acquireRead());
    await settle();
    expect(writer.done).toBe(false);
    expect(lateReader.done).toBe(false);
    expect(lock.activeReaders).toBe(1);
    first();
    await settle();
    expect(writer.done).toBe(true);
    expect(lateReader.done).toBe(false);
    (writer.value as () => void)();
    await settle();
    expect(lateReader.done).toBe(true);
  });

  it('keeps a writer waiting only as long as the readers ahead of it, under a continuous reader stream', async () => {
    const lock = new ReadWriteLock();
    let stop = false;
    let readsAfterWriter = 0;
    let writerDone = false;
    const readers = Array.from({ length: 8 }, async () => {
      while (!stop) {
        await lock.runRead(async () => {
          if (writerDone) readsAfterWriter++;
          await settle();
        });
      }
    });
    await settle();
    await lock.runWrite(() => {
      expect(lock.activeReaders).toBe(0);
      writerDone = true;
    });
    await settle();
    stop = true;
    await Promise.all(readers);
    expect(writerDone).toBe(true);
    expect(readsAfterWriter).toBeGreaterThan(0);
  });

  it('lets readers queued together in together, up to the next writer', async () => {
    const lock = new ReadWriteLock();
    const w1 = await lock.acquireWrite();
    const readers = [track(lock.acquireRead()), track(lock.acquireRead()), track(lock.acquireRead())];
    const w2 = track(lock.acquireWrite());
    const r4 = track(lock.acquireRead());
    await settle();
    w1();
    await settle();
    expect(readers.every((r) => r.done)).toBe(true);
    expect(lock.activeReaders).toBe(3);
    expect(w2.done).toBe(false);
    expect(r4.done).toBe(false);
    expect(lock.state().waiters).toEqual({ read: 1, write: 1 });
  });

  it('runs an uncontended synchronous section at once and releases on throw', async () => {
    const lock = new ReadWriteLock();
    let ran = false;
    const p = lock.runRead(() => {
      ran = true;
      return 7;
    });
    expect(ran).toBe(true);
    expect(lock.activeReaders).toBe(0);
    await expect(p).resolves.toBe(7);
    await expect(
      lock.runWrite(() => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(lock.writeLocked).toBe(false);
    await expect(lock.runWrite(async () => Promise.reject(new Error('late boom')))).rejects.toThrow(
      'late boom',
    );
    expect(lock.writeLocked).toBe(false);
  });

  it('throws ERR_LOCK_STATE on a second release', async () => {
    const lock = new ReadWriteLock();
    const release = await lock.acquireRead();
    release();
    expectError(() => release(), FastpathError, { code: 'ERR_LOCK_STATE' });
    expect(lock.activeReaders).toBe(0);
  });

  describe('abort and timeout in every queue position', () => {
    // Queue behind a held write lock: R R W R W. Each position in turn gives up; the rest must
    // still be served in order, and the one that gave up must never get the lock.
    const pattern = ['read', 'read', 'write', 'read', 'write'] as const;

    for (const how of ['abort', 'timeout'] as const) {
      for (let position = 0; position < pattern.length; position++) {
        it(`${how} at position ${position} (${pattern[position]})`, async () => {
          jest.useFakeTimers();
          try {
            const lock = new ReadWriteLock({ name: 'q' });
            const holder = await lock.acquireWrite();
            const controller = new AbortController();
            const grants: number[] = [];
            const releases: Array<() => void> = [];
            const calls = pattern.map((mode, i) => {
              const options =
                i === position ? (how === 'abort' ? { signal: controller.signal } : { timeoutMs: 100 }) : {};
              const p = mode === 'read' ? lock.acquireRead(options) : lock.acquireWrite(options);
              return track(
                p.then((release) => {
                  grants.push(i);
                  releases.push(release);
                  return release;
                }),
              );
            });
            expect(lock.waiting).toBe(5);
            if (how === 'abort') controller.abort(new Error('caller went away'));
            else await jest.advanceTimersByTimeAsync(100);
            for (let i = 0; i < 10; i++) await Promise.resolve();
            expect(calls[position]?.done).toBe(true);
            expect(calls[position]?.error).toBeInstanceOf(FastpathError);
            expect((calls[position]?.error as FastpathError).code).toBe(
              how === 'abort' ? 'ERR_LOCK_ABORTED' : 'ERR_LOCK_TIMEOUT',
            );
            expect(lock.waiting).toBe(4);
            // Drain: release whatever holds the lock until everyone else has had it.
            holder();
            for (let round = 0; round < 10 && (grants.length < 4 || releases.length > 0); round++) {
              await jest.advanceTimersByTimeAsync(0);
              while (releases.length > 0) releases.shift()?.();
              await jest.advanceTimersByTimeAsync(0);
            }
            const expected = pattern.map((_, i) => i).filter((i) => i !== position);
            expect(grants).toEqual(expected);
            expect(lock.waiting).toBe(0);
            expect(lock.activeReaders).toBe(0);
            expect(lock.writeLocked).toBe(false);
          } finally {
            jest.useRealTimers();
          }
        });
      }
    }

    it('rejects at once when the signal is already aborted, and leaves no waiter', async () => {
      const lock = new ReadWriteLock();
      const release = await lock.acquireWrite();
      const controller = new AbortController();
      controller.abort();
      await expect(lock.acquireRead({ signal: controller.signal })).rejects.toMatchObject({
        code: 'ERR_LOCK_ABORTED',
      });
      expect(lock.waiting).toBe(0);
      release();
    });

    it('lets readers behind an aborted writer in as soon as the writer leaves', async () => {
      const lock = new ReadWriteLock();
      const reader = await lock.acquireRead();
      const controller = new AbortController();
      const writer = track(lock.acquireWrite({ signal: controller.signal }));
      const late = track(lock.acquireRead());
      await settle();
      expect(late.done).toBe(false);
      controller.abort();
      await settle();
      expect(writer.error).toMatchObject({ code: 'ERR_LOCK_ABORTED' });
      expect(late.done).toBe(true);
      expect(lock.activeReaders).toBe(2);
      reader();
    });

    it('refuses a negative timeout with ERR_INVALID_OPTION', async () => {
      const lock = new ReadWriteLock();
      const release = await lock.acquireWrite();
      await expect(lock.acquireRead({ timeoutMs: -1 })).rejects.toMatchObject({ code: 'ERR_INVALID_OPTION' });
      release();
    });
  });

  it('keeps exclusion, sharing and arrival order over random interleavings', async () => {
    type Op = { write: boolean; holdTicks: number; arriveTick: number; giveUpTick: number | null };
    const opArb = fc.record({
      write: fc.boolean(),
      holdTicks: fc.integer({ min: 0, max: 4 }),
      arriveTick: fc.integer({ min: 0, max: 6 }),
      giveUpTick: fc.option(fc.integer({ min: 0, max: 6 }), { nil: null }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 12 }), async (ops: Op[]) => {
        const lock = new ReadWriteLock();
        let readers = 0;
        let writers = 0;
        let maxReaders = 0;
        const waiting = new Map<number, boolean>(); // arrival index → is writer
        let arrivals = 0;
        const violations: string[] = [];
        const tick = async (n: number): Promise<void> => {
          for (let i = 0; i < n; i++) await settle();
        };
        await Promise.all(
          ops.map(async (op) => {
            await tick(op.arriveTick);
            const me = arrivals++;
            const controller = new AbortController();
            if (op.giveUpTick !== null) void tick(op.giveUpTick).then(() => controller.abort());
            waiting.set(me, op.write);
            const acquire = op.write
              ? lock.acquireWrite({ signal: controller.signal })
              : lock.acquireRead({ signal: controller.signal });
            let release: () => void;
            try {
              release = await acquire;
            } catch (error) {
              waiting.delete(me);
              if ((error as FastpathError).code !== 'ERR_LOCK_ABORTED')
                violations.push(`unexpected ${String(error)}`);
              return;
            }
            // Granted: nobody that arrived earlier may still wait if I am a writer; no earlier
            // writer may still wait if I am a reader.
            waiting.delete(me);
            for (const [other, otherWrites] of waiting) {
              if (other < me && (op.write || otherWrites)) violations.push(`${me} overtook ${other}`);
            }
            if (op.write) writers++;
            else readers++;
            maxReaders = Math.max(maxReaders, readers);
            if (writers > 1 || (writers === 1 && readers > 0)) violations.push('exclusion broken');
            await tick(op.holdTicks);
            if (op.write) writers--;
            else readers--;
            release();
          }),
        );
        expect(violations).toEqual([]);
        expect(lock.waiting).toBe(0);
        expect(lock.activeReaders).toBe(0);
        expect(lock.writeLocked).toBe(false);
      }),
      { numRuns: 150 },
    );
  });

  it('reports waiters, holders, wait and hold times through the metrics registry', async () => {
    const metrics = new MetricsRegistry();
    const lock = new ReadWriteLock({ name: 'tokens', metrics });
    const writer = await lock.acquireWrite();
    const reader = track(lock.acquireRead());
    const timedOut = lock.acquireWrite({ timeoutMs: 1 });
    await expect(timedOut).rejects.toMatchObject({ code: 'ERR_LOCK_TIMEOUT' });
    let text = await metrics.metrics();
    expect(text).toContain('core_lock_holders{lock="tokens",mode="write"} 1');
    expect(text).toContain('core_lock_waiters{lock="tokens",mode="read"} 1');
    expect(text).toContain('core_lock_acquire_failures_total{lock="tokens",mode="write",reason="timeout"} 1');
    writer();
    await settle();
    (reader.value as () => void)();
    text = await metrics.metrics();
    expect(text).toContain('core_lock_holders{lock="tokens",mode="write"} 0');
    expect(text).toContain('core_lock_waiters{lock="tokens",mode="read"} 0');
    expect(text).toContain('core_lock_wait_seconds_count{lock="tokens",mode="read"} 1');
    expect(text).toContain('core_lock_wait_seconds_count{lock="tokens",mode="write"} 1');
    expect(text).toContain('core_lock_hold_seconds_count{lock="tokens",mode="write"} 1');
    expect(text).toContain('core_lock_hold_seconds_count{lock="tokens",mode="read"} 1');
    // The read waited for the writer; its recorded wait is at least the time it stood in line.
    const sum = /core_lock_wait_seconds_sum\{lock="tokens",mode="read"\} ([0-9.e-]+)/.exec(text);
    expect(Number(sum?.[1])).toBeGreaterThan(0);
  });
});
