import { Worker } from 'node:worker_threads';
import type {
  BadReplicaReport,
  KeyBlockLocation,
  KeyInputStreamStats,
  RefusedBlockToken,
} from '../../key-input-stream.js';
import { OzoneClosedError, ReadWorkerError } from '../../ozone-errors.js';
import type { ReadContextOptions } from '../read-context.js';
import { encodeError, reviveError } from './read-worker-errors.js';
import type {
  FromReadWorker,
  ToReadWorker,
  WorkerStreamSpec,
  WorkerStreamState,
} from './read-worker-messages.js';
import workerEntry from './read-worker-entry.cjs';

/** What a client's read workers did, since the client started. */
export interface ReadWorkerStats {
  /** Worker threads started (replacements included). */
  started: number;
  /** Worker threads running now. */
  running: number;
  /** Workers that ended without being asked to (a crash, running out of memory, terminated). */
  crashed: number;
  /** Reads sent to another worker after the one they were on ended. */
  reissued: number;
  /** Reads on the workers now. */
  inFlight: number;
}

/** A read is sent to a second worker at most this often when the one it is on ends. */
const MAX_REISSUES = 1;

/** Reads up to this long are staged in reused shared memory; longer ones come back transferred. */
const MAX_STAGED_BYTES = 4 * 1024 * 1024;
/** Staging buffers kept per size, for reuse. */
const MAX_FREE_PER_SIZE = 64;

/**
 * Shared memory a worker writes a read into when the caller's buffer is not shared, reused from
 * read to read in power-of-two sizes. A fresh ArrayBuffer per read, transferred back, measured
 * most of both threads' CPU in garbage collection (16 KiB windows, 64 KiB reads: 62% of the
 * caller's thread, 33% of the worker's): memory outside V8's heap that each read adds makes V8
 * collect more often.
 */
class StagingBuffers {
  readonly #free = new Map<number, SharedArrayBuffer[]>();

  /** A buffer of at least `length` bytes, or undefined when the read is too long to stage. */
  take(length: number): SharedArrayBuffer | undefined {
    if (length > MAX_STAGED_BYTES) return undefined;
    const size = Math.max(4096, 2 ** Math.ceil(Math.log2(Math.max(1, length))));
    return this.#free.get(size)?.pop() ?? new SharedArrayBuffer(size);
  }

  give(buffer: SharedArrayBuffer): void {
    let list = this.#free.get(buffer.byteLength);
    if (!list) this.#free.set(buffer.byteLength, (list = []));
    if (list.length < MAX_FREE_PER_SIZE) list.push(buffer);
  }
}

interface PendingRead {
  readonly id: number;
  readonly stream: WorkerKeyStream;
  readonly position: number;
  readonly target: Uint8Array;
  readonly offset: number;
  readonly length: number;
  /** Where the worker writes the read when the caller's memory is not shared. */
  staged: SharedArrayBuffer | undefined;
  reissues: number;
  resolve(): void;
  reject(err: Error): void;
}

class WorkerSlot {
  readonly pending = new Map<number, PendingRead>();
  /** Streams this worker has a copy of. */
  readonly streams = new Set<number>();
  ended = false;
  lastError: Error | undefined;
  constructor(readonly worker: Worker) {}
}

/** Where a key stream's counters and bad-replica reports land, and where its copies' refused block tokens are renewed: the stream itself. */
export interface WorkerStreamSink {
  readonly stats: KeyInputStreamStats;
  readonly badReplicas: BadReplicaReport[];
  /** The key's blocks once the stream holds a token other than `refused` for its block (looked up once for all copies). */
  renewedBlocks(refused: RefusedBlockToken): Promise<readonly KeyBlockLocation[]>;
}

/** One key stream whose reads go to the pool's workers. */
export class WorkerKeyStream {
  /** The last state each worker reported for its copy: counters are added as differences. */
  readonly #states = new Map<WorkerSlot, WorkerStreamState>();
  constructor(
    private readonly pool: ReadWorkerPool,
    readonly id: number,
    readonly spec: WorkerStreamSpec,
    private readonly sink: WorkerStreamSink,
  ) {}

  /** Reads `length` bytes at `position` into `target[offset…]` on one of the workers. */
  read(position: number, target: Uint8Array, offset: number, length: number): Promise<void> {
    return this.pool.read(this, position, target, offset, length);
  }

