import { randomUUID } from 'node:crypto';
import { Client, Metadata } from '@grpc/grpc-js';
import { OmStatusError, OzoneProtocolError } from '../../ozone-errors.js';
import { has, om, type hadoop } from '../proto/wire.js';
import { channelCredentials, channelOptions, type ClientTlsOptions } from './channel-options.js';
import { rpcError } from './grpc-errors.js';
import { rawBytes } from './raw-bytes.js';

export const OM_SUBMIT_REQUEST_PATH = '/hadoop.ozone.OzoneManagerService/submitRequest';
/** ClientVersion.CURRENT of the Java client (BUCKET_LAYOUT_SUPPORT); older values make the OM force LEGACY layouts. */
export const CLIENT_VERSION = 3;

export interface OmTransportOptions {
  address: string;
  userName: string;
  timeoutMs: number;
  /** The longest wait between connection attempts. */
  reconnectBackoffMs: number;
  maxMessageBytes: number;
  tls: ClientTlsOptions | undefined;
}

type OmBody = Omit<
  hadoop.ozone.IOMRequest,
  'cmdType' | 'clientId' | 'userInfo' | 'version' | 'traceID' | 'layoutVersion'
>;

/** One gRPC channel to the OM and the OMRequest envelope Java puts around every call. */
export class OmTransport {
  readonly clientId = randomUUID();
  readonly #client: Client;
  constructor(readonly options: OmTransportOptions) {
    this.#client = new Client(
      options.address,
      channelCredentials(options.tls),
      channelOptions(options.maxMessageBytes, options.tls, options.reconnectBackoffMs),
    );
  }

  /** Builds the request envelope (exported for the golden-byte tests). */
  envelope(cmdType: keyof typeof om.Type, body: OmBody): hadoop.ozone.IOMRequest {
    return {
      cmdType: om.Type[cmdType],
      clientId: this.clientId,
      userInfo: { userName: this.options.userName },
      version: CLIENT_VERSION,
      ...body,
    };
  }

  /** Sends one OMRequest; resolves with the OMResponse when its status is OK, else throws an OmStatusError. */
  async submit(cmdType: keyof typeof om.Type, body: OmBody): Promise<hadoop.ozone.OMResponse> {
    const request = Buffer.from(om.OMRequest.encode(this.envelope(cmdType, body)).finish());
    const raw = await new Promise<Buffer>((resolve, reject) => {
      this.#client.makeUnaryRequest(
        OM_SUBMIT_REQUEST_PATH,
        rawBytes,
        rawBytes,
        request,
        new Metadata(),
        { deadline: Date.now() + this.options.timeoutMs },
        (err, value) => (err || !value ? reject(rpcError(this.options.address, err)) : resolve(value)),
      );
    });
    let response: hadoop.ozone.OMResponse;
    try {
      response = om.OMResponse.decode(raw);
    } catch (cause) {
      throw new OzoneProtocolError(
        this.options.address,
        `undecodable OMResponse to ${cmdType}: ${(cause as Error).message}`,
        cause,
      );
    }
    if (response.cmdType !== om.Type[cmdType]) {
      throw new OzoneProtocolError(
        this.options.address,
        `OMResponse for ${om.Type[response.cmdType] ?? response.cmdType} answered ${cmdType}`,
      );
    }
    if (response.status !== om.Status.OK) {
      throw new OmStatusError(
        cmdType,
        om.Status[response.status] ?? `status ${response.status}`,
        has(response, 'message') ? response.message : '',
      );
    }
    return response;
  }

  close(): void {
    this.#client.close();
  }
}
