import { Client, Metadata, type ChannelCredentials, type ClientDuplexStream } from '@grpc/grpc-js';
import { DatanodeResultError, OzoneProtocolError } from '../../ozone-errors.js';
import { dn, type hadoop } from '../proto/wire.js';
import { decodeContainerAnswer, type ContainerAnswer } from '../proto/decode-container-answer.js';
import { channelCredentials, channelOptions, type ClientTlsOptions } from './channel-options.js';
import { rpcError } from './grpc-errors.js';
import { rawBytes } from './raw-bytes.js';
import { InFlightLimiter } from './in-flight-limiter.js';
import { DATANODE_SEND_PATH } from './datanode-stream.js';
import type { DatanodeCall } from './datanode-call.js';
import { DatanodeStreamPool, type DatanodeStreamStats } from './datanode-stream-pool.js';
import { GrpcJsConnection } from './grpc-js-connection.js';
import { Http2DatanodeConnection } from './http2-datanode-connection.js';
import { SocketDatanodeConnection } from './socket-datanode-connection.js';
import type { ReceiveBufferPool } from './receive-buffer-pool.js';
import type { DatanodeTransport } from '../../ozone-client-config.js';

export { DATANODE_SEND_PATH };

/**
 * Keepalive pings while calls are open, no more often than every 5 minutes: Ozone's datanode
 * server sets no permitted ping interval, so gRPC-java's default (5 minutes) applies and a
 * client that pings more often is sent away with GOAWAY `too_many_pings`. Long-lived streams
 * make the pings matter: without them a dead peer is noticed only by a request's deadline.
 */
export const DATANODE_KEEPALIVE = Object.freeze({
  'grpc.keepalive_time_ms': 5 * 60_000,
  'grpc.keepalive_timeout_ms': 30_000,
});

/** The largest DATA frame the datanode may send on fastpath's own session, unless configured. */
export const DEFAULT_HTTP2_MAX_FRAME_BYTES = 1024 * 1024;
/**
 * Receive windows of fastpath's own session: wide enough that a stream's 4 MiB answer and a few
 * streams' 1 MiB answers flow without waiting for a WINDOW_UPDATE (as grpc-js' 16 MiB window).
 */
const HTTP2_STREAM_WINDOW_BYTES = 8 * 1024 * 1024;
const HTTP2_CONNECTION_WINDOW_BYTES = 32 * 1024 * 1024;

/** Commands that keep a stream per request in every mode: writes (their data is large, and not this pool's business). */
const UNPOOLED_COMMANDS: ReadonlySet<number> = new Set([
  dn.Type.WriteChunk,
  dn.Type.PutBlock,
  dn.Type.PutSmallFile,
  dn.Type.StreamInit,
  dn.Type.StreamWrite,
  dn.Type.FinalizeBlock,
]);

export interface DatanodeChannelOptions {
  maxReceiveBytes: number;
  maxInFlight: number;
  tls: ClientTlsOptions | undefined;
  /** The longest wait between connection attempts (datanodeReconnectBackoffMs). */
  reconnectBackoffMs: number;
  /** Credentials built ahead (by the warm-up) from `tls`; without them the channel builds its own. */
  credentials?: ChannelCredentials | undefined;
  /** How read commands travel (`ozone.client.datanode.transport`); default `call-per-request`. */
  transport?: DatanodeTransport;
  /** `http2-stream-pool` and `socket-stream-pool` only: the session's SETTINGS_MAX_FRAME_SIZE (`ozone.client.datanode.http2.max.frame.size`). */
  http2MaxFrameBytes?: number;
  /** The stream pool's size and idle bound (`stream-pool` only). */
  streamsPerChannel?: number;
  streamIdleMs?: number;
  /** `http2-stream-pool` and `socket-stream-pool` only: where answers are assembled (the client's pool). */
  receiveBuffers?: ReceiveBufferPool | undefined;
}

/** A read command's answer, and the bytes it was decoded from (its `bytes` fields are views of them). */
export interface ReceivedAnswer extends ContainerAnswer {
  readonly received: Buffer;
}

