import { Client, Metadata } from '@grpc/grpc-js';
import type { OmCallIdentity, OmNodeTransport } from '../om/om-node-transport.js';
import { channelCredentials, channelOptions, type ClientTlsOptions } from './channel-options.js';
import { rpcError } from './grpc-errors.js';
import { rawBytes } from './raw-bytes.js';

export const OM_SUBMIT_REQUEST_PATH = '/hadoop.ozone.OzoneManagerService/submitRequest';
/** ClientVersion.CURRENT of the Java client (BUCKET_LAYOUT_SUPPORT); older values make the OM force LEGACY layouts. */
export const CLIENT_VERSION = 3;

export interface GrpcOmTransportOptions {
  /** `host:port` of the OM's gRPC service. */
  address: string;
  timeoutMs: number;
  /** The longest wait between connection attempts. */
  reconnectBackoffMs: number;
  maxMessageBytes: number;
  tls: ClientTlsOptions | undefined;
}

/**
 * One gRPC channel to one OM's `OzoneManagerService` (the transport Ozone's S3 gateway uses,
 * `GrpcOmTransport`). The call identity is not sent: the OM's gRPC server has no field for it.
 */
export class GrpcOmTransport implements OmNodeTransport {
  readonly #client: Client;
  constructor(readonly options: GrpcOmTransportOptions) {
    this.#client = new Client(
      options.address,
      channelCredentials(options.tls),
      channelOptions(options.maxMessageBytes, options.tls, options.reconnectBackoffMs),
    );
  }

  get address(): string {
    return this.options.address;
  }

  send(request: Uint8Array, _call: OmCallIdentity): Promise<Uint8Array> {
    return new Promise<Buffer>((resolve, reject) => {
      this.#client.makeUnaryRequest(
        OM_SUBMIT_REQUEST_PATH,
        rawBytes,
        rawBytes,
        Buffer.from(request.buffer, request.byteOffset, request.byteLength),
        new Metadata(),
        { deadline: Date.now() + this.options.timeoutMs },
        (err, value) => (err || !value ? reject(rpcError(this.options.address, err)) : resolve(value)),
      );
    });
  }

  close(): void {
    this.#client.close();
  }
}
