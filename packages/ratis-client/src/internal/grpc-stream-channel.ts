// The client's own gRPC streams over Node's `http2` module, one session per member. grpc-js takes
// a message as one buffer and frames it into a second one (its 5-byte prefix and a copy of the
// message): a 4 MiB write cost two allocations and two copies of its data before HTTP/2 saw it.
// Here a message is written as its pieces (the prefix, the encoded fields, the caller's content
// as it is) in one corked write, and HTTP/2 sends them from where they lie.
import { EventEmitter } from 'node:events';
import http2, { type ClientHttp2Session, type ClientHttp2Stream } from 'node:http2';
import {
  type GrpcFramingError,
  GrpcMessageReader,
  grpcMessagePrefix,
  type GrpcTlsOptions,
  grpcTlsSessionOptions,
} from '../grpc-framing.js';

const {
  HTTP2_HEADER_METHOD,
  HTTP2_HEADER_PATH,
  HTTP2_HEADER_CONTENT_TYPE,
  HTTP2_HEADER_TE,
  HTTP2_HEADER_STATUS,
  NGHTTP2_CANCEL,
  NGHTTP2_REFUSED_STREAM,
  NGHTTP2_ENHANCE_YOUR_CALM,
} = http2.constants;

/** gRPC status codes this module reports. */
export const GRPC_STATUS = Object.freeze({
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  RESOURCE_EXHAUSTED: 8,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
  PERMISSION_DENIED: 7,
});

/** The trailers of a call, read as grpc-js's `Metadata` is (`get` gives every value of a key). */
export interface StreamMetadata {
  get(key: string): Array<string | Buffer>;
}

/** How a call ended: its gRPC status, the status message and the trailers. */
export interface StreamStatus {
  code: number;
  details: string;
  metadata: StreamMetadata;
}

/**
 * A call that ended with a status other than OK, as grpc-js reports one (`ServiceError`'s fields).
 * `cause` is the session's own error when the connection failed before any status (a refused
 * connection, a TLS handshake that failed).
 */
export interface StreamError extends Error, StreamStatus {
  cause?: unknown;
}

/**
 * One bidirectional call. Events as grpc-js's `ClientDuplexStream` emits them: `data` per message
 * (a view of what HTTP/2 received when the message came whole in one piece), then `error` (a
 * {@link StreamError}) when the status is not OK, and `status` last, once.
 */
export interface GrpcStreamCall {
  /** Writes one message from its pieces, in order, none of them copied. */
  write(pieces: readonly Uint8Array[]): void;
  /** Half-closes: no more messages from this side. */
  end(): void;
  /** Ends the call at once with CANCELLED (a reset to the server). */
  cancel(): void;
  on(event: 'data', listener: (message: Buffer) => void): this;
  on(event: 'error', listener: (error: StreamError) => void): this;
  on(event: 'status', listener: (status: StreamStatus) => void): this;
}

/** Where a client's gRPC streams to one member come from: one of the two sessions' channels. */
export interface StreamChannel {
  /** Opens a bidirectional call of `path` (`/package.Service/method`). */
  openStream(path: string): GrpcStreamCall;
  /** Closes the session once its calls are done; later calls fail with UNAVAILABLE. */
  close(): void;
}

/** Sizes of one channel's messages. */
export interface GrpcStreamChannelOptions {
  /** The largest message accepted from the server: a larger one fails its call with RESOURCE_EXHAUSTED. */
  maxReceiveMessageBytes: number;
  /** The largest message written: a larger one fails its call with RESOURCE_EXHAUSTED, unsent. */
  maxSendMessageBytes: number;
  /**
   * How long a new session may take to connect and hear the server's HTTP/2 settings, in ms;
   * past it the session is dropped and its calls fail with UNAVAILABLE (a member whose host
   * drops packets, or a port that accepts and never speaks HTTP/2). Default: 20 000, grpc-js's.
   */
  connectTimeoutMs?: number;
  /** TLS to the server: the CA its certificate must chain to, and the name it must carry. Default: plaintext. */
  tls?: GrpcTlsOptions;
}