/**
 * One gRPC channel to one datanode. With `call-per-request`, each command opens its own bidi
 * `send` stream, writes one request, half-closes and waits for one response, as
 * XceiverClientGrpc#sendCommandAsync does. With `stream-pool`, read commands go through the
 * channel's long-lived streams ({@link DatanodeStreamPool}); with `http2-stream-pool`, through
 * the same pool on fastpath's own HTTP/2 session on Node's `http2` ({@link Http2DatanodeConnection});
 * with `socket-stream-pool`, on `@fastpath/grpc-http2`'s session on a socket
 * ({@link SocketDatanodeConnection}). Other
 * commands (writes) always take a grpc-js call each.
 */
export class DatanodeChannel {
  readonly #client: Client;
  readonly #limiter: InFlightLimiter;
  readonly #pool: DatanodeStreamPool | undefined;
  readonly #connection: Http2DatanodeConnection | SocketDatanodeConnection | undefined;
  #grpcJs: GrpcJsConnection | undefined;
  constructor(
    readonly address: string,
    options: DatanodeChannelOptions,
  ) {
    this.#client = new Client(address, options.credentials ?? channelCredentials(options.tls), {
      ...channelOptions(options.maxReceiveBytes, options.tls, options.reconnectBackoffMs),
      ...DATANODE_KEEPALIVE,
    });
    this.#limiter = new InFlightLimiter(options.maxInFlight);
    const pooled = { size: options.streamsPerChannel ?? 1, idleMs: options.streamIdleMs ?? 1000 };
    if (options.transport === 'stream-pool') {
      this.#grpcJs = new GrpcJsConnection(this.#client);
      this.#pool = new DatanodeStreamPool(this.#grpcJs, address, pooled);
    } else if (options.transport === 'http2-stream-pool' || options.transport === 'socket-stream-pool') {
      const session = {
        maxReceiveBytes: options.maxReceiveBytes,
        maxFrameBytes: options.http2MaxFrameBytes ?? DEFAULT_HTTP2_MAX_FRAME_BYTES,
        streamWindowBytes: HTTP2_STREAM_WINDOW_BYTES,
        connectionWindowBytes: HTTP2_CONNECTION_WINDOW_BYTES,
        tls: options.tls,
        receiveBuffers: options.receiveBuffers,
      };
      this.#connection =
        options.transport === 'socket-stream-pool'
          ? new SocketDatanodeConnection(address, session)
          : new Http2DatanodeConnection(address, session);
      this.#pool = new DatanodeStreamPool(this.#connection, address, pooled);
    }
  }

  get inFlight(): number {
    return this.#limiter.active;
  }

  /** The stream pool's counters (`stream-pool` only). */
  get streamStats(): Readonly<DatanodeStreamStats> | undefined {
    return this.#pool?.stats;
  }

  /**
   * A `send` stream of its own, outside the pool and the in-flight bound, for a streaming ReadBlock:
   * the datanode ties the stream to the block its first ReadBlock names and answers with many
   * messages, so it cannot carry other requests. On fastpath's own HTTP/2 session with
   * `http2-stream-pool` or `socket-stream-pool`, else through grpc-js. No deadline: its reader bounds the wait per piece.
   */
  openStream(): DatanodeCall {
    return (this.#connection ?? (this.#grpcJs ??= new GrpcJsConnection(this.#client))).openCall();
  }

  /** Cancels the pool's streams; the requests waiting on them are sent again on fresh ones (tests). */
  killStreams(reason: string): void {
    this.#pool?.killStreams(reason);
  }

  /** Sends one command; resolves with its response, decoded by the generated codecs, when `result` is SUCCESS. */
  send(
    request: hadoop.hdds.datanode.IContainerCommandRequestProto,
    timeoutMs: number,
  ): Promise<hadoop.hdds.datanode.ContainerCommandResponseProto> {
    return this.#roundTrip(request, timeoutMs, (raw, command) => {
      try {
        return dn.ContainerCommandResponseProto.decode(raw);
      } catch (cause) {
        throw new OzoneProtocolError(
          this.address,
          `undecodable response to ${command}: ${(cause as Error).message}`,
          cause,
        );
      }
    });
  }

  /**
   * Sends a read command (GetBlock, ReadChunk); resolves with its answer decoded in place (its
   * data and checksums views of the received bytes) when `result` is SUCCESS. A caller that has
   * copied what it needs out of the answer may {@link release} it.
   */
  read(
    request: hadoop.hdds.datanode.IContainerCommandRequestProto,
    timeoutMs: number,
  ): Promise<ReceivedAnswer> {
    return this.#roundTrip(request, timeoutMs, (raw) => {
      const answer = decodeContainerAnswer(raw, this.address) as ContainerAnswer & { received?: Buffer };
      answer.received = raw;
      return answer as ReceivedAnswer;
    });
  }

  /**
   * Hands an answer of {@link read} back to the transport: neither it nor any view of its bytes
   * may be read afterwards (with `http2-stream-pool` and `socket-stream-pool`, a later answer may
   * be assembled in them).
   * An answer not handed back is collected as any buffer.
   */
  release(answer: ReceivedAnswer): void {
    this.#connection?.release(answer.received);
  }

  #roundTrip<T extends { cmdType: number; result: number; message?: string | null | undefined }>(
    request: hadoop.hdds.datanode.IContainerCommandRequestProto,
    timeoutMs: number,
    decode: (raw: Buffer, command: string) => T,
  ): Promise<T> {
    const bytes = Buffer.from(dn.ContainerCommandRequestProto.encode(request).finish());
    const command = dn.Type[request.cmdType] ?? String(request.cmdType);
    // Plain numbers: the in-place decoder's answers carry no enum types.
    const cmdType: number = request.cmdType;
    const success: number = dn.Result.SUCCESS;
    return this.#limiter.run(async () => {
      const raw =
        this.#pool && !UNPOOLED_COMMANDS.has(request.cmdType)
          ? await this.#pool.request(bytes, timeoutMs)
          : await this.#exchange(bytes, timeoutMs);
      const response = decode(raw, command);
      if (response.cmdType !== cmdType) {
        throw new OzoneProtocolError(
          this.address,
          `response for ${dn.Type[response.cmdType] ?? response.cmdType} answered ${command}`,
        );
      }
      if (response.result !== success) {
        throw new DatanodeResultError(
          this.address,
          command,
          dn.Result[response.result] ?? `unknown result ${response.result}`,
          response.message ?? '',
        );
      }
      return response;
    });
  }

  #exchange(bytes: Buffer, timeoutMs: number): Promise<Buffer> {
    return new Promise<Buffer>((resolve, reject) => {
      let settled = false;
      const call: ClientDuplexStream<Buffer, Buffer> = this.#client.makeBidiStreamRequest(
        DATANODE_SEND_PATH,
        rawBytes,
        rawBytes,
        new Metadata(),
        {
          deadline: Date.now() + timeoutMs,
        },
      );
      // The answer settles the call; the stream is left to end by itself (the datanode ends it
      // after our half-close, as Ozone's GrpcXceiverService does). Cancelling it here would reset
      // every finished stream: at thousands of reads per second that trips the server's HTTP/2
      // rapid-reset limit, which closes the whole session and fails every read in flight on it.
      call.on('data', (data: Buffer) => {
        if (settled) return;
        settled = true;
        resolve(data);
      });
      call.on('error', (err) => {
        if (settled) return;
        settled = true;
        reject(rpcError(this.address, err));
      });
      call.on('end', () => {
        if (settled) return;
        settled = true;
        reject(new OzoneProtocolError(this.address, 'the stream ended without a response'));
      });
      call.write(bytes);
      call.end();
    });
  }

  close(): void {
    this.#pool?.close();
    this.#connection?.close();
    this.#client.close();
  }
}
