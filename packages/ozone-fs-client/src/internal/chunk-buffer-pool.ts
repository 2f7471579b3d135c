// Chunk-sized buffers of a client's writes, used again once the datanodes hold their bytes. A
// write copies the caller's bytes into a buffer that ends at a chunk boundary, and that buffer is
// kept until a watched PutBlock covers the chunk (a failover writes it again from there). A fresh
// 1-4 MiB buffer per chunk costs the kernel's page faults on first touch and, at hundreds of MiB
// per second, most of the process's garbage collection (external memory drives V8's full
// collections); a small free list of them costs neither.

/** How the pool has served its takers (for tests and diagnosis). */
export interface ChunkBufferPoolStats {
  /** Buffers made new. */
  allocated: number;
  /** Buffers handed out again from the free list. */
  reused: number;
  /** Buffers given back and kept. */
  returned: number;
}

export class ChunkBufferPool {
  readonly #maxFreeBytes: number;
  readonly #free = new Map<number, Buffer[]>();
  /** The memory of every buffer this pool made: only those come back. */
  readonly #ours = new WeakSet<ArrayBufferLike>();
  /** The memory of the buffers on the free list: a second give of one is ignored. */
  readonly #onFreeList = new WeakSet<ArrayBufferLike>();
  #freeBytes = 0;
  readonly stats: ChunkBufferPoolStats = { allocated: 0, reused: 0, returned: 0 };

  /** @param maxFreeBytes the most bytes kept on the free list; beyond it, given-back buffers are left to the collector. */
  constructor(maxFreeBytes: number) {
    this.#maxFreeBytes = maxFreeBytes;
  }

  /** A buffer of `size` bytes that no one else holds (its content is whatever was there). */
  take(size: number): Buffer {
    const reused = this.#free.get(size)?.pop();
    if (reused) {
      this.#freeBytes -= size;
      this.#onFreeList.delete(reused.buffer);
      this.stats.reused++;
      return reused;
    }
    // Its own memory, never a slice of Node's shared pool: the whole of it comes back.
    const made = Buffer.allocUnsafeSlow(size);
    this.#ours.add(made.buffer);
    this.stats.allocated++;
    return made;
  }

  /**
   * Gives back a buffer `take` returned, once nothing will read or write its bytes again. A view
   * of part of one, a buffer the pool did not make and one already given back are ignored.
   */
  give(data: Uint8Array): void {
    const memory = data.buffer;
    if (!this.#ours.has(memory) || this.#onFreeList.has(memory)) return;
    if (data.byteOffset !== 0 || data.byteLength !== memory.byteLength) return;
    if (this.#freeBytes + data.byteLength > this.#maxFreeBytes) return;
    const whole = Buffer.from(memory, 0, data.byteLength);
    let list = this.#free.get(whole.length);
    if (!list) this.#free.set(whole.length, (list = []));
    list.push(whole);
    this.#onFreeList.add(memory);
    this.#freeBytes += whole.length;
    this.stats.returned++;
  }

  /** Drops the free list (a closed client keeps no memory). */
  clear(): void {
    this.#free.clear();
    this.#freeBytes = 0;
  }
}
