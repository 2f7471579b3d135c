import { describe, expect, it } from '@jest/globals';
import { waitFor } from '@fastpath/test-support';
import { ChunkBufferPool, type ChunkBufferPoolLimits } from './chunk-buffer-pool.js';

const limits = (
  floorBytes: number,
  ceilingBytes = floorBytes,
  idleDropMs = 60_000,
): ChunkBufferPoolLimits => ({
  floorBytes,
  ceilingBytes,
  idleDropMs,
});

describe('ChunkBufferPool', () => {
  it('hands a given-back buffer out again, for the same size only', () => {
    const pool = new ChunkBufferPool(limits(1 << 20));
    const a = pool.take(4096);
    pool.give(a);
    expect(pool.take(8192).buffer).not.toBe(a.buffer);
    expect(pool.take(4096).buffer).toBe(a.buffer);
    expect(pool.stats).toEqual({ allocated: 2, reused: 1, returned: 1 });
  });

  it('never puts one buffer on the free list twice (two takers would share it)', () => {
    const pool = new ChunkBufferPool(limits(1 << 20));
    const a = pool.take(4096);
    pool.give(a);
    pool.give(a);
    pool.give(Buffer.from(a.buffer, 0, 4096));
    const first = pool.take(4096);
    const second = pool.take(4096);
    expect(first.buffer).toBe(a.buffer);
    expect(second.buffer).not.toBe(a.buffer);
  });

  it('ignores views of part of a buffer and buffers it did not make', () => {
    const pool = new ChunkBufferPool(limits(1 << 20));
    const a = pool.take(4096);
    pool.give(a.subarray(0, 1024));
    pool.give(a.subarray(1));
    pool.give(Buffer.alloc(4096));
    pool.give(Buffer.allocUnsafe(4096));
    expect(pool.stats.returned).toBe(0);
    expect(pool.take(4096).buffer).not.toBe(a.buffer);
  });

  it('keeps at most the ceiling; clear() drops the free list', () => {
    const pool = new ChunkBufferPool(limits(8192));
    const bufs = [pool.take(4096), pool.take(4096), pool.take(4096)];
    for (const b of bufs) pool.give(b);
    expect(pool.stats.returned).toBe(2);
    pool.clear();
    expect(bufs.map((b) => b.buffer)).not.toContain(pool.take(4096).buffer);
  });

  it('keeps as much as the writers held at once, up to the ceiling: the same writes again allocate nothing', () => {
    const pool = new ChunkBufferPool(limits(4096, 4 * 4096));
    const held = [pool.take(4096), pool.take(4096), pool.take(4096)];
    for (const b of held) pool.give(b);
    expect(pool.keepBytes).toBe(3 * 4096);
    expect(pool.freeBytes).toBe(3 * 4096);
    const again = [pool.take(4096), pool.take(4096), pool.take(4096)];
    expect(pool.stats).toEqual({ allocated: 3, reused: 3, returned: 3 });
    for (const b of again) pool.give(b);
    // Six held at once: the ceiling (four) bounds what is kept.
    const six = Array.from({ length: 6 }, () => pool.take(4096));
    for (const b of six) pool.give(b);
    expect(pool.keepBytes).toBe(4 * 4096);
    expect(pool.freeBytes).toBe(4 * 4096);
  });

  it('drops a free list nothing was taken from for idleDropMs, and keeps the process free to exit', async () => {
    const pool = new ChunkBufferPool(limits(1 << 20, 1 << 20, 50));
    const a = pool.take(4096);
    pool.give(a);
    expect(pool.freeBytes).toBe(4096);
    await waitFor('the idle free list dropped', () => pool.freeBytes === 0, { timeoutMs: 5000 });
    expect(pool.take(4096).buffer).not.toBe(a.buffer);
  });
});
