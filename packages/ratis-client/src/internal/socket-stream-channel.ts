// The client's gRPC streams on `@fastpath/grpc-http2`'s session: HTTP/2 spoken by fastpath on a
// socket (`transport: 'socket'`). A message goes out as its pieces (the prefix, the encoded fields,
// the caller's content as it lies), framed into DATA frames without a copy; Node's `http2` hands
// the same pieces to nghttp2 through its stream machinery, a cost per write and per received
// reply that the socket session does not have.
import { EventEmitter } from 'node:events';
import { type GrpcCallError, type GrpcHttp2Call, GrpcHttp2Channel } from '@fastpath/grpc-http2';
import {
  DEFAULT_GRPC_CONNECT_TIMEOUT_MS,
  emitOutcome,
  GRPC_STATUS,
  type GrpcStreamCall,
  type GrpcStreamChannelOptions,
  type StreamChannel,
  type StreamMetadata,
} from './grpc-stream-channel.js';

/** Ratis's replies are small; its requests (a 4 MiB WriteChunk) go out against the server's windows. */
const REPLY_WINDOW_BYTES = 1024 * 1024;

/** Calls to one member over one socket session at a time, opened with the first call and again after it is lost. */
export class SocketStreamChannel implements StreamChannel {
  readonly #channel: GrpcHttp2Channel;

  constructor(
    readonly address: string,
    private readonly options: GrpcStreamChannelOptions,
  ) {
    const tls = options.tls;
    this.#channel = new GrpcHttp2Channel({
      address,
      ...(tls
        ? {
            tls: {
              ca: tls.ca,
              ...(tls.serverNameOverride === undefined ? {} : { serverNameOverride: tls.serverNameOverride }),
            },
          }
        : {}),
      maxReceiveMessageBytes: options.maxReceiveMessageBytes,
      streamWindowBytes: REPLY_WINDOW_BYTES,
      connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_GRPC_CONNECT_TIMEOUT_MS,
      peer: `the Raft peer at ${address}`,
    });
  }

  openStream(path: string): GrpcStreamCall {
    return new SocketStreamCall(this.#channel.openCall(path), this.options.maxSendMessageBytes);
  }

  close(): void {
    this.#channel.close();
  }
}

const NO_TRAILERS: StreamMetadata = { get: () => [] };

/** A socket session's call with the events and errors of {@link GrpcStreamCall}. */
class SocketStreamCall extends EventEmitter implements GrpcStreamCall {
  #done = false;

  constructor(
    private readonly call: GrpcHttp2Call,
    private readonly maxSendMessageBytes: number,
  ) {
    super();
    call.on('data', (message) => {
      if (!this.#done) this.emit('data', message);
    });
    call.on('end', () => this.#finish(GRPC_STATUS.OK, ''));
    call.on('error', (err: GrpcCallError) =>
      this.#finish(err.grpcCode, err.details, trailersOf(err), err.cause),
    );
  }

  write(pieces: readonly Uint8Array[]): void {
    if (this.#done) return;
    let length = 0;
    for (const p of pieces) length += p.length;
    if (length > this.maxSendMessageBytes) {
      this.#finish(
        GRPC_STATUS.RESOURCE_EXHAUSTED,
        `a message of ${length} bytes, more than the ${this.maxSendMessageBytes} allowed`,
      );
      this.call.cancel();
      return;
    }
    this.call.write(pieces);
  }

  end(): void {
    this.call.end();
  }

  cancel(): void {
    if (this.#done) return;
    this.#finish(GRPC_STATUS.CANCELLED, 'Cancelled on client');
    this.call.cancel();
  }

  #finish(code: number, details: string, metadata = NO_TRAILERS, cause?: unknown): void {
    if (this.#done) return;
    this.#done = true;
    emitOutcome(this, { code, details, metadata }, cause);
  }
}

/** The server's trailers as grpc-js's `Metadata#get` gives them (every value of a key). */
function trailersOf(err: GrpcCallError): StreamMetadata {
  const trailers = err.trailers;
  if (trailers.length === 0) return NO_TRAILERS;
  return {
    get: (key) => {
      const name = key.toLowerCase();
      return trailers.filter(([n]) => n === name).map(([, v]) => v);
    },
  };
}
