// One Ratis client per pipeline, shared by every key a client writes there (as Java's
// XceiverClientManager caches an XceiverClientRatis per pipeline): its ordered stream, retry
// cache entries and leader knowledge outlive a single block.
import { createRaftClient, type RaftClient } from '@fastpath/ratis-client';
import type { OzoneClientConfig } from '../../ozone-client-config.js';
import type { PipelineRaftGroup } from './pipeline-raft-group.js';

export class RaftClientPool {
  readonly #clients = new Map<string, RaftClient>();
  readonly #config: Readonly<OzoneClientConfig>;
  #closed = false;

  constructor(config: Readonly<OzoneClientConfig>) {
    this.#config = config;
  }

  /**
   * The client of `group`'s pipeline. A pipeline whose members changed (the OM answered with
   * other addresses) gets a new client; the old one is closed once its requests are done.
   */
  client(group: PipelineRaftGroup): RaftClient {
    const known = this.#clients.get(group.groupId);
    if (known && samePeers(known.peers, group.peers)) return known;
    if (known) void known.close();
    const client = createRaftClient({
      groupId: group.groupId,
      peers: group.peers,
      leaderId: group.leaderId,
      maxOutstandingRequests: this.#config.maxOutstandingRequests,
      name: `ozone-pipeline-${group.groupId}`,
    });
    if (!this.#closed) this.#clients.set(group.groupId, client);
    return client;
  }

  /** Closes every client: what is still pending fails with `ERR_RATIS_CLIENT_CLOSED`. */
  async close(): Promise<void> {
    this.#closed = true;
    const all = [...this.#clients.values()];
    this.#clients.clear();
    await Promise.all(all.map((c) => c.close()));
  }
}

function samePeers(
  a: readonly { id: string; address: string }[],
  b: readonly { id: string; address: string }[],
): boolean {
  return a.length === b.length && a.every((p, i) => p.id === b[i]?.id && p.address === b[i]?.address);
}
