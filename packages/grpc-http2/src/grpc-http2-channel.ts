import { EventEmitter } from 'node:events';
import type { GrpcHttp2Call, UnaryCallOptions } from './grpc-http2-call.js';
import { GRPC_STATUS, GrpcCallError } from './grpc-http2-errors.js';
import { resolveSessionOptions, type GrpcHttp2SessionOptions } from './grpc-http2-options.js';
import { GrpcHttp2Session } from './grpc-http2-session.js';
import { failedCall } from './internal/client-stream.js';

// A session ends for good when its socket goes or the server sends GOAWAY; a client talking to
// one server for its whole life wants the next call on a new session, not an error. The channel
// is that: one session at a time, opened by the first call that needs it and again after it goes.

/** The events of a {@link GrpcHttp2Channel}. */
export interface GrpcHttp2ChannelEvents {
  /** A session that had been opened went (GOAWAY, a lost socket); the next call opens a new one. */
  lost: [];
}

/**
 * Calls to one gRPC server over one {@link GrpcHttp2Session} at a time, opened when a call needs it
 * and again after it goes; an idle channel holds no process open. `close()` lets the open calls
 * finish; calls after it fail UNAVAILABLE.
 *
 * Events: `lost` (a session went: GOAWAY or a lost socket; the calls on it have failed).
 *
 * @example
 * ```ts
 * const channel = new GrpcHttp2Channel({ address: 'dn1.example.com:9858' });
 * const call = channel.openCall('/pkg.Service/Method');
 * call.on('data', (message) => console.log(message.length));
 * call.on('end', () => channel.close());
 * call.write([header, payload]);
 * call.end();
 * ```
 */
export class GrpcHttp2Channel extends EventEmitter<GrpcHttp2ChannelEvents> {
  #session: GrpcHttp2Session | undefined;
  #closed = false;

  /** @param options each session's options, checked here (a bad one throws `ERR_INVALID_OPTION` at once). */
  constructor(private readonly options: GrpcHttp2SessionOptions) {
    super();
    resolveSessionOptions(options);
  }

  /** The server's `host:port`. */
  get address(): string {
    return this.options.address;
  }

  /** Opens a call of `path` (`/package.Service/Method`) on the current session, or a new one. */
  openCall(path: string, metadata?: Readonly<Record<string, string>>): GrpcHttp2Call {
    if (this.#closed) return failedCall(GRPC_STATUS.UNAVAILABLE, 'the channel is closed');
    return this.#sessionNow().openCall(path, metadata);
  }

  /** A unary call of `path` on the current session, or a new one (see {@link GrpcHttp2Session.unary}). */
  unary(path: string, message: Uint8Array, options?: UnaryCallOptions): Promise<Buffer> {
    if (this.#closed)
      return Promise.reject(new GrpcCallError(GRPC_STATUS.UNAVAILABLE, 'the channel is closed'));
    return this.#sessionNow().unary(path, message, options);
  }

  /** No new calls; the open ones finish, then the session closes. */
  close(): void {
    this.#closed = true;
    this.#session?.close();
    this.#session = undefined;
  }

  #sessionNow(): GrpcHttp2Session {
    const current = this.#session;
    if (current?.accepting) return current;
    const session = new GrpcHttp2Session(this.options);
    const lost = (): void => {
      if (this.#session !== session) return;
      this.#session = undefined;
      this.emit('lost');
    };
    session.once('goaway', lost);
    session.once('close', lost);
    this.#session = session;
    return session;
  }
}
