// One stream of the session as its call sees it: the messages waiting to be sent and the windows
// that let them go, the messages coming in, and the status the call ends with. The session owns
// the socket and the connection's window; the stream asks it to send (`flush`) and to reset. What
// the call receives goes to its sink: a streaming call's events or a unary call's promise.
import type { CallStream, GrpcHttp2Call } from '../grpc-http2-call.js';
import { GRPC_STATUS, GrpcCallError } from '../grpc-http2-errors.js';
import { CallEvents, type CallSink } from './call-sinks.js';
import { type CallStatus, httpStatusOf, statusOfHeaders, statusOfHttp } from './grpc-status.js';
import { MessageAssembler, MessageFramingError } from './message-assembler.js';

/** What a stream needs of its session. */
export interface StreamHost {
  /** Sends as much of the stream's queue as the windows allow. */
  flush(stream: ClientStream): void;
  /** Resets the stream (RST_STREAM with `http2Code`) and forgets it; a stream not yet opened is dropped. */
  reset(stream: ClientStream, http2Code: number): void;
  /** The stream is closed both ways: the session forgets it. */
  closed(stream: ClientStream): void;
}

export class ClientStream implements CallStream {
  /** The stream id; 0 until the stream is opened (HEADERS sent). */
  id = 0;
  /** The request's header block, sent when the stream opens. */
  requestBlock: Buffer = Buffer.alloc(0);
  /** Bytes the server lets this stream send (may go below 0 when the server shrinks its windows). */
  sendWindow = 0;
  /** Bytes the server may still send on the stream, and bytes received since the last WINDOW_UPDATE. */
  receiveWindow = 0;
  receivedUnacked = 0;
  /** Pieces waiting to be sent, the first `sentOfFirst` bytes of the first already sent. */
  readonly queue: Buffer[] = [];
  sentOfFirst = 0;
  queuedBytes = 0;
  /** end() was called: END_STREAM goes with the last queued byte. */
  endRequested = false;
  localEnded = false;
  remoteEnded = false;
  #responseSeen = false;
  #status: CallStatus | undefined;
  /** The call has had its `end` or `error`. */
  #done = false;
  readonly #assembler: MessageAssembler;

  constructor(
    private readonly host: StreamHost,
    maxMessageBytes: number,
    allocate: (length: number) => Buffer,
    private readonly sink: CallSink,
  ) {
    this.#assembler = new MessageAssembler(maxMessageBytes, allocate, this);
  }

