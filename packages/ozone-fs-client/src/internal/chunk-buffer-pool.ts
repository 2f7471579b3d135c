// Chunk-sized buffers of a client's writes, used again once the datanodes hold their bytes. A
// write copies the caller's bytes into a buffer that ends at a chunk boundary, and that buffer is
// kept until a watched PutBlock covers the chunk (a failover writes it again from there). A fresh
// 1-4 MiB buffer per chunk costs the kernel's page faults on first touch (measured at 0.6-4.5 ms
// per MiB on virtual machines, where a copy into memory already touched costs 0.07) and, at
// hundreds of MiB per second, most of the process's garbage collection (external memory drives
// V8's full collections); a free list of them costs neither.
//
// How much the free list keeps follows the writers: up to the most bytes they have held at once
// (a streamed writer holds its 64 MiB window, sixteen writers of 16 MiB keys 256 MiB), so that a
// client writing the same way again allocates nothing, as a JVM writes into heap it already has.
// A floor keeps a few chunks for a client that has written little, a ceiling bounds it, and a free
// list no one has taken from for a while is dropped, so an idle client holds no write memory.

/** How the pool has served its takers (for tests and diagnosis). */
export interface ChunkBufferPoolStats {
  /** Buffers made new. */
  allocated: number;
  /** Buffers handed out again from the free list. */
  reused: number;
  /** Buffers given back and kept. */
  returned: number;
}

/** How much a pool keeps, and for how long. */
export interface ChunkBufferPoolLimits {
  /** Bytes the free list may keep even before writers have held that much. */
  floorBytes: number;
  /** Bytes the free list never keeps more of, whatever the writers held. */
  ceilingBytes: number;
  /** A free list nothing was taken from for this long is dropped (a timer that never keeps the process alive). */
  idleDropMs: number;
}

export class ChunkBufferPool {
  readonly #limits: ChunkBufferPoolLimits;
  readonly #free = new Map<number, Buffer[]>();
  /** The memory of every buffer this pool made: only those come back. */
  readonly #ours = new WeakSet<ArrayBufferLike>();
  /** The memory of the buffers on the free list: a second give of one is ignored. */
  readonly #onFreeList = new WeakSet<ArrayBufferLike>();
  #freeBytes = 0;
  /**
   * Bytes taken and not given back, and the most there ever were. A buffer a failed write never
   * gives back stays counted: the peak may read high, never above the ceiling that bounds its use.
   */
  #inUseBytes = 0;
  #peakInUseBytes = 0;
  #lastTakeMs = 0;
  #idleTimer: NodeJS.Timeout | undefined;
  readonly stats: ChunkBufferPoolStats = { allocated: 0, reused: 0, returned: 0 };

  constructor(limits: ChunkBufferPoolLimits) {
    this.#limits = { ...limits };
  }

  /** The most bytes the free list keeps now: the writers' peak, between the floor and the ceiling. */
  get keepBytes(): number {
    const { floorBytes, ceilingBytes } = this.#limits;
    return Math.min(ceilingBytes, Math.max(floorBytes, this.#peakInUseBytes));
  }

  /** Bytes on the free list. */
  get freeBytes(): number {
    return this.#freeBytes;
  }

  /** A buffer of `size` bytes that no one else holds (its content is whatever was there). */
  take(size: number): Buffer {
    this.#lastTakeMs = performance.now();
    this.#inUseBytes += size;
    if (this.#inUseBytes > this.#peakInUseBytes) this.#peakInUseBytes = this.#inUseBytes;
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
    this.#inUseBytes = Math.max(0, this.#inUseBytes - data.byteLength);
    if (this.#freeBytes + data.byteLength > this.keepBytes) return;
    const whole = Buffer.from(memory, 0, data.byteLength);
    let list = this.#free.get(whole.length);
    if (!list) this.#free.set(whole.length, (list = []));
    list.push(whole);
    this.#onFreeList.add(memory);
    this.#freeBytes += whole.length;
    this.stats.returned++;
    this.#armIdleDrop(this.#limits.idleDropMs);
  }

  /** Drops the free list (a closed client keeps no memory). */
  clear(): void {
    this.#free.clear();
    this.#freeBytes = 0;
    clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
  }

  #armIdleDrop(afterMs: number): void {
    if (this.#idleTimer) return;
    this.#idleTimer = setTimeout(() => {
      this.#idleTimer = undefined;
      if (this.#freeBytes === 0) return;
      const idleMs = performance.now() - this.#lastTakeMs;
      if (idleMs >= this.#limits.idleDropMs) this.clear();
      else this.#armIdleDrop(this.#limits.idleDropMs - idleMs);
    }, afterMs);
    this.#idleTimer.unref();
  }
}