  /** Bytes of widened windows the workers' copies hold. */
  get cachedBytes(): number {
    let n = 0;
    for (const s of this.#states.values()) n += s.cachedBytes;
    return n;
  }

  unbuffer(): void {
    this.pool.tell(this, { op: 'unbuffer', stream: this.id });
  }

  close(): void {
    this.pool.tell(this, { op: 'close', stream: this.id }, true);
  }

  /**
   * A worker's copy was refused `refused`: the blocks with their new tokens. Only the copies that
   * are refused ask (the others keep reading until their tokens are refused too, and then get these
   * without a lookup), and copies opened from now on start with them.
   */
  async renew(refused: RefusedBlockToken): Promise<readonly KeyBlockLocation[]> {
    const blocks = await this.sink.renewedBlocks(refused);
    this.spec.blocks = blocks;
    return blocks;
  }

  /** @internal a worker's state of its copy after a read */
  absorb(slot: WorkerSlot, state: WorkerStreamState): void {
    const before = this.#states.get(slot);
    const stats = this.sink.stats as unknown as Record<string, number>;
    for (const [k, v] of Object.entries(state.stats))
      stats[k] =
        (stats[k] ?? 0) + v - ((before?.stats as unknown as Record<string, number> | undefined)?.[k] ?? 0);
    this.#states.set(slot, state);
    this.sink.badReplicas.push(...state.badReplicas);
  }

  /** @internal the worker ended: what its copy held is gone (its counters stay counted) */
  forget(slot: WorkerSlot): void {
    this.#states.delete(slot);
  }
}

/**
 * A client's read worker threads (`ozone.client.read.worker.threads`): each builds a read context
 * of its own from the client's settings; a read goes to the worker with the fewest reads on it.
 * A worker holds the process only while reads are on it. A worker that ends with reads on it is
 * replaced at the next read, and its reads are sent once more to another worker; a read that loses
 * a second worker fails with a retriable {@link ReadWorkerError}. A worker's copy of a stream that a
 * datanode refused a block token asks the stream here for new locations (the OM lookup stays on
 * this thread, one for all the workers).
 */
export class ReadWorkerPool {
  readonly stats: ReadWorkerStats = { started: 0, running: 0, crashed: 0, reissued: 0, inFlight: 0 };
  readonly #slots: Array<WorkerSlot | undefined>;
  readonly #streams = new Map<number, WorkerKeyStream>();
  readonly #staging = new StagingBuffers();
  #nextStream = 1;
  #nextRead = 1;
  #closed = false;

  constructor(
    threads: number,
    private readonly context: ReadContextOptions,
  ) {
    this.#slots = Array.from({ length: threads }, () => undefined);
    // Started now, so that their start overlaps the caller's wait on the OM.
    for (let i = 0; i < threads; i++) this.#slots[i] = this.#start(i);
  }

  /** A key stream whose reads go to the workers; its counters and reports land in `sink`. */
  openStream(spec: WorkerStreamSpec, sink: WorkerStreamSink): WorkerKeyStream {
    const stream = new WorkerKeyStream(this, this.#nextStream++, spec, sink);
    this.#streams.set(stream.id, stream);
    return stream;
  }

  read(
    stream: WorkerKeyStream,
    position: number,
    target: Uint8Array,
    offset: number,
    length: number,
  ): Promise<void> {
    if (this.#closed) return Promise.reject(new OzoneClosedError('the Ozone client'));
    return new Promise<void>((resolve, reject) =>
      this.#dispatch({
        id: this.#nextRead++,
        stream,
        position,
        target,
        offset,
        length,
        staged: target.buffer instanceof SharedArrayBuffer ? undefined : this.#staging.take(length),
        reissues: 0,
        resolve,
        reject,
      }),
    );
  }

  /** Sends `message` to every worker that has a copy of `stream` (and forgets them when `closing`). */
  tell(stream: WorkerKeyStream, message: ToReadWorker, closing = false): void {
    for (const slot of this.#slots) {
      if (!slot || slot.ended || !slot.streams.has(stream.id)) continue;
      slot.worker.postMessage(message);
      if (closing) slot.streams.delete(stream.id);
    }
    if (closing) this.#streams.delete(stream.id);
  }

  /** Ends worker `index` as a crash would (tests: a worker that dies with reads on it). */
  terminateWorker(index: number): void {
    void this.#slots[index]?.worker.terminate();
  }

