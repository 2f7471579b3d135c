import { OzoneClosedError, type OzoneError } from '../../ozone-errors.js';
import type { DatanodeConnection } from './datanode-call.js';
import { DatanodeStream, type DatanodeStreamEvents, type PendingRequest } from './datanode-stream.js';

export interface DatanodeStreamPoolOptions {
  /** The most streams open at once (`ozone.client.datanode.streams.per.channel`). */
  size: number;
  /** A stream without a request for this long is half-closed (`ozone.client.datanode.stream.idle.timeout`). */
  idleMs: number;
}

/** What a channel's stream pool did, since the client started. */
export interface DatanodeStreamStats {
  /** Streams opened. */
  opened: number;
  /** Streams open now (taking requests or half-closed and finishing). */
  open: number;
  /** Streams half-closed after `idleMs` without a request. */
  idleClosed: number;
  /** Streams that failed (an error, an early end, a deadline, a kill). */
  failed: number;
  /** Requests sent again on another stream after the stream they waited on failed. */
  reissued: number;
  /** Requests failed because no answer came before their deadline. */
  deadlinesExceeded: number;
}

/** All counters at zero. */
export function noStreamStats(): DatanodeStreamStats {
  return { opened: 0, open: 0, idleClosed: 0, failed: 0, reissued: 0, deadlinesExceeded: 0 };
}

/** A request is sent again at most this often; after that it fails like a failed call. */
const MAX_REISSUES = 1;

/**
 * The long-lived `send` streams of one datanode channel. A request goes to an idle stream, else to
 * a new one while fewer than `size` are open, else to the stream with the fewest requests waiting
 * (it is answered after them). Each request keeps its own deadline.
 */
export class DatanodeStreamPool {
  readonly #streams = new Set<DatanodeStream>();
  readonly #idleTimers = new Map<DatanodeStream, NodeJS.Timeout>();
  readonly #events: DatanodeStreamEvents;
  #closed = false;
  readonly stats: DatanodeStreamStats = noStreamStats();

  constructor(
    private readonly connection: DatanodeConnection,
    readonly address: string,
    private readonly options: DatanodeStreamPoolOptions,
  ) {
    this.#events = {
      idle: (stream) => this.#onIdle(stream),
      failed: (stream, error, failed, reissue) => this.#onFailed(error, failed, reissue),
      gone: (stream) => this.#onGone(stream),
    };
  }

  /** Sends one encoded request; resolves with the encoded answer matched to it. */
  request(bytes: Buffer, timeoutMs: number): Promise<Buffer> {
    return new Promise<Buffer>((resolve, reject) =>
      this.#place({ bytes, deadline: Date.now() + timeoutMs, reissues: 0, resolve, reject }),
    );
  }

  /** Cancels every stream; requests waiting on them are sent again on fresh ones. */
  killStreams(reason: string): void {
    for (const stream of [...this.#streams]) stream.kill(reason);
  }

  /** No new requests; open streams are half-closed and finish what they carry. */
  close(): void {
    this.#closed = true;
    for (const stream of this.#streams) stream.halfClose();
    for (const timer of this.#idleTimers.values()) clearTimeout(timer);
    this.#idleTimers.clear();
  }

  #place(request: PendingRequest): void {
    if (this.#closed) {
      request.reject(new OzoneClosedError(`the datanode channel to ${this.address}`));
      return;
    }
    let best: DatanodeStream | undefined;
    let taking = 0;
    for (const stream of this.#streams) {
      if (!stream.acceptsRequests) continue;
      taking++;
      if (best === undefined || stream.waiting < best.waiting) best = stream;
    }
    if (best === undefined || (best.waiting > 0 && taking < this.options.size)) best = this.#open();
    const idle = this.#idleTimers.get(best);
    if (idle) {
      clearTimeout(idle);
      this.#idleTimers.delete(best);
    }
    best.send(request);
  }

  #open(): DatanodeStream {
    const stream = new DatanodeStream(this.connection, this.address, this.#events);
    this.#streams.add(stream);
    this.stats.opened++;
    this.stats.open = this.#streams.size;
    this.#watch();
    return stream;
  }

  /**
   * Follows the channel's connection while streams are open. When a connection that was ready
   * goes (a GOAWAY from a datanode shutting down or telling us to go, a lost socket), the streams
   * on it take no new requests and are half-closed: those already sent are answered (or fail with
   * the connection), new ones open streams on the next connection. A datanode that stops
   * gracefully waits for its open streams to end; idle long-lived ones would hold it up.
   */
  #watch(): void {
    if (this.#closed) return;
    this.connection.watchLoss(
      () => {
        for (const stream of this.#streams) stream.halfClose();
      },
      () => this.#streams.size > 0 && !this.#closed,
    );
  }

  #onIdle(stream: DatanodeStream): void {
    if (this.#closed) {
      stream.halfClose();
      return;
    }
    const timer = setTimeout(() => {
      this.#idleTimers.delete(stream);
      if (stream.waiting > 0 || !stream.acceptsRequests) return;
      this.stats.idleClosed++;
      stream.halfClose();
    }, this.options.idleMs);
    // The open stream holds the process while it lasts; the timer that ends it need not.
    timer.unref();
    this.#idleTimers.set(stream, timer);
  }

  #onFailed(error: OzoneError, failed: PendingRequest[], reissue: PendingRequest[]): void {
    this.stats.failed++;
    if (error.code === 'ERR_OZONE_DEADLINE_EXCEEDED') this.stats.deadlinesExceeded += failed.length;
    for (const request of failed) request.reject(error);
    for (const request of reissue) {
      if (request.reissues >= MAX_REISSUES || this.#closed) {
        request.reject(error);
        continue;
      }
      request.reissues++;
      this.stats.reissued++;
      this.#place(request);
    }
  }

  #onGone(stream: DatanodeStream): void {
    this.#streams.delete(stream);
    const idle = this.#idleTimers.get(stream);
    if (idle) clearTimeout(idle);
    this.#idleTimers.delete(stream);
    this.stats.open = this.#streams.size;
  }
}
