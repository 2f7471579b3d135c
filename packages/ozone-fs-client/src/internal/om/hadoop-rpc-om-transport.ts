import type { HadoopRpcClient } from '@fastpath/hadoop-rpc';
import type { OmCallIdentity, OmNodeTransport } from './om-node-transport.js';

/** `OzoneManagerProtocolPB`'s `@ProtocolInfo` (Ozone's `OzoneManagerProtocolPB.java`). */
export const OM_PROTOCOL_NAME = 'org.apache.hadoop.ozone.om.protocol.OzoneManagerProtocol';
export const OM_PROTOCOL_VERSION = 1;
/** `OzoneManagerService.submitRequest(OMRequest) returns (OMResponse)`. */
export const OM_SUBMIT_REQUEST_METHOD = 'submitRequest';

export interface HadoopRpcOmTransportOptions {
  /** `host:port` of the OM's Hadoop RPC server (`ozone.om.address…`, port 9862 by default). */
  address: string;
  /** The client every node shares: one connection per OM, one 16-byte client id for all of them. */
  rpc: HadoopRpcClient;
  timeoutMs: number;
}

/**
 * One OM node over Hadoop RPC, as Ozone's own client reaches it (`Hadoop3OmTransport`). The call
 * identity goes into the request header: the same client id and call id on every re-send let the
 * OM's retry cache answer a write it already applied instead of applying it again. The user is the
 * connection's (the OM takes it from there, not from `OMRequest.userInfo`).
 */
export class HadoopRpcOmTransport implements OmNodeTransport {
  constructor(readonly options: HadoopRpcOmTransportOptions) {}

  get address(): string {
    return this.options.address;
  }

  send(request: Uint8Array, call: OmCallIdentity): Promise<Uint8Array> {
    return this.options.rpc.call({
      address: this.options.address,
      protocol: OM_PROTOCOL_NAME,
      protocolVersion: OM_PROTOCOL_VERSION,
      method: OM_SUBMIT_REQUEST_METHOD,
      request,
      callId: call.callId,
      retryCount: call.retryCount,
      timeoutMs: this.options.timeoutMs,
    });
  }

  /** The shared client is closed by its owner once, after every node. */
  close(): void {}
}
