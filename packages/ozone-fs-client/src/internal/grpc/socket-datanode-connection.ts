// A datanode's (or the OM's) `send` calls on `@fastpath/grpc-http2`'s session, HTTP/2 spoken by
// fastpath on a socket that reads into one reused buffer (`ozone.client.datanode.transport=
// socket-stream-pool`). Each answer is copied once, from the socket's buffer straight into a buffer
// of the client's receive pool; Node's `http2` first makes a Buffer of every DATA frame and runs it
// through its stream machinery, which cost several times the CPU per MiB of the copy itself.
import { EventEmitter } from 'node:events';
import { GrpcCallError, GrpcHttp2Channel, type GrpcHttp2Call } from '@fastpath/grpc-http2';
import { tlsCa } from './channel-options.js';
import type { CallFailure, DatanodeCall, UnaryConnection } from './datanode-call.js';
import { DATANODE_SEND_PATH } from './datanode-stream.js';
import { LossWatchers } from './loss-watchers.js';
import type { Http2DatanodeConnectionOptions } from './http2-datanode-connection.js';
import type { ReceiveBufferPool } from './receive-buffer-pool.js';

/** One session at a time to one server, opened when a call needs it and again after it goes. */
export class SocketDatanodeConnection implements UnaryConnection {
  readonly #channel: GrpcHttp2Channel;
  readonly #lossWatchers = new LossWatchers();

  constructor(
    readonly address: string,
    private readonly options: Http2DatanodeConnectionOptions,
  ) {
    const { tls, receiveBuffers } = options;
    this.#channel = new GrpcHttp2Channel({
      address,
      // The CA is read once here: a CA file that cannot be read fails the channel's creation.
      ...(tls
        ? {
            tls: {
              ca: tlsCa(tls),
              ...(tls.serverNameOverride === undefined ? {} : { serverNameOverride: tls.serverNameOverride }),
            },
          }
        : {}),
      maxFrameBytes: options.maxFrameBytes,
      streamWindowBytes: options.streamWindowBytes,
      connectionWindowBytes: options.connectionWindowBytes,
      maxReceiveMessageBytes: options.maxReceiveBytes,
      peer: options.peer ?? 'the datanode',
      ...(receiveBuffers ? { allocateMessage: (length: number) => receiveBuffers.acquire(length) } : {}),
    });
    this.#channel.on('lost', () => this.#lossWatchers.lost());
  }

  openCall(): DatanodeCall {
    return new SocketCall(
      this.#channel.openCall(this.options.path ?? DATANODE_SEND_PATH),
      this.options.receiveBuffers,
    );
  }

  /**
   * One unary call of the connection's path: the answer, or a grpc-js shaped {@link CallFailure}
   * (DEADLINE_EXCEEDED after `timeoutMs`). No call object or listeners: the OM's small calls.
   */
  unary(message: Buffer, timeoutMs: number): Promise<Buffer> {
    return this.#channel
      .unary(this.options.path ?? DATANODE_SEND_PATH, message, { deadlineMs: timeoutMs })
      .catch(rethrowAsFailure);
  }

  /** Hands back a message a call of this connection delivered, once nothing reads it (see {@link DatanodeCall.release}). */
  release(message: Buffer): void {
    this.options.receiveBuffers?.release(message);
  }

  watchLoss(onLost: () => void, keepWatching: () => boolean): void {
    this.#lossWatchers.add(onLost, keepWatching);
  }

  close(): void {
    this.#lossWatchers.clear();
    // Calls in flight finish; the session closes after them.
    this.#channel.close();
  }
}

/** A session's failure as grpc-js shapes one: what the rest of the client reads. */
function callFailure(err: GrpcCallError): CallFailure {
  const failure: CallFailure = { code: err.grpcCode, details: err.details };
  if (err.http2ResetCode !== undefined) failure.http2ResetCode = err.http2ResetCode;
  return failure;
}

function rethrowAsFailure(err: unknown): never {
  throw err instanceof GrpcCallError ? callFailure(err) : err;
}

/** A session's call as a datanode stream expects it: errors grpc-js shaped (`code`, `details`). */
class SocketCall extends EventEmitter implements DatanodeCall {
  constructor(
    private readonly call: GrpcHttp2Call,
    /** Where the session assembles this call's messages: a message handed back goes there. */
    private readonly buffers: ReceiveBufferPool | undefined,
  ) {
    super();
    call.on('data', (message) => this.emit('data', message));
    call.on('end', () => this.emit('end'));
    call.on('error', (err) => this.emit('error', callFailure(err)));
  }

  /** Hands back a message this call delivered (a streaming ReadBlock's piece, read to its end). */
  release(message: Buffer): void {
    this.buffers?.release(message);
  }

  write(message: Buffer): void {
    this.call.write(message);
  }

  end(): void {
    this.call.end();
  }

  cancel(): void {
    this.call.cancel();
  }
}