  /** A whole message from the assembler. */
  assembled(message: Buffer): void {
    if (!this.#done) this.sink.message(message);
  }

  get done(): boolean {
    return this.#done;
  }

  write(message: Uint8Array | readonly Uint8Array[]): void {
    if (this.#done || this.endRequested) return;
    const pieces = message instanceof Uint8Array ? [message] : message;
    let length = 0;
    for (const piece of pieces) length += piece.length;
    const prefix = Buffer.allocUnsafe(5);
    prefix[0] = 0;
    prefix.writeUInt32BE(length, 1);
    this.queue.push(prefix);
    for (const piece of pieces)
      if (piece.length > 0)
        this.queue.push(
          Buffer.isBuffer(piece) ? piece : Buffer.from(piece.buffer, piece.byteOffset, piece.length),
        );
    this.queuedBytes += 5 + length;
    this.host.flush(this);
  }

  end(): void {
    if (this.#done || this.endRequested) return;
    this.endRequested = true;
    this.host.flush(this);
  }

  cancel(): void {
    if (this.#done) return;
    this.fail(GRPC_STATUS.CANCELLED, 'Cancelled on client');
    this.host.reset(this, 0x8 /* CANCEL */);
  }

  /** DATA content for this stream (a view valid during the call). */
  receive(piece: Buffer): void {
    if (this.#done) return;
    try {
      this.#assembler.push(piece);
    } catch (err) {
      if (!(err instanceof MessageFramingError)) throw err;
      this.fail(err.grpcCode, err.message);
      this.host.reset(this, 0x8 /* CANCEL */);
    }
  }

  /**
   * A decoded header block (name, value, name, value…; read now, not kept): the response's
   * headers first, then its trailers.
   */
  headers(block: readonly string[]): void {
    if (!this.#responseSeen) {
      this.#responseSeen = true;
      const http = httpStatusOf(block);
      if (http !== 200) {
        this.#status = statusOfHttp(http);
        return;
      }
    }
    // The response's headers carry a status only in a trailers-only answer.
    this.#status = statusOfHeaders(block) ?? this.#status;
  }

  /** The server's END_STREAM: the call ends with what the server said. */
  remoteEnd(): void {
    this.remoteEnded = true;
    if (this.#done) return;
    const status = this.#status;
    if (!status) return this.fail(GRPC_STATUS.INTERNAL, 'the stream ended without a gRPC status');
    this.settle(status);
  }

  /** The server reset the stream: its status if it had sent one, else `fallback`. */
  resetByServer(fallback: CallStatus): void {
    this.remoteEnded = true;
    this.localEnded = true;
    this.settle(this.#status ?? fallback);
  }

  settle(status: CallStatus): void {
    if (this.#done) return;
    if (status.code !== GRPC_STATUS.OK)
      return this.fail(status.code, status.details, undefined, status.trailers, status.http2ResetCode);
    if (!this.#assembler.atBoundary)
      return this.fail(GRPC_STATUS.INTERNAL, 'the stream ended inside a message');
    this.#done = true;
    this.sink.ended();
  }

  /** Ends the call with an error (once). */
  fail(
    code: number,
    details: string,
    cause?: unknown,
    trailers?: ReadonlyArray<readonly [string, string]>,
    http2ResetCode?: number,
  ): void {
    if (this.#done) return;
    this.#done = true;
    if (this.sink.hearsFailures)
      this.sink.failed(
        new GrpcCallError(code, details, {
          ...(cause === undefined ? {} : { cause }),
          ...(trailers === undefined ? {} : { trailers }),
          ...(http2ResetCode === undefined ? {} : { http2ResetCode }),
        }),
      );
  }

  /** Takes up to `bytes` queued bytes as pieces (views, no copy). */
  take(bytes: number): Buffer[] {
    const pieces: Buffer[] = [];
    let left = bytes;
    while (left > 0) {
      const first = this.queue[0] as Buffer;
      const available = first.length - this.sentOfFirst;
      if (available <= left) {
        pieces.push(this.sentOfFirst === 0 ? first : first.subarray(this.sentOfFirst));
        this.queue.shift();
        this.sentOfFirst = 0;
        left -= available;
      } else {
        pieces.push(first.subarray(this.sentOfFirst, this.sentOfFirst + left));
        this.sentOfFirst += left;
        left = 0;
      }
    }
    this.queuedBytes -= bytes;
    return pieces;
  }

  /** Drops whatever is queued (the stream was reset or the server ended it). */
  dropQueue(): void {
    this.queue.length = 0;
    this.sentOfFirst = 0;
    this.queuedBytes = 0;
  }
}

const NO_HOST: StreamHost = { flush: () => {}, reset: () => {}, closed: () => {} };

/** A streaming call on `stream`'s side: the call's events are what the stream receives. */
export function streamingCall(
  host: StreamHost,
  maxMessageBytes: number,
  allocate: (length: number) => Buffer,
): { stream: ClientStream; call: GrpcHttp2Call } {
  const events = new CallEvents();
  const stream = new ClientStream(host, maxMessageBytes, allocate, events);
  return { stream, call: events.attach(stream) };
}

/** A streaming call that never reaches a server: it fails with `code`, asynchronously as every failure. */
export function failedCall(code: number, details: string): GrpcHttp2Call {
  const events = new CallEvents();
  const stream = new ClientStream(NO_HOST, 0, (length) => Buffer.allocUnsafe(length), events);
  queueMicrotask(() => stream.fail(code, details));
  return events.attach(stream);
}
