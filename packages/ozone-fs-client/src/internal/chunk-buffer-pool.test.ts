import { describe, expect, it } from '@jest/globals';
import { ChunkBufferPool } from './chunk-buffer-pool.js';

describe('ChunkBufferPool', () => {
  it('hands a given-back buffer out again, for the same size only', () => {
    const pool = new ChunkBufferPool(1 << 20);
    const a = pool.take(4096);
    pool.give(a);
    expect(pool.take(8192).buffer).not.toBe(a.buffer);
    expect(pool.take(4096).buffer).toBe(a.buffer);
    expect(pool.stats).toEqual({ allocated: 2, reused: 1, returned: 1 });
  });

  it('never puts one buffer on the free list twice (two takers would share it)', () => {
    const pool = new ChunkBufferPool(1 << 20);
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
    const pool = new ChunkBufferPool(1 << 20);
    const a = pool.take(4096);
    pool.give(a.subarray(0, 1024));
    pool.give(a.subarray(1));
    pool.give(Buffer.alloc(4096));
    pool.give(Buffer.allocUnsafe(4096));
    expect(pool.stats.returned).toBe(0);
    expect(pool.take(4096).buffer).not.toBe(a.buffer);
  });

  it('keeps at most maxFreeBytes; clear() drops the free list', () => {
    const pool = new ChunkBufferPool(8192);
    const bufs = [pool.take(4096), pool.take(4096), pool.take(4096)];
    for (const b of bufs) pool.give(b);
    expect(pool.stats.returned).toBe(2);
    pool.clear();
    expect(bufs.map((b) => b.buffer)).not.toContain(pool.take(4096).buffer);
  });
});