/** The default of {@link GrpcStreamChannelOptions.connectTimeoutMs}. */
export const DEFAULT_GRPC_CONNECT_TIMEOUT_MS = 20_000;

/**
 * Calls to one server address over one HTTP/2 session, opened with the first call and again
 * after it is lost. An idle session keeps no process alive; one with calls open does.
 */
export class GrpcStreamChannel implements StreamChannel {
  #session: ClientHttp2Session | undefined;
  #closed = false;
  readonly #active = new WeakMap<ClientHttp2Session, number>();

  constructor(
    readonly address: string,
    private readonly options: GrpcStreamChannelOptions,
  ) {}

  /** Opens a bidirectional call of `path` (`/package.Service/method`). */
  openStream(path: string): GrpcStreamCall {
    const call = new Http2StreamCall(this.options);
    if (this.#closed) {
      queueMicrotask(() => call.finish(GRPC_STATUS.UNAVAILABLE, 'the channel is closed'));
      return call;
    }
    let stream: ClientHttp2Stream;
    let session: ClientHttp2Session;
    try {
      session = this.#sessionNow();
      stream = session.request(
        {
          [HTTP2_HEADER_METHOD]: 'POST',
          [HTTP2_HEADER_PATH]: path,
          [HTTP2_HEADER_CONTENT_TYPE]: 'application/grpc',
          [HTTP2_HEADER_TE]: 'trailers',
        },
        { endStream: false },
      );
    } catch (err) {
      // A session that went between the check and the request.
      const message = (err as Error).message;
      queueMicrotask(() => call.finish(GRPC_STATUS.UNAVAILABLE, message));
      return call;
    }
    call.attach(stream);
    const active = this.#active.get(session) ?? 0;
    this.#active.set(session, active + 1);
    if (active === 0) session.ref();
    stream.once('close', () => {
      const left = (this.#active.get(session) ?? 1) - 1;
      this.#active.set(session, left);
      if (left === 0 && !session.destroyed) session.unref();
    });
    return call;
  }

  /** Closes the session once its calls are done; later calls fail with UNAVAILABLE. */
  close(): void {
    this.#closed = true;
    this.#session?.close();
    this.#session = undefined;
  }

  #sessionNow(): ClientHttp2Session {
    const current = this.#session;
    if (current && !current.closed && !current.destroyed) return current;
    const tls = this.options.tls;
    const session = http2.connect(`${tls ? 'https' : 'http'}://${hostPort(this.address)}`, {
      settings: { enablePush: false },
      ...(tls ? grpcTlsSessionOptions(tls, this.address.slice(0, this.address.lastIndexOf(':'))) : {}),
    });
    // A session's error reaches each of its streams (as their error's cause); the session itself
    // needs a listener.
    session.on('error', () => {});
    const timeoutMs = this.options.connectTimeoutMs ?? DEFAULT_GRPC_CONNECT_TIMEOUT_MS;
    const deadline = setTimeout(
      () => session.destroy(new Error(`no HTTP/2 handshake with ${this.address} within ${timeoutMs} ms`)),
      timeoutMs,
    );
    deadline.unref();
    session.once('remoteSettings', () => clearTimeout(deadline));
    session.once('close', () => clearTimeout(deadline));
    const lost = (): void => {
      if (this.#session === session) this.#session = undefined;
    };
    session.once('goaway', lost);
    session.once('close', lost);
    session.unref();
    this.#session = session;
    return session;
  }
}

/**
 * Whether a session failed in its TLS handshake: an untrusted or expired certificate, a name the
 * certificate does not carry, or a peer that does not speak TLS. Sending again cannot change it.
 */
export function isTlsFailure(error: unknown): error is Error & { code?: string } {
  if (!isErrorLike(error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string') return false;
  return /^(ERR_SSL_|ERR_TLS_|EPROTO$)|CERT|^UNABLE_TO_|SELF_SIGNED/.test(code);
}

function isErrorLike(value: unknown): value is Error {
  return typeof value === 'object' && value !== null && typeof (value as Error).message === 'string';
}

/** `host:port` for a URL, an IPv6 host in brackets. */
function hostPort(address: string): string {
  const at = address.lastIndexOf(':');
  const host = address.slice(0, at).replace(/^\[(.*)\]$/, '$1');
  return `${host.includes(':') ? `[${host}]` : host}:${address.slice(at + 1)}`;
}

class Http2StreamCall extends EventEmitter implements GrpcStreamCall {
  #stream: ClientHttp2Stream | undefined;
  #done = false;
  #status: { code: number; details: string } | undefined;
  #trailers: http2.IncomingHttpHeaders = {};
  readonly #reader: GrpcMessageReader;

  constructor(private readonly options: GrpcStreamChannelOptions) {
    super();
    this.#reader = new GrpcMessageReader(options.maxReceiveMessageBytes, (m) => {
      if (!this.#done) this.emit('data', m);
    });
  }

  /** The connection's own failure (refused, a TLS handshake that failed), when the stream died of it. */
  #connectionFailure: Error | undefined;

  attach(stream: ClientHttp2Stream): void {
    this.#stream = stream;
    stream.on('response', (headers) => {
      const status = Number(headers[HTTP2_HEADER_STATUS]);
      if (status !== 200) {
        this.#status = { code: httpStatusToGrpc(status), details: `HTTP status ${status}` };
        return;
      }
      // A trailers-only answer carries its status in the headers.
      this.#takeStatus(headers);
    });
    stream.on('trailers', (trailers: http2.IncomingHttpHeaders) => this.#takeStatus(trailers));
    stream.on('data', (piece: Buffer) => {
      if (this.#done) return;
      try {
        this.#reader.push(piece);
      } catch (err) {
        const e = err as GrpcFramingError;
        this.finish(e.grpcCode, e.message);
        stream.close(NGHTTP2_CANCEL);
      }
    });
    stream.on('error', (err: Error) => {
      // The stream's close says what happened; a session that failed (a refused connection, a
      // TLS handshake) is this error's cause, and becomes the call's.
      // (Duck-typed: Node's errors may come from another realm than this module's Error.)
      if (isErrorLike(err.cause)) this.#connectionFailure = err.cause;
    });
    stream.on('end', () => {
      this.#onEnd();
      // The server ended its side: end ours cleanly rather than reset a finished stream.
      if (!stream.writableEnded && !stream.destroyed) stream.end();
    });
    stream.on('close', () => this.#onClose(stream));
  }

  write(pieces: readonly Uint8Array[]): void {
    const stream = this.#stream;
    if (!stream || this.#done || stream.writableEnded || stream.destroyed) return;
    let length = 0;
    for (const p of pieces) length += p.length;
    if (length > this.options.maxSendMessageBytes) {
      this.finish(
        GRPC_STATUS.RESOURCE_EXHAUSTED,
        `a message of ${length} bytes, more than the ${this.options.maxSendMessageBytes} allowed`,
      );
      stream.close(NGHTTP2_CANCEL);
      return;
    }
    stream.cork();
    stream.write(grpcMessagePrefix(length));
    for (const p of pieces) if (p.length > 0) stream.write(p);
    stream.uncork();
  }

  end(): void {
    const stream = this.#stream;
    if (stream && !stream.writableEnded && !stream.destroyed) stream.end();
  }

  cancel(): void {
    if (this.#done) return;
    this.finish(GRPC_STATUS.CANCELLED, 'Cancelled on client');
    const stream = this.#stream;
    if (stream && !stream.closed) stream.close(NGHTTP2_CANCEL);
  }

  /** Ends the call with `code` (once): `error` first unless OK, then `status`. */
  finish(code: number, details: string, cause?: Error): void {
    if (this.#done) return;
    this.#done = true;
    const trailers = this.#trailers;
    emitOutcome(
      this,
      { code, details, metadata: { get: (key) => headerValues(trailers[key.toLowerCase()]) } },
      cause,
    );
  }

  #takeStatus(headers: http2.IncomingHttpHeaders): void {
    const raw = headers['grpc-status'];
    if (raw === undefined) return;
    this.#trailers = headers;
    const code = Number(raw);
    const message = headers['grpc-message'];
    this.#status = {
      code: Number.isInteger(code) ? code : GRPC_STATUS.UNKNOWN,
      details: typeof message === 'string' ? decodeGrpcMessage(message) : '',
    };
  }

  #onEnd(): void {
    if (this.#done) return;
    const status = this.#status;
    if (!status) return this.finish(GRPC_STATUS.UNKNOWN, 'the stream ended without a gRPC status');
    this.#settle(status);
  }

  #settle(status: { code: number; details: string }): void {
    if (status.code === GRPC_STATUS.OK && !this.#reader.atBoundary)
      return this.finish(GRPC_STATUS.INTERNAL, 'the stream ended inside a message');
    this.finish(status.code, status.details);
  }

  #onClose(stream: ClientHttp2Stream): void {
    if (this.#done) return;
    const status = this.#status;
    if (status) return this.#settle(status);
    // No status: the stream was reset, or the session (or the connection attempt) went.
    const rst = stream.rstCode;
    if (rst === NGHTTP2_REFUSED_STREAM)
      return this.finish(GRPC_STATUS.UNAVAILABLE, 'stream refused by the server');
    if (rst === NGHTTP2_CANCEL) return this.finish(GRPC_STATUS.CANCELLED, 'stream cancelled by the server');
    if (rst === NGHTTP2_ENHANCE_YOUR_CALM)
      return this.finish(GRPC_STATUS.RESOURCE_EXHAUSTED, 'the server says enhance your calm');
    const failure = this.#connectionFailure;
    if (failure !== undefined)
      return this.finish(
        GRPC_STATUS.UNAVAILABLE,
        `the connection to the server failed: ${failure.message}`,
        failure,
      );
    const session = stream.session;
    if (rst === undefined || rst === 0 || !session || session.destroyed || session.closed)
      return this.finish(GRPC_STATUS.UNAVAILABLE, 'the connection to the server was lost');
    return this.finish(GRPC_STATUS.INTERNAL, `stream reset with HTTP/2 code ${rst}`);
  }
}

/**
 * How a call ends, for either session's calls: `error` (a {@link StreamError}) first unless the
 * status is OK, then `status`.
 */
export function emitOutcome(call: EventEmitter, status: StreamStatus, cause?: unknown): void {
  const { code, details, metadata } = status;
  if (code !== GRPC_STATUS.OK) {
    const error = Object.assign(
      new Error(`${code} ${statusName(code)}: ${details}`, cause === undefined ? undefined : { cause }),
      { code, details, metadata },
    );
    call.emit('error', error);
  }
  call.emit('status', status);
}

function headerValues(v: string | string[] | undefined): string[] {
  return v === undefined ? [] : Array.isArray(v) ? v : [String(v)];
}

const STATUS_NAMES = new Map<number, string>(Object.entries(GRPC_STATUS).map(([k, v]) => [v, k]));

function statusName(code: number): string {
  return STATUS_NAMES.get(code) ?? `status ${code}`;
}

/** gRPC's mapping of an HTTP status without a gRPC status. */
function httpStatusToGrpc(status: number): number {
  switch (status) {
    case 401:
      return GRPC_STATUS.UNAUTHENTICATED;
    case 403:
      return GRPC_STATUS.PERMISSION_DENIED;
    case 404:
      return GRPC_STATUS.UNIMPLEMENTED;
    case 429:
    case 502:
    case 503:
    case 504:
      return GRPC_STATUS.UNAVAILABLE;
    case 400:
      return GRPC_STATUS.INTERNAL;
    default:
      return GRPC_STATUS.UNKNOWN;
  }
}

/** grpc-message is percent-encoded. */
function decodeGrpcMessage(message: string): string {
  try {
    return decodeURIComponent(message);
  } catch {
    return message;
  }
}
