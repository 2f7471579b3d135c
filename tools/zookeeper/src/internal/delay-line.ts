import { Worker } from 'node:worker_threads';

/** One thing to do once its time has come: write a chunk, or pass on an end. */
interface Item {
  readonly arrivedNs: bigint;
  readonly dueNs: bigint;
  readonly deliver: () => void;
}

/** How exactly the line has kept its delay so far. */
export interface DelayLineFigures {
  /** Items delivered. */
  delivered: number;
  /** Shortest time an item was held (arrival to delivery), ms; null before the first. */
  heldMinMs: number | null;
  /** Mean and largest time an item was held beyond the delay, ms (the line's lateness). */
  lateMeanMs: number;
  lateMaxMs: number;
}

// The timer thread. Node's timers have 1 ms granularity (a 0.5 ms setTimeout fires after 1-2 ms)
// and a spin on setImmediate would burn a core while traffic flows, so a worker sleeps in
// Atomics.wait, which takes fractional milliseconds, until the due time the main thread wrote, and
// then wakes the main thread with a message. Slot 0 counts changes (the wait's key), slot 1 is 1
// once closing; the due time is a monotonic nanosecond clock value, -1 for none.
const TIMER_THREAD = `
const { workerData, parentPort } = require('node:worker_threads');
const ctrl = new Int32Array(workerData, 0, 2);
const due = new BigInt64Array(workerData, 8, 1);
for (;;) {
  const seq = Atomics.load(ctrl, 0);
  if (Atomics.load(ctrl, 1) !== 0) break;
  const d = Atomics.load(due, 0);
  if (d < 0n) { Atomics.wait(ctrl, 0, seq); continue; }
  const now = process.hrtime.bigint();
  if (now >= d) {
    if (Atomics.compareExchange(due, 0, d, -1n) === d) parentPort.postMessage(0);
    continue;
  }
  Atomics.wait(ctrl, 0, seq, Number(d - now) / 1e6);
}
`;

/**
 * A fixed delay for everything pushed into it: each item is delivered at its arrival time plus
 * `delayMs`, never earlier. Because the delay is the same for every item and arrivals only move
 * forward, one FIFO is also in due order: items from one connection keep their order, and a slow
 * item never holds back a later one by more than the delay (nothing sleeps per item).
 */
export class DelayLine {
  readonly delayNs: bigint;
  readonly #queue: Item[] = [];
  #head = 0;
  readonly #ctrl: Int32Array | undefined;
  readonly #due: BigInt64Array | undefined;
  readonly #worker: Worker | undefined;
  #delivered = 0;
  #heldMinNs: bigint | null = null;
  #lateSumNs = 0n;
  #lateMaxNs = 0n;
  #closed = false;

  constructor(delayMs: number) {
    this.delayNs = BigInt(Math.round(delayMs * 1e6));
    if (this.delayNs === 0n) return; // delivered at once: no timer thread at all
    const shared = new SharedArrayBuffer(16);
    this.#ctrl = new Int32Array(shared, 0, 2);
    this.#due = new BigInt64Array(shared, 8, 1);
    this.#due[0] = -1n;
    this.#worker = new Worker(TIMER_THREAD, { eval: true, workerData: shared });
    this.#worker.on('message', () => this.#flush());
    // The sockets keep the process alive while there is traffic; the timer thread must not.
    this.#worker.unref();
  }

  /** Delivers `deliver` after the delay (at once for a zero delay), after everything pushed before it. */
  push(deliver: () => void): void {
    if (this.#closed) return;
    const arrivedNs = process.hrtime.bigint();
    if (this.delayNs === 0n) {
      this.#record(arrivedNs, arrivedNs);
      deliver();
      return;
    }
    const dueNs = arrivedNs + this.delayNs;
    const wasEmpty = this.#head === this.#queue.length;
    this.#queue.push({ arrivedNs, dueNs, deliver });
    if (wasEmpty) this.#arm(dueNs);
  }

  figures(): DelayLineFigures {
    return {
      delivered: this.#delivered,
      heldMinMs: this.#heldMinNs === null ? null : Number(this.#heldMinNs) / 1e6,
      lateMeanMs: this.#delivered === 0 ? 0 : Number(this.#lateSumNs) / 1e6 / this.#delivered,
      lateMaxMs: Number(this.#lateMaxNs) / 1e6,
    };
  }

  /** Drops what is still queued and stops the timer thread. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#queue.length = 0;
    this.#head = 0;
    if (this.#ctrl === undefined || this.#worker === undefined) return;
    Atomics.store(this.#ctrl, 1, 1);
    Atomics.add(this.#ctrl, 0, 1);
    Atomics.notify(this.#ctrl, 0);
    await this.#worker.terminate();
  }

  #arm(dueNs: bigint): void {
    if (this.#ctrl === undefined || this.#due === undefined) return;
    Atomics.store(this.#due, 0, dueNs);
    Atomics.add(this.#ctrl, 0, 1);
    Atomics.notify(this.#ctrl, 0);
  }

  #flush(): void {
    const now = process.hrtime.bigint();
    while (this.#head < this.#queue.length) {
      const item = this.#queue[this.#head]!;
      if (item.dueNs > now) break;
      this.#head++;
      this.#record(item.arrivedNs, now);
      item.deliver();
      if (this.#closed) return;
    }
    if (this.#head === this.#queue.length) {
      this.#queue.length = 0;
      this.#head = 0;
      return;
    }
    // Keep the array from growing without bound under steady traffic.
    if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue.splice(0, this.#head);
      this.#head = 0;
    }
    this.#arm(this.#queue[this.#head]!.dueNs);
  }

  #record(arrivedNs: bigint, deliveredNs: bigint): void {
    const held = deliveredNs - arrivedNs;
    const late = held > this.delayNs ? held - this.delayNs : 0n;
    this.#delivered++;
    if (this.#heldMinNs === null || held < this.#heldMinNs) this.#heldMinNs = held;
    this.#lateSumNs += late;
    if (late > this.#lateMaxNs) this.#lateMaxNs = late;
  }
}
