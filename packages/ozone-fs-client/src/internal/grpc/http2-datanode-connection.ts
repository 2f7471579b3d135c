// fastpath's HTTP/2 session to a datanode on Node's `http2` module (`ozone.client.datanode.transport=
// http2-stream-pool`), with gRPC's message framing done here, settings chosen for bulk answers.
// grpc-js hands each DATA piece through its own stream machinery and joins a message's pieces
// into a new buffer; here a message whole in one piece is a view of it, one across pieces is
// copied once into a buffer of its size (from the client's pool of receive buffers, when given,
// which the reader hands back once it has copied the bytes out), and the session tells the
// datanode to send frames as large as `maxFrameBytes` and keeps wide windows.
import { EventEmitter } from 'node:events';
import http2, { type ClientHttp2Session, type ClientHttp2Stream } from 'node:http2';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { type ClientTlsOptions, tlsCa } from './channel-options.js';
import type { CallFailure, DatanodeCall, UnaryConnection } from './datanode-call.js';
import { DATANODE_SEND_PATH } from './datanode-stream.js';
import { LossWatchers } from './loss-watchers.js';
import type { ReceiveBufferPool } from './receive-buffer-pool.js';
import {
  type GrpcFramingError,
  GrpcMessageReader,
  grpcMessagePrefix,
  type GrpcTlsOptions,
  grpcTlsSessionOptions,
} from '@fastpath/ratis-client/grpc-framing';

export interface Http2DatanodeConnectionOptions {
  /** The largest message accepted (a bigger one fails its call with RESOURCE_EXHAUSTED). */
  maxReceiveBytes: number;
  /** SETTINGS_MAX_FRAME_SIZE sent to the datanode: the largest DATA frame it may send (16 KiB to 16 MiB - 1). */
  maxFrameBytes: number;
  /** The per-stream receive window (SETTINGS_INITIAL_WINDOW_SIZE). */
  streamWindowBytes: number;
  /** The session's receive window. */
  connectionWindowBytes: number;
  tls: ClientTlsOptions | undefined;
  /**
   * The gRPC method every call opens. Default: the datanode's `send`; the OM's `submitRequest`
   * goes over the same session code ({@link Http2OmTransport}).
   */
  path?: string;
  /** What the lost-connection error calls the peer. Default: `the datanode`. */
  peer?: string;
  /** Where messages cut across DATA pieces are assembled; none: a new buffer each. */
  receiveBuffers?: ReceiveBufferPool | undefined;
}

const {
  HTTP2_HEADER_METHOD,
  HTTP2_HEADER_PATH,
  HTTP2_HEADER_CONTENT_TYPE,
  HTTP2_HEADER_TE,
  HTTP2_HEADER_STATUS,
  NGHTTP2_CANCEL,
  NGHTTP2_REFUSED_STREAM,
  NGHTTP2_ENHANCE_YOUR_CALM,
  NGHTTP2_INADEQUATE_SECURITY,
} = http2.constants;

/** A {@link CallFailure} this side decides on, as an Error (what a promise rejects with). */
function callFailed(code: number, details: string): Error & CallFailure {
  return Object.assign(new Error(details), { code, details });
}

/** One session at a time to one datanode, opened when a call needs it and again after it goes. */
export class Http2DatanodeConnection implements UnaryConnection {
  #session: ClientHttp2Session | undefined;
  readonly #tls: GrpcTlsOptions | undefined;
  #closed = false;
  /** Sessions that completed their handshake and heard the peer's settings. */
  readonly #connected = new WeakSet<http2.Http2Session>();
  /** Calls open per session: a session holds the process open while it has any. */
  readonly #active = new WeakMap<http2.Http2Session, number>();
  readonly #lossWatchers = new LossWatchers();

