import { status as GrpcStatus } from '@grpc/grpc-js';
import { OzoneProtocolError, OzoneRpcError, type OzoneError } from '../../ozone-errors.js';
import type { DatanodeCall, DatanodeConnection } from './datanode-call.js';
import { rpcError } from './grpc-errors.js';

export const DATANODE_SEND_PATH = '/hadoop.hdds.datanode.XceiverClientProtocolService/send';

/** One request on its way through a long-lived stream: its bytes, its deadline and its caller. */
export interface PendingRequest {
  readonly bytes: Buffer;
  /** Epoch milliseconds; the request fails with DEADLINE_EXCEEDED after it. */
  readonly deadline: number;
  /** How many times the request was sent again after a stream it was waiting on failed. */
  reissues: number;
  resolve(raw: Buffer): void;
  reject(err: OzoneError): void;
}

/** What a stream tells its pool. */
export interface DatanodeStreamEvents {
  /** The stream answered its last waiting request. */
  idle(stream: DatanodeStream): void;
  /**
   * The stream failed. `failed` get `error` (they fail over as a failed call would); `reissue`
   * were innocent bystanders, waiting behind the request the stream failed on, and can be sent
   * again on another stream.
   */
  failed(
    stream: DatanodeStream,
    error: OzoneError,
    failed: PendingRequest[],
    reissue: PendingRequest[],
  ): void;
  /** The stream is gone (ended, failed or cancelled): the pool drops it. */
  gone(stream: DatanodeStream): void;
}

/**
 * One long-lived bidi `send` stream to a datanode carrying many requests. Ozone's datanode takes
 * a stream's requests one at a time and writes each answer before it reads the next request, so
 * answers come back in request order and match first-in-first-out (no request ID is needed or
 * sent, the bytes on the wire are exactly those of a stream per request).
 *
 * Failures: a deadline that passes means the stream stopped answering: it is cancelled, the
 * expired requests fail with DEADLINE_EXCEEDED and the rest are re-sent elsewhere. The datanode
 * failing the stream (an exception in its dispatcher) or ending it early loses every request it
 * had not answered: the oldest one is the request it failed on, the others are re-sent. A lost
 * connection (UNAVAILABLE) fails them all, as it fails every call on the channel.
 */
export class DatanodeStream {
  readonly #queue: PendingRequest[] = [];
  readonly #call: DatanodeCall;
  #timer: NodeJS.Timeout | undefined;
  #timerAt = Number.POSITIVE_INFINITY;
  /** open: takes requests; closing: half-closed, no new requests; done: ended or failed. */
  #state: 'open' | 'closing' | 'done' = 'open';

  constructor(
    connection: DatanodeConnection,
    readonly address: string,
    private readonly events: DatanodeStreamEvents,
  ) {
    this.#call = connection.openCall();
    this.#call.on('data', (raw: Buffer) => this.#onAnswer(raw));
    this.#call.on('error', (err) => this.#fail(rpcError(this.address, err), 'error'));
    this.#call.on('end', () => {
      if (this.#queue.length > 0)
        this.#fail(new OzoneProtocolError(this.address, 'the stream ended without a response'), 'ended');
      else this.#finish();
    });
  }

  /** Requests sent and not answered yet. */
  get waiting(): number {
    return this.#queue.length;
  }

  get acceptsRequests(): boolean {
    return this.#state === 'open';
  }

  send(request: PendingRequest): void {
    this.#queue.push(request);
    this.#schedule(request.deadline);
    this.#call.write(request.bytes);
  }

  /** Ends the request side; the datanode answers what it has and ends the stream. */
  halfClose(): void {
    if (this.#state !== 'open') return;
    this.#state = 'closing';
    this.#call.end();
    if (this.#queue.length === 0) this.#schedule(Date.now() + HALF_CLOSED_GRACE_MS);
  }

  /** Cancels the stream; its waiting requests are re-sent elsewhere (a test's broken stream, or the client closing). */
  kill(reason: string): void {
    if (this.#state === 'done') return;
    this.#fail(rpcError(this.address, { code: GrpcStatus.CANCELLED, details: reason }), 'killed');
  }

  #onAnswer(raw: Buffer): void {
    const request = this.#queue.shift();
    if (!request) {
      // An answer nobody asked for: nothing on this stream can be trusted any more.
      this.#fail(new OzoneProtocolError(this.address, 'an answer to no request'), 'error');
      return;
    }
    if (this.#queue.length === 0) {
      this.#clearTimer();
      if (this.#state === 'closing') this.#schedule(Date.now() + HALF_CLOSED_GRACE_MS);
    } else if (request.deadline <= this.#timerAt) {
      this.#clearTimer();
      this.#schedule(Math.min(...this.#queue.map((r) => r.deadline)));
    }
    request.resolve(raw);
    if (this.#queue.length === 0 && this.#state === 'open') this.events.idle(this);
  }

  #schedule(deadline: number): void {
    if (deadline >= this.#timerAt) return;
    this.#clearTimer();
    this.#timerAt = deadline;
    this.#timer = setTimeout(() => this.#onTimer(), Math.max(0, deadline - Date.now()));
    // An answer still owed keeps the process alive through the open call, not through this timer.
    this.#timer.unref();
  }

  #clearTimer(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
  }

  #onTimer(): void {
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
    if (this.#state === 'done') return;
    if (this.#queue.length === 0) {
      // Half-closed and still not ended by the datanode: let it go.
      this.#fail(
        rpcError(this.address, { code: GrpcStatus.CANCELLED, details: 'half-closed stream not ended' }),
        'killed',
      );
      return;
    }
    const now = Date.now();
    if (!this.#queue.some((r) => r.deadline <= now)) {
      this.#schedule(Math.min(...this.#queue.map((r) => r.deadline)));
      return;
    }
    this.#fail(
      rpcError(this.address, {
        code: GrpcStatus.DEADLINE_EXCEEDED,
        details: 'no answer on the datanode stream before the deadline',
      }),
      'deadline',
    );
  }

  #fail(error: OzoneError, why: 'error' | 'ended' | 'deadline' | 'killed'): void {
    if (this.#state === 'done') return;
    this.#state = 'done';
    this.#clearTimer();
    const waiting = this.#queue.splice(0);
    // Cancelling a stream that is already over is harmless; one still open must not go on
    // delivering answers to requests that now travel elsewhere.
    this.#call.cancel();
    let failed: PendingRequest[];
    let reissue: PendingRequest[];
    const lostConnection =
      why === 'error' &&
      error instanceof OzoneRpcError &&
      error.grpcCode === (GrpcStatus.UNAVAILABLE as number);
    if (lostConnection) {
      failed = waiting;
      reissue = [];
    } else if (why === 'deadline') {
      const now = Date.now();
      failed = waiting.filter((r) => r.deadline <= now);
      reissue = waiting.filter((r) => r.deadline > now);
    } else if (why === 'killed') {
      failed = [];
      reissue = waiting;
    } else {
      failed = waiting.slice(0, 1);
      reissue = waiting.slice(1);
    }
    this.events.failed(this, error, failed, reissue);
    this.events.gone(this);
  }

  #finish(): void {
    if (this.#state === 'done') return;
    this.#state = 'done';
    this.#clearTimer();
    this.events.gone(this);
  }
}

/** How long a half-closed stream may take to be ended by the datanode before it is cancelled. */
const HALF_CLOSED_GRACE_MS = 30_000;