  /** Ends every worker; reads on them fail with `ERR_OZONE_CLOSED`. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const slot of this.#slots) {
      if (!slot || slot.ended) continue;
      for (const read of slot.pending.values()) read.reject(new OzoneClosedError('the Ozone client'));
      this.stats.inFlight -= slot.pending.size;
      slot.pending.clear();
      slot.worker.postMessage({ op: 'shutdown' } satisfies ToReadWorker);
      slot.worker.unref();
    }
  }

  #start(index: number): WorkerSlot {
    const entry = workerEntry.readWorkerScript();
    const worker = new Worker(entry.script, {
      eval: entry.eval,
      ...(entry.execArgv ? { execArgv: entry.execArgv } : {}),
      workerData: this.context,
      name: `ozone-read-worker-${index}`,
    });
    // Idle workers never hold the process; a worker with reads on it does (#dispatch).
    worker.unref();
    const slot = new WorkerSlot(worker);
    this.stats.started++;
    this.stats.running++;
    worker.on('message', (m: FromReadWorker) => {
      if (m.op === 'renew') this.#renew(slot, m);
      else this.#answer(slot, m);
    });
    worker.on('error', (err) => (slot.lastError = err));
    worker.on('exit', (code) => this.#ended(index, slot, code));
    return slot;
  }

  /** The worker for the next read: a missing one is started, else the one with the fewest reads on it. */
  #pick(): WorkerSlot {
    let best: WorkerSlot | undefined;
    for (let i = 0; i < this.#slots.length; i++) {
      let slot = this.#slots[i];
      if (!slot) slot = this.#slots[i] = this.#start(i);
      if (!best || slot.pending.size < best.pending.size) best = slot;
    }
    return best as WorkerSlot;
  }

  #dispatch(read: PendingRead): void {
    const slot = this.#pick();
    const { stream } = read;
    if (!slot.streams.has(stream.id)) {
      slot.worker.postMessage({ op: 'open', stream: stream.id, spec: stream.spec } satisfies ToReadWorker);
      slot.streams.add(stream.id);
    }
    if (slot.pending.size === 0) slot.worker.ref();
    slot.pending.set(read.id, read);
    this.stats.inFlight++;
    const { buffer, byteOffset } = read.target;
    const shared = read.staged
      ? { buffer: read.staged, byteOffset: 0 }
      : buffer instanceof SharedArrayBuffer
        ? { buffer, byteOffset: byteOffset + read.offset }
        : undefined;
    slot.worker.postMessage({
      op: 'read',
      id: read.id,
      stream: stream.id,
      position: read.position,
      length: read.length,
      ...(shared ? { shared } : {}),
    } satisfies ToReadWorker);
  }

  /** A worker's copy of a stream asks for new block tokens; a stream closed meanwhile answers that it is closed. */
  #renew(slot: WorkerSlot, m: Extract<FromReadWorker, { op: 'renew' }>): void {
    const reply = (answer: ToReadWorker): void => {
      // A worker that ended meanwhile took its read's wait with it.
      if (!slot.ended) slot.worker.postMessage(answer);
    };
    const failed = (err: unknown): void => reply({ op: 'renewal-failed', id: m.id, error: encodeError(err) });
    const stream = this.#streams.get(m.stream);
    if (!stream || this.#closed) {
      failed(new OzoneClosedError('the key input stream'));
      return;
    }
    stream.renew(m.refused).then((blocks) => reply({ op: 'renewed', id: m.id, blocks }), failed);
  }

  #answer(slot: WorkerSlot, m: Exclude<FromReadWorker, { op: 'renew' }>): void {
    const read = slot.pending.get(m.id);
    if (!read) return;
    slot.pending.delete(m.id);
    this.stats.inFlight--;
    if (slot.pending.size === 0) slot.worker.unref();
    if (m.state) read.stream.absorb(slot, m.state);
    const { staged } = read;
    if (m.op === 'read') {
      if (staged) read.target.set(new Uint8Array(staged, 0, read.length), read.offset);
      else if (m.data) read.target.set(new Uint8Array(m.data, 0, read.length), read.offset);
    }
    // The worker is done with it: the next read may have it.
    if (staged) this.#staging.give(staged);
    if (m.op === 'failed') read.reject(reviveError(m.error));
    else read.resolve();
  }

  #ended(index: number, slot: WorkerSlot, code: number): void {
    slot.ended = true;
    this.stats.running--;
    if (this.#slots[index] === slot) this.#slots[index] = undefined;
    for (const id of slot.streams) this.#streams.get(id)?.forget(slot);
    if (this.#closed) return;
    this.stats.crashed++;
    const reads = [...slot.pending.values()];
    slot.pending.clear();
    this.stats.inFlight -= reads.length;
    for (const read of reads) {
      if (read.reissues >= MAX_REISSUES) {
        read.reject(
          new ReadWorkerError(
            `the read worker thread ended (exit code ${code}) with the read on it, ${read.reissues + 1} times`,
            code,
            slot.lastError,
          ),
        );
        continue;
      }
      read.reissues++;
      this.stats.reissued++;
      this.#dispatch(read);
    }
  }
}
