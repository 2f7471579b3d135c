// The Ratis side of the mini cluster's datanodes: a Raft group per pipeline (an embedded group of
// @fastpath/ratis-client/testing whose state machine applies each committed container command to
// every member's replica, log indexes as BCSIDs), and on each datanode a RATIS port of its own that
// serves every group it is a member of.
import { createHash } from 'node:crypto';
import type { ServerCredentials } from '@grpc/grpc-js';
import { startEmbeddedRaftGroup, type EmbeddedRaftGroup } from '@fastpath/ratis-client/testing';
import { MiniContainerStateMachine } from './mini-container-state-machine.js';
import type { MiniDatanode } from './mini-datanode.js';
import { MiniRatisPort } from './mini-ratis-port.js';

/**
 * The id of the pipeline of these members: a UUID derived from their UUIDs, so that a cluster
 * started again on the same directory names the same pipelines.
 */
export function miniPipelineId(memberUuids: readonly string[]): string {
  const h = createHash('sha256')
    .update(`pipeline:${memberUuids.join(',')}`)
    .digest();
  h[6] = ((h[6] as number) & 0x0f) | 0x40;
  h[8] = ((h[8] as number) & 0x3f) | 0x80;
  const hex = h.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

interface Pipeline {
  id: string;
  members: readonly MiniDatanode[];
  group: EmbeddedRaftGroup;
}

/** Every pipeline's Raft group and every datanode's RATIS port. */
export class MiniRatisPipelines {
  readonly #pipelines: Pipeline[];
  readonly #ports: Map<string, MiniRatisPort>;

  private constructor(pipelines: Pipeline[], ports: Map<string, MiniRatisPort>) {
    this.#pipelines = pipelines;
    this.#ports = ports;
  }

  /**
   * Starts the groups of the pipelines the mini OM places blocks on (RATIS/THREE on the first
   * three datanodes, RATIS/ONE on the first; one when they are the same) and each datanode's
   * RATIS port. The first member of each group leads. `credentials`: what the RATIS ports serve
   * with (the datanodes' TLS when the cluster serves TLS, as a datanode's Ratis port does with
   * `hdds.grpc.tls.enabled`); default plaintext.
   */
  static async start(
    datanodes: readonly MiniDatanode[],
    options: { watchTimeoutMs?: number; credentials?: ServerCredentials; dataStream?: boolean } = {},
  ): Promise<MiniRatisPipelines> {
    const memberSets = [datanodes.slice(0, 3), datanodes.slice(0, 1)];
    const pipelines: Pipeline[] = [];
    const ports = new Map<string, MiniRatisPort>();
    const started = new MiniRatisPipelines(pipelines, ports);
    try {
      for (const members of memberSets) {
        const id = miniPipelineId(members.map((d) => d.uuid));
        if (pipelines.some((p) => p.id === id)) continue;
        const group = await startEmbeddedRaftGroup({
          groupId: id,
          peerIds: members.map((d) => d.uuid),
          stateMachine: new MiniContainerStateMachine(id, () => members),
          ...(options.watchTimeoutMs !== undefined ? { watchTimeoutMs: options.watchTimeoutMs } : {}),
          ...(options.dataStream ? { dataStream: true } : {}),
        });
        pipelines.push({ id, members, group });
      }
      for (const d of datanodes) {
        const port = new MiniRatisPort(
          (groupHex) => started.#memberAddress(groupHex, d.uuid),
          options.credentials,
        );
        ports.set(d.uuid, port);
        await port.start(0);
      }
      return started;
    } catch (err) {
      await started.close();
      throw err;
    }
  }

  /** The RATIS port of a datanode (0 when it has none). */
  ratisPort(uuid: string): number {
    return this.#ports.get(uuid)?.port ?? 0;
  }

  /** The DataStream port of a datanode's member in a pipeline (undefined when the groups do not stream). */
  dataStreamPort(pipelineId: string, uuid: string): number | undefined {
    const address = this.group(pipelineId)?.peers.find((p) => p.id === uuid)?.dataStreamAddress;
    return address ? Number(address.slice(address.lastIndexOf(':') + 1)) : undefined;
  }

  /** The Raft group of the pipeline with this id, for fault hooks (NotLeader, a stopped leader, lost replies). */
  group(pipelineId: string): EmbeddedRaftGroup | undefined {
    return this.#pipelines.find((p) => p.id === pipelineId)?.group;
  }

  /** A datanode stopped (or killed): its RATIS port refuses connections and its members leave their groups. */
  async stopDatanode(uuid: string): Promise<void> {
    this.#ports.get(uuid)?.stop();
    for (const p of this.#of(uuid)) await p.group.stopPeer(uuid);
  }

  /** A datanode started again: its members rejoin (and catch up), its RATIS port serves on its old port. */
  async restartDatanode(uuid: string): Promise<void> {
    for (const p of this.#of(uuid)) await p.group.restartPeer(uuid);
    await this.#ports.get(uuid)?.start();
  }

  /** Stops every datanode's RATIS port and closes every pipeline's Raft group. */
  async close(): Promise<void> {
    for (const port of this.#ports.values()) port.stop();
    await Promise.all(this.#pipelines.map((p) => p.group.close()));
  }

  #of(uuid: string): Pipeline[] {
    return this.#pipelines.filter((p) => p.members.some((d) => d.uuid === uuid));
  }

  #memberAddress(groupHex: string, uuid: string): string | undefined {
    const pipeline = this.#pipelines.find((p) => p.id.replaceAll('-', '') === groupHex);
    return pipeline?.group.peers.find((peer) => peer.id === uuid)?.address;
  }
}
