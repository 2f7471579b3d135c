import { Client, Metadata, type ChannelCredentials, type ClientDuplexStream } from '@grpc/grpc-js';
import { DatanodeResultError, OzoneProtocolError } from '../../ozone-errors.js';
import { dn, type hadoop } from '../proto/wire.js';
import { channelCredentials, channelOptions, type ClientTlsOptions } from './channel-options.js';
import { rpcError } from './grpc-errors.js';
import { rawBytes } from './raw-bytes.js';
import { InFlightLimiter } from './in-flight-limiter.js';

export const DATANODE_SEND_PATH = '/hadoop.hdds.datanode.XceiverClientProtocolService/send';

export interface DatanodeChannelOptions {
  maxReceiveBytes: number;
  maxInFlight: number;
  tls: ClientTlsOptions | undefined;
  /** The longest wait between connection attempts (datanodeReconnectBackoffMs). */
  reconnectBackoffMs: number;
  /** Credentials built ahead (by the warm-up) from `tls`; without them the channel builds its own. */
  credentials?: ChannelCredentials | undefined;
}

/**
 * One gRPC channel to one datanode. Each command opens its own bidi `send` stream, writes one
 * request, half-closes and waits for one response, as XceiverClientGrpc#sendCommandAsync does.
 */
export class DatanodeChannel {
  readonly #client: Client;
  readonly #limiter: InFlightLimiter;
  constructor(
    readonly address: string,
    options: DatanodeChannelOptions,
  ) {
    this.#client = new Client(
      address,
      options.credentials ?? channelCredentials(options.tls),
      channelOptions(options.maxReceiveBytes, options.tls, options.reconnectBackoffMs),
    );
    this.#limiter = new InFlightLimiter(options.maxInFlight);
  }

  get inFlight(): number {
    return this.#limiter.active;
  }

  /** Sends one command; resolves with its response when `result` is SUCCESS. */
  send(
    request: hadoop.hdds.datanode.IContainerCommandRequestProto,
    timeoutMs: number,
  ): Promise<hadoop.hdds.datanode.ContainerCommandResponseProto> {
    const bytes = Buffer.from(dn.ContainerCommandRequestProto.encode(request).finish());
    const command = dn.Type[request.cmdType] ?? String(request.cmdType);
    return this.#limiter.run(async () => {
      const raw = await this.#exchange(bytes, timeoutMs);
      let response: hadoop.hdds.datanode.ContainerCommandResponseProto;
      try {
        response = dn.ContainerCommandResponseProto.decode(raw);
      } catch (cause) {
        throw new OzoneProtocolError(
          this.address,
          `undecodable response to ${command}: ${(cause as Error).message}`,
          cause,
        );
      }
      if (response.cmdType !== request.cmdType) {
        throw new OzoneProtocolError(
          this.address,
          `response for ${dn.Type[response.cmdType] ?? response.cmdType} answered ${command}`,
        );
      }
      if (response.result !== dn.Result.SUCCESS) {
        throw new DatanodeResultError(
          this.address,
          command,
          dn.Result[response.result] ?? `unknown result ${response.result}`,
          response.message,
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
    this.#client.close();
  }
}