  constructor(
    readonly address: string,
    private readonly options: Http2DatanodeConnectionOptions,
  ) {
    const tls = options.tls;
    if (tls)
      this.#tls = {
        ca: tlsCa(tls),
        ...(tls.serverNameOverride === undefined ? {} : { serverNameOverride: tls.serverNameOverride }),
      };
  }

  openCall(): DatanodeCall {
    const call = new Http2Call(
      this.options.maxReceiveBytes,
      this.options.peer ?? 'the datanode',
      (session) => this.#connected.has(session),
      this.options.receiveBuffers,
    );
    if (this.#closed) {
      queueMicrotask(() => call.fail(GrpcStatus.UNAVAILABLE, 'the connection is closed'));
      return call;
    }
    let stream: ClientHttp2Stream;
    try {
      stream = this.#sessionNow().request(
        {
          [HTTP2_HEADER_METHOD]: 'POST',
          [HTTP2_HEADER_PATH]: this.options.path ?? DATANODE_SEND_PATH,
          [HTTP2_HEADER_CONTENT_TYPE]: 'application/grpc',
          [HTTP2_HEADER_TE]: 'trailers',
        },
        { endStream: false },
      );
    } catch (err) {
      // A session that went between the check and the request.
      queueMicrotask(() => call.fail(GrpcStatus.UNAVAILABLE, (err as Error).message));
      return call;
    }
    call.attach(stream);
    const session = stream.session;
    if (session) {
      const active = this.#active.get(session) ?? 0;
      this.#active.set(session, active + 1);
      if (active === 0) session.ref();
      stream.once('close', () => {
        const left = (this.#active.get(session) ?? 1) - 1;
        this.#active.set(session, left);
        if (left === 0 && !session.destroyed) session.unref();
      });
    }
    return call;
  }

  /** One unary call of the connection's path as a call of Node's HTTP/2 session: one message each way. */
  unary(message: Buffer, timeoutMs: number): Promise<Buffer> {
    return new Promise<Buffer>((resolve, reject) => {
      const call = this.openCall();
      let answer: Buffer | undefined;
      const fail = (code: number, details: string): void => {
        clearTimeout(deadline);
        reject(callFailed(code, details));
        call.cancel(); // settled first: the cancel's own CANCELLED error then changes nothing
      };
      const deadline = setTimeout(
        () => fail(GrpcStatus.DEADLINE_EXCEEDED, `no answer in ${timeoutMs} ms`),
        timeoutMs,
      );
      call.on('data', (received) => {
        if (answer === undefined) answer = received;
        else fail(GrpcStatus.INTERNAL, 'a unary call answered two messages');
      });
      call.on('error', (err) => {
        clearTimeout(deadline);
        reject(err);
      });
      call.on('end', () => {
        clearTimeout(deadline);
        if (answer === undefined)
          reject(
            callFailed(
              GrpcStatus.INTERNAL,
              `${this.options.peer ?? 'the datanode'} ended the call without an answer`,
            ),
          );
        else resolve(answer);
      });
      call.write(message);
      call.end();
    });
  }

  /** Hands back a message a call of this connection delivered, once nothing reads it (see {@link DatanodeCall.release}). */
  release(message: Buffer): void {
    this.options.receiveBuffers?.release(message);
  }

  watchLoss(onLost: () => void, keepWatching: () => boolean): void {
    this.#lossWatchers.add(onLost, keepWatching);
  }

  close(): void {
    this.#closed = true;
    this.#lossWatchers.clear();
    // Streams in flight finish; the session closes after them.
    this.#session?.close();
    this.#session = undefined;
  }

  #sessionNow(): ClientHttp2Session {
    const current = this.#session;
    if (current && !current.closed && !current.destroyed) return current;
    const tls = this.options.tls;
    const [host, port] = splitAddress(this.address);
    const session = http2.connect(`${tls ? 'https' : 'http'}://${host}:${port}`, {
      settings: {
        enablePush: false,
        maxFrameSize: this.options.maxFrameBytes,
        initialWindowSize: this.options.streamWindowBytes,
      },
      // Answers of several MiB are held by the session until read: the default (10 MiB) would
      // refuse new streams under a burst of 1 MiB answers.
      maxSessionMemory: Math.max(64, Math.ceil((this.options.connectionWindowBytes * 2) / (1 << 20))),
      ...(this.#tls ? grpcTlsSessionOptions(this.#tls, host) : {}),
    });
    session.on('connect', () => {
      this.#connected.add(session);
      session.setLocalWindowSize(this.options.connectionWindowBytes);
    });
    // Session errors reach each stream on it as a close; the session's own error needs a listener.
    session.on('error', () => {});
    const lost = (): void => {
      if (this.#session === session) this.#session = undefined;
      this.#lossWatchers.lost();
    };
    session.once('goaway', lost);
    session.once('close', lost);
    // An idle session holds no process open (calls in flight ref it).
    session.unref();
    this.#session = session;
    return session;
  }
}

