// One Ratis client per pipeline, shared by every key a client writes there (as Java's
// XceiverClientManager caches an XceiverClientRatis per pipeline): its ordered stream, retry
// cache entries and leader knowledge outlive a single block.
import type { MetricsRegistry } from '@fastpath/core';
import {
  createRaftClient,
  type RaftClient,
  type RaftClientTlsOptions,
  type RaftGrpcTransport,
} from '@fastpath/ratis-client';
import type { OzoneClientConfig } from '../../ozone-client-config.js';
import { type ClientTlsOptions, tlsCa } from '../grpc/channel-options.js';
import type { PipelineRaftGroup } from './pipeline-raft-group.js';

/** A pipeline a client has written to, as its Raft client knows it. */
export interface WritePipeline {
  /** The pipeline's UUID (its Raft group id). */
  pipelineId: string;
  /** The members' datanode UUIDs (the group's peer ids). */
  memberIds: string[];
  /**
   * The member the client sends writes to now: the leader as the client last learned it (the one
   * the pipeline named until a reply or a NotLeader redirect said otherwise).
   */
  leaderId: string;
  /** The HTTP/2 session its Ratis streams take (`ozone.client.ratis.grpc.channel`). */
  session: RaftGrpcTransport;
}

export class RaftClientPool {
  readonly #clients = new Map<string, RaftClient>();
  readonly #config: Readonly<OzoneClientConfig>;
  readonly #tls: ClientTlsOptions | undefined;
  readonly #metrics: MetricsRegistry | undefined;
  #closed = false;

  /**
   * `tls`: the datanode channels' TLS settings, read when the first client is made (a CA asked of
   * the OM is there by then): a datanode's Ratis port serves TLS exactly when its gRPC port does.
   * `metrics`: where every Ratis client records (each labelled with its pipeline); default: a
   * registry each.
   */
  constructor(config: Readonly<OzoneClientConfig>, tls?: ClientTlsOptions, metrics?: MetricsRegistry) {
    this.#config = config;
    this.#tls = tls;
    this.#metrics = metrics;
  }

  #raftTls(): { tls?: RaftClientTlsOptions } {
    const tls = this.#tls;
    if (tls === undefined) return {};
    return {
      tls: {
        ca: tlsCa(tls),
        ...(tls.serverNameOverride === undefined ? {} : { serverNameOverride: tls.serverNameOverride }),
      },
    };
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
      transport: this.#config.ratisGrpcChannel,
      name: `ozone-pipeline-${group.groupId}`,
      ...(this.#metrics ? { metrics: this.#metrics } : {}),
      ...this.#raftTls(),
    });
    if (!this.#closed) this.#clients.set(group.groupId, client);
    return client;
  }

  /** Every pipeline with a client now, with the member that client sends to. */
  pipelines(): WritePipeline[] {
    return [...this.#clients.values()].map((c) => ({
      pipelineId: c.groupId,
      memberIds: c.peers.map((p) => p.id),
      leaderId: c.leaderId,
      session: c.transport,
    }));
  }

  /** Closes every client: what is still pending fails with `ERR_RATIS_CLIENT_CLOSED`. */
  async close(): Promise<void> {
    this.#closed = true;
    const all = [...this.#clients.values()];
    this.#clients.clear();
    await Promise.all(all.map((c) => c.close()));
  }
}

type Peer = { id: string; address: string; dataStreamAddress?: string };

function samePeers(a: readonly Peer[], b: readonly Peer[]): boolean {
  return (
    a.length === b.length &&
    a.every(
      (p, i) =>
        p.id === b[i]?.id && p.address === b[i]?.address && p.dataStreamAddress === b[i]?.dataStreamAddress,
    )
  );
}
