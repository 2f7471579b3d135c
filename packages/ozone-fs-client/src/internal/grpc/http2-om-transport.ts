// The OM's gRPC service (`OzoneManagerService/submitRequest`, unary) over fastpath's own HTTP/2
// session, the one its datanode reads use: a call is one stream with one message each way, framed
// here, with no grpc-js channel, interceptor chain, metadata object or call object per request.
// On the ozone-meta benchmark the gRPC transport cost 3-3.8 times Ozone's Java client's CPU per OM
// call, most of it in grpc-js's per-call machinery; Hadoop RPC, with its own framing, cost less
// than Java's. `ozone.client.om.grpc.channel=grpc-js` keeps grpc-js (GrpcOmTransport).
import type { OmCallIdentity, OmNodeTransport } from '../om/om-node-transport.js';
import type { ClientTlsOptions } from './channel-options.js';
import { rpcError } from './grpc-errors.js';
import type { UnaryConnection } from './datanode-call.js';
import { Http2DatanodeConnection } from './http2-datanode-connection.js';
import { SocketDatanodeConnection } from './socket-datanode-connection.js';
import { OM_SUBMIT_REQUEST_PATH } from './om-transport.js';

export interface Http2OmTransportOptions {
  /** `host:port` of the OM's gRPC service. */
  address: string;
  timeoutMs: number;
  maxMessageBytes: number;
  tls: ClientTlsOptions | undefined;
  /** Whose HTTP/2 session: Node's `http2` (`http2`, the default) or `@fastpath/grpc-http2`'s on a socket (`socket`). */
  session?: 'http2' | 'socket';
}

/** OM answers are small: default HTTP/2 frames, windows of a few answers. */
const OM_FRAME_BYTES = 16 * 1024;
const OM_WINDOW_BYTES = 4 * 1024 * 1024;

export class Http2OmTransport implements OmNodeTransport {
  readonly #connection: UnaryConnection;

  constructor(readonly options: Http2OmTransportOptions) {
    const session = {
      maxReceiveBytes: options.maxMessageBytes,
      maxFrameBytes: OM_FRAME_BYTES,
      streamWindowBytes: OM_WINDOW_BYTES,
      connectionWindowBytes: OM_WINDOW_BYTES,
      tls: options.tls,
      path: OM_SUBMIT_REQUEST_PATH,
      peer: 'the OM',
    };
    this.#connection =
      options.session === 'socket'
        ? new SocketDatanodeConnection(options.address, session)
        : new Http2DatanodeConnection(options.address, session);
  }

  get address(): string {
    return this.options.address;
  }

  /** One unary call: the request, then the one answer once the OM's status says OK. */
  send(request: Uint8Array, _call: OmCallIdentity): Promise<Uint8Array> {
    const bytes = Buffer.from(request.buffer, request.byteOffset, request.byteLength);
    return this.#connection.unary(bytes, this.options.timeoutMs).catch(this.#rethrow);
  }

  readonly #rethrow = (err: unknown): never => {
    throw rpcError(this.options.address, err);
  };

  close(): void {
    this.#connection.close();
  }
}
