// Node counts the memory behind every Buffer as external memory, and V8 collects by it as well as
// by its own heap: new Buffer memory brings minor collections, and in a process that holds much
// of it, mark-compacts too. A datanode answer spans many HTTP/2 DATA pieces and was assembled in a
// buffer of its own, a fresh 1 MiB per 1 MiB read beside the socket's own buffers. The answers
// are copied out of these buffers anyway, so the buffers are handed back and assembled into again.

/** Answers shorter than this are assembled in buffers of their own (GetBlock answers, errors). */
export const POOLED_MIN_BYTES = 64 * 1024;
/** Capacities are whole multiples of this, so that answers of about one size share buffers. */
const CAPACITY_STEP_BYTES = 64 * 1024;

export interface ReceiveBufferPoolOptions {
  /** The most bytes of free buffers kept for reuse; a buffer handed back beyond it is left to the collector. */
  maxFreeBytes: number;
  /** Free buffers are dropped when none has been taken for this long (ms). */
  idleMs: number;
}

/**
 * Buffers to assemble received messages in, reused once their reader hands them back. A buffer
 * is lent until {@link release} is called with the very Buffer {@link acquire} returned; one
 * never handed back (kept by its reader, or dropped on an error) is simply collected, so a
 * reader that keeps a view of its message only has to not release it. A stale release (of a
 * buffer lent again since) is ignored: the pool matches the Buffer object, not its memory.
 */
export class ReceiveBufferPool {
  readonly #options: ReceiveBufferPoolOptions;
  /** Free buffers, any order. */
  readonly #free: ArrayBuffer[] = [];
  #freeBytes = 0;
  /** Each lent buffer's memory, mapped to the Buffer it was lent as. */
  readonly #lent = new WeakMap<ArrayBufferLike, Buffer>();
  #lastAcquireMs = 0;
  #trimTimer: NodeJS.Timeout | undefined;

  constructor(options: ReceiveBufferPoolOptions) {
    this.#options = options;
  }

  /** Bytes of free buffers held now. */
  get freeBytes(): number {
    return this.#freeBytes;
  }

  /** A Buffer of exactly `length` bytes (contents undefined), lent until {@link release}. */
  acquire(length: number): Buffer {
    if (length < POOLED_MIN_BYTES) return Buffer.allocUnsafe(length);
    this.#lastAcquireMs = Date.now();
    let best = -1;
    for (let i = 0; i < this.#free.length; i++) {
      const cap = (this.#free[i] as ArrayBuffer).byteLength;
      // The smallest that fits, and not one twice the size (it would hold memory a smaller answer does not need).
      if (cap >= length && cap <= 2 * length && (best < 0 || cap < this.#free[best]!.byteLength)) best = i;
    }
    let memory: ArrayBuffer;
    if (best >= 0) {
      memory = this.#free[best] as ArrayBuffer;
      this.#free[best] = this.#free[this.#free.length - 1] as ArrayBuffer;
      this.#free.pop();
      this.#freeBytes -= memory.byteLength;
    } else {
      const capacity = Math.ceil(length / CAPACITY_STEP_BYTES) * CAPACITY_STEP_BYTES;
      memory = Buffer.allocUnsafeSlow(capacity).buffer;
    }
    const buffer = Buffer.from(memory, 0, length);
    this.#lent.set(memory, buffer);
    return buffer;
  }

  /**
   * Hands back a Buffer {@link acquire} returned: no view of it may be read afterwards. Anything
   * else (a view of it, a Buffer not from this pool, one handed back already) is ignored.
   */
  release(buffer: Uint8Array): void {
    const memory = buffer.buffer;
    if (this.#lent.get(memory) !== buffer) return;
    this.#lent.delete(memory);
    if (this.#freeBytes + memory.byteLength > this.#options.maxFreeBytes) return;
    this.#free.push(memory as ArrayBuffer);
    this.#freeBytes += memory.byteLength;
    this.#armTrim();
  }

  /** Drops every free buffer. */
  clear(): void {
    this.#free.length = 0;
    this.#freeBytes = 0;
    if (this.#trimTimer) clearTimeout(this.#trimTimer);
    this.#trimTimer = undefined;
  }

  /** A process that stops reading does not keep the pool's memory: it goes after `idleMs` without an acquire. */
  #armTrim(): void {
    if (this.#trimTimer) return;
    const check = (): void => {
      const idleFor = Date.now() - this.#lastAcquireMs;
      if (idleFor >= this.#options.idleMs || this.#free.length === 0) {
        this.#trimTimer = undefined;
        this.clear();
        return;
      }
      this.#trimTimer = setTimeout(check, this.#options.idleMs - idleFor);
      this.#trimTimer.unref();
    };
    this.#trimTimer = setTimeout(check, this.#options.idleMs);
    this.#trimTimer.unref();
  }
}
