import { EventEmitter } from 'node:events';
import type { GrpcCallError } from './grpc-http2-errors.js';

/** What a call asks of the stream behind it (the session's own). */
export interface CallStream {
  write(message: Uint8Array | readonly Uint8Array[]): void;
  end(): void;
  cancel(): void;
}

/** Options of a unary call (`unary` of a session or channel). */
export interface UnaryCallOptions {
  /** Extra request headers (lowercase names). */
  metadata?: Readonly<Record<string, string>>;
  /** Ms from now the call may take; past it the call fails DEADLINE_EXCEEDED and is cancelled. No deadline when undefined. */
  deadlineMs?: number;
}

/** The events of a {@link GrpcHttp2Call}. */
export interface GrpcHttp2CallEvents {
  /** A message received: a Buffer of exactly its length, the listener's to keep. */
  data: [message: Buffer];
  /** The call ended with a status other than OK, or failed; nothing follows. */
  error: [error: GrpcCallError];
  /** The server's status was OK; nothing follows. */
  end: [];
}

/**
 * One gRPC call: a stream of the session carrying whole messages both ways. Events: `data` with
 * each message received (a Buffer of exactly its length, the call's to keep), then either `end`
 * (the server's status was OK) or `error` with a {@link GrpcCallError}, once; nothing after.
 *
 * @example
 * ```ts
 * const call = session.openCall('/pkg.Service/Method');
 * call.on('data', (message) => handle(message));
 * call.on('error', (err) => console.error(err.grpcCode, err.details));
 * call.write(request);
 * call.end();
 * ```
 */
export class GrpcHttp2Call extends EventEmitter<GrpcHttp2CallEvents> {
  /** @internal The session builds calls; {@link GrpcHttp2Session.openCall} is the way in. */
  constructor(private readonly stream: CallStream) {
    super();
  }

  /**
   * Sends a message: one buffer, or its pieces in order (the message is their concatenation, e.g.
   * an encoded header and a payload kept apart). The bytes go to the socket as given, not copied:
   * do not change them until sent.
   */
  write(message: Uint8Array | readonly Uint8Array[]): void {
    this.stream.write(message);
  }

  /** Half-closes: no more messages from this side. */
  end(): void {
    this.stream.end();
  }

  /** Ends the call now (RST_STREAM CANCEL): `error` CANCELLED follows unless the call had ended. */
  cancel(): void {
    this.stream.cancel();
  }
}
