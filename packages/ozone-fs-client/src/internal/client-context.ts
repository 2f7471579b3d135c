import type { ChunkBufferPool } from './chunk-buffer-pool.js';
import type { OmClient } from './om/om-client.js';
import type { RaftClientPool } from './ratis/raft-client-pool.js';
import type { ReadContext } from './read-context.js';

/** What the streams of one client share: its read context, its OM client and its Ratis clients. */
export interface ClientContext extends ReadContext {
  readonly om: OmClient;
  /** One Ratis client per pipeline, for writes to pipelines whose datanodes serve Ratis. */
  readonly raft: RaftClientPool;
  /** The chunk-sized buffers its key output streams copy written bytes into, used again once acknowledged. */
  readonly chunkBuffers: ChunkBufferPool;
}