function splitAddress(address: string): [string, string] {
  const at = address.lastIndexOf(':');
  const host = address.slice(0, at).replace(/^\[(.*)\]$/, '$1');
  return [host.includes(':') ? `[${host}]` : host, address.slice(at + 1)];
}

/**
 * One `send` call on a session: writes messages as prefix and body (two pieces, no joined copy),
 * reads them through a {@link GrpcMessageReader}, and ends with the gRPC status of the trailers
 * (or of a trailers-only answer), as grpc-js reports it: `end` for OK, else `error` {code, details}.
 */
class Http2Call extends EventEmitter implements DatanodeCall {
  #stream: ClientHttp2Stream | undefined;
  #done = false;
  #status: { code: number; details: string } | undefined;
  /** The error the stream was destroyed with (a session's: a refused TLS handshake, a reset socket). */
  #streamError: Error | undefined;
  readonly #reader: GrpcMessageReader;
  readonly #peer: string;
  readonly #connected: (session: http2.Http2Session) => boolean;
  readonly #buffers: ReceiveBufferPool | undefined;

  /** @param connected whether a session ever completed its handshake (else a failure is a connection's: UNAVAILABLE). */
  constructor(
    maxReceiveBytes: number,
    peer: string,
    connected: (session: http2.Http2Session) => boolean,
    buffers: ReceiveBufferPool | undefined,
  ) {
    super();
    this.#peer = peer;
    this.#connected = connected;
    this.#buffers = buffers;
    this.#reader = new GrpcMessageReader(
      maxReceiveBytes,
      (m) => {
        if (!this.#done) this.emit('data', m);
      },
      buffers && ((length) => buffers.acquire(length)),
    );
  }

