import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { POOLED_MIN_BYTES, ReceiveBufferPool } from './receive-buffer-pool.js';

const MiB = 1024 * 1024;

function pool(maxFreeBytes = 16 * MiB, idleMs = 1000): ReceiveBufferPool {
  return new ReceiveBufferPool({ maxFreeBytes, idleMs });
}

describe('ReceiveBufferPool', () => {
  afterEach(() => {
    jest.useRealTimers();
  });

  it('lends a buffer of exactly the length asked, and the same memory again once it is handed back', () => {
    const p = pool();
    const a = p.acquire(MiB + 600);
    expect(a.length).toBe(MiB + 600);
    p.release(a);
    expect(p.freeBytes).toBeGreaterThanOrEqual(MiB + 600);
    const b = p.acquire(MiB + 100);
    expect(b.length).toBe(MiB + 100);
    expect(b.buffer).toBe(a.buffer);
    expect(p.freeBytes).toBe(0);
  });

  it('never lends memory that was not handed back', () => {
    const p = pool();
    const kept = p.acquire(MiB);
    kept.fill(7);
    const others = Array.from({ length: 8 }, () => p.acquire(MiB));
    for (const o of others) {
      expect(o.buffer).not.toBe(kept.buffer);
      o.fill(9);
      p.release(o);
    }
    expect(kept.every((b) => b === 7)).toBe(true);
  });

  it('ignores a stale release: memory lent again since is not taken from its new reader', () => {
    const p = pool();
    const first = p.acquire(MiB);
    p.release(first);
    const second = p.acquire(MiB);
    expect(second.buffer).toBe(first.buffer);
    p.release(first); // the first reader's second release, after the memory went to another
    const third = p.acquire(MiB);
    expect(third.buffer).not.toBe(second.buffer);
  });

  it('ignores views, foreign buffers and answers below the pooled size', () => {
    const p = pool();
    const a = p.acquire(MiB);
    p.release(a.subarray(0, 10));
    p.release(Buffer.alloc(MiB));
    expect(p.freeBytes).toBe(0);
    const small = p.acquire(POOLED_MIN_BYTES - 1);
    expect(small.length).toBe(POOLED_MIN_BYTES - 1);
    p.release(small);
    expect(p.freeBytes).toBe(0);
    // `a` is still lent: it is not handed out again.
    expect(p.acquire(MiB).buffer).not.toBe(a.buffer);
  });

  it('does not lend a free buffer more than twice the size asked', () => {
    const p = pool();
    const big = p.acquire(4 * MiB);
    p.release(big);
    expect(p.acquire(MiB).buffer).not.toBe(big.buffer);
    expect(p.acquire(3 * MiB).buffer).toBe(big.buffer);
  });

  it('keeps at most maxFreeBytes free; the rest is left to the collector', () => {
    const p = pool(2 * MiB);
    const lent = [p.acquire(MiB), p.acquire(MiB), p.acquire(MiB)];
    for (const b of lent) p.release(b);
    expect(p.freeBytes).toBe(2 * MiB);
  });

  it('drops its free buffers after idleMs without an acquire, and keeps them while buffers are taken', () => {
    jest.useFakeTimers({ now: 0 });
    const p = pool(16 * MiB, 1000);
    p.release(p.acquire(MiB));
    jest.advanceTimersByTime(600);
    p.release(p.acquire(MiB)); // used again: the second counts from here
    jest.advanceTimersByTime(600);
    expect(p.freeBytes).toBe(MiB);
    jest.advanceTimersByTime(500);
    expect(p.freeBytes).toBe(0);
  });
});
