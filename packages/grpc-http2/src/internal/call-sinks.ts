// Where a stream delivers what its call receives. A streaming call (GrpcHttp2Call) turns it into
// events; a unary call (GrpcHttp2Session.unary) into one promise, with no emitter, listener or
// closure per call: an OM lookup is a few tens of µs of CPU, and a call's event plumbing was a
// measurable share of it.
import type { DeadlineSet } from '@fastpath/core';
import { GrpcHttp2Call, type CallStream } from '../grpc-http2-call.js';
import { GRPC_STATUS, GrpcCallError } from '../grpc-http2-errors.js';

export interface CallSink {
  /** A whole message received: a Buffer of exactly its length, the sink's to keep. */
  message(message: Buffer): void;
  /** The server's status was OK; nothing follows. */
  ended(): void;
  /** The call failed; nothing follows. */
  failed(error: GrpcCallError): void;
  /**
   * Whether a failure would be seen: a streaming call nobody listens to for errors (its owner gave
   * it up) ends silently, since an 'error' with no listener would throw inside the session.
   */
  readonly hearsFailures: boolean;
}

/** A streaming call's events. */
export class CallEvents implements CallSink {
  #call!: GrpcHttp2Call;

  /** The call on `stream`, whose events this sink emits. */
  attach(stream: CallStream): GrpcHttp2Call {
    this.#call = new GrpcHttp2Call(stream);
    return this.#call;
  }

  message(message: Buffer): void {
    this.#call.emit('data', message);
  }

  ended(): void {
    this.#call.emit('end');
  }

  failed(error: GrpcCallError): void {
    this.#call.emit('error', error);
  }

  get hearsFailures(): boolean {
    return this.#call.listenerCount('error') > 0;
  }
}

/** What a unary call's sink asks of its stream: to be cancelled when the answer is wrong or late. */
export interface Cancellable {
  cancel(): void;
}

/**
 * A unary call's answer: its one message once the status is OK. Two messages, none, or no status
 * within the deadline fail it (the stream cancelled, so the server stops too).
 */
export class UnaryAnswer implements CallSink {
  readonly promise: Promise<Buffer>;
  readonly hearsFailures = true;
  #resolve!: (message: Buffer) => void;
  #reject!: (error: GrpcCallError) => void;
  #answer: Buffer | undefined;
  #settled = false;
  #stream: Cancellable | undefined;
  /** The session's deadlines, holding this call's until it settles. */
  #deadlines: DeadlineSet<UnaryAnswer> | undefined;
  #deadlineMs = 0;

  constructor() {
    this.promise = new Promise<Buffer>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
  }

  /**
   * The stream to cancel, and the deadline in ms from now (none when undefined), kept in the
   * session's `deadlines` (one timer for all its calls, not one per call), which call
   * {@link expire} when it passes.
   */
  start(stream: Cancellable, deadlineMs: number | undefined, deadlines: DeadlineSet<UnaryAnswer>): void {
    this.#stream = stream;
    if (deadlineMs === undefined || this.#settled) return;
    this.#deadlineMs = deadlineMs;
    this.#deadlines = deadlines;
    deadlines.add(this, deadlineMs);
  }

  message(message: Buffer): void {
    if (this.#answer === undefined) this.#answer = message;
    else this.#give(GRPC_STATUS.INTERNAL, 'a unary call answered two messages');
  }

  ended(): void {
    const answer = this.#answer;
    if (answer === undefined)
      this.failed(new GrpcCallError(GRPC_STATUS.INTERNAL, 'the call ended without an answer'));
    else if (this.#settle()) this.#resolve(answer);
  }

  failed(error: GrpcCallError): void {
    if (this.#settle()) this.#reject(error);
  }

  /** @internal The deadline passed. */
  expire(): void {
    this.#deadlines = undefined;
    this.#give(GRPC_STATUS.DEADLINE_EXCEEDED, `no answer in ${this.#deadlineMs} ms`);
  }

  /** Fails the call from this side, settled first: the cancel's own CANCELLED then changes nothing. */
  #give(code: number, details: string): void {
    this.failed(new GrpcCallError(code, details));
    this.#stream?.cancel();
  }

  /** True the first time only; the deadline stops. */
  #settle(): boolean {
    if (this.#settled) return false;
    this.#settled = true;
    this.#deadlines?.delete(this);
    return true;
  }
}