  release(message: Buffer): void {
    this.#buffers?.release(message);
  }

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
        this.fail(e.grpcCode, e.message);
        stream.close(NGHTTP2_CANCEL);
      }
    });
    stream.on('error', (err: Error) => {
      // The stream's close says what happened; the error says why, when the session failed.
      this.#streamError ??= err;
    });
    // The datanode's END_STREAM (after its trailers) ends the call, though our side may still be
    // open (a long-lived stream): our side is then ended cleanly, never reset (resets of finished
    // streams count toward the server's rapid-reset limit).
    stream.on('end', () => {
      this.#onEnd();
      if (!stream.writableEnded && !stream.destroyed) stream.end();
    });
    stream.on('close', () => this.#onClose(stream));
    // Read even when no one listens for 'end': the stream must flow to reach its trailers.
    stream.resume();
  }

  write(message: Buffer): void {
    const stream = this.#stream;
    if (!stream || this.#done || stream.writableEnded) return;
    stream.cork();
    stream.write(grpcMessagePrefix(message.length));
    stream.write(message);
    stream.uncork();
  }

  end(): void {
    const stream = this.#stream;
    if (stream && !stream.writableEnded && !stream.destroyed) stream.end();
  }

  cancel(): void {
    if (this.#done) return;
    this.fail(GrpcStatus.CANCELLED, 'Cancelled on client');
    const stream = this.#stream;
    if (stream && !stream.closed) stream.close(NGHTTP2_CANCEL);
  }

  /** Ends the call with an error (once). */
  fail(code: number, details: string, http2ResetCode?: number): void {
    if (this.#done) return;
    this.#done = true;
    const failure: CallFailure = { code, details };
    if (http2ResetCode !== undefined) failure.http2ResetCode = http2ResetCode;
    this.emit('error', failure);
  }

  #takeStatus(headers: http2.IncomingHttpHeaders): void {
    const raw = headers['grpc-status'];
    if (raw === undefined) return;
    const code = Number(raw);
    const message = headers['grpc-message'];
    this.#status = {
      code: Number.isInteger(code) ? code : GrpcStatus.UNKNOWN,
      details: typeof message === 'string' ? decodeGrpcMessage(message) : '',
    };
  }

  #onEnd(): void {
    if (this.#done) return;
    if (!this.#status) {
      // Ended with no status at all: on a session that never connected (a TLS server spoken to
      // in plain text ends it so) that is a connection failure, as grpc-js reports it.
      const session = this.#stream?.session;
      if (!session || !this.#connected(session))
        return this.fail(GrpcStatus.UNAVAILABLE, `no connection to ${this.#peer} was established`);
      return this.fail(GrpcStatus.UNKNOWN, 'the stream ended without a gRPC status');
    }
    this.#settle(this.#status);
  }

  #settle(status: { code: number; details: string }): void {
    if (status.code === (GrpcStatus.OK as number) && !this.#reader.atBoundary)
      return this.fail(GrpcStatus.INTERNAL, 'the stream ended inside a message');
    if (status.code === (GrpcStatus.OK as number)) {
      this.#done = true;
      this.emit('end');
      return;
    }
    this.fail(status.code, status.details);
  }

  #onClose(stream: ClientHttp2Stream): void {
    if (this.#done) return;
    const status = this.#status;
    if (status) return this.#settle(status);
    // No status: the stream was reset, or the session went.
    const rst = stream.rstCode;
    if (rst === NGHTTP2_REFUSED_STREAM)
      return this.fail(GrpcStatus.UNAVAILABLE, 'stream refused by the server', rst);
    if (rst === NGHTTP2_CANCEL) return this.fail(GrpcStatus.CANCELLED, 'stream cancelled by the server', rst);
    if (rst === NGHTTP2_ENHANCE_YOUR_CALM)
      return this.fail(GrpcStatus.RESOURCE_EXHAUSTED, 'the server says enhance your calm', rst);
    if (rst === NGHTTP2_INADEQUATE_SECURITY)
      return this.fail(GrpcStatus.PERMISSION_DENIED, 'protocol not secure enough', rst);
    const session = stream.session;
    // A session that never connected (refused, a TLS server spoken to in plain text) is a
    // connection failure whatever the stream's code, as grpc-js reports it.
    if (
      rst === undefined ||
      rst === 0 ||
      !session ||
      session.destroyed ||
      session.closed ||
      !this.#connected(session)
    )
      return this.fail(
        GrpcStatus.UNAVAILABLE,
        `the connection to ${this.#peer} was lost${this.#streamError ? `: ${this.#streamError.message}` : ''}`,
      );
    return this.fail(GrpcStatus.INTERNAL, `stream reset with HTTP/2 code ${rst}`, rst);
  }
}

/** gRPC's mapping of an HTTP status without a gRPC status. */
function httpStatusToGrpc(status: number): number {
  switch (status) {
    case 400:
      return GrpcStatus.INTERNAL;
    case 401:
      return GrpcStatus.UNAUTHENTICATED;
    case 403:
      return GrpcStatus.PERMISSION_DENIED;
    case 404:
      return GrpcStatus.UNIMPLEMENTED;
    case 429:
    case 502:
    case 503:
    case 504:
      return GrpcStatus.UNAVAILABLE;
    default:
      return GrpcStatus.UNKNOWN;
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
