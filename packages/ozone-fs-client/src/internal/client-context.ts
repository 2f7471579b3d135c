import type { OzoneClientConfig } from '../ozone-client-config.js';
import type { DatanodeClientManager } from './grpc/datanode-client-manager.js';
import type { OmTransport } from './grpc/om-transport.js';

/** What the streams of one client share: its configuration, its OM transport and its datanode channels. */
export interface ClientContext {
  readonly config: Readonly<OzoneClientConfig>;
  readonly om: OmTransport;
  readonly datanodes: DatanodeClientManager;
}
