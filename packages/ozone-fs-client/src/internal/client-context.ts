import type { OzoneClientConfig } from '../ozone-client-config.js';
import type { DatanodeClientManager } from './grpc/datanode-client-manager.js';
import type { OmTransport } from './grpc/om-transport.js';
import type { RaftClientPool } from './ratis/raft-client-pool.js';
import type { ShortCircuitReads } from './short-circuit/short-circuit-reads.js';

/** What the streams of one client share: its configuration, its OM transport, its datanode channels and, when on, its short-circuit reads. */
export interface ClientContext {
  readonly config: Readonly<OzoneClientConfig>;
  readonly om: OmTransport;
  readonly datanodes: DatanodeClientManager;
  /** One Ratis client per pipeline, for writes to pipelines whose datanodes serve Ratis. */
  readonly raft: RaftClientPool;
  /** Present when `ozone.client.read.short-circuit` is on. */
  readonly shortCircuit: ShortCircuitReads | undefined;
}
