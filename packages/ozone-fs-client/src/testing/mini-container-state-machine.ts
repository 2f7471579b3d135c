// The state machine of one embedded pipeline's Raft group: what Ozone's ContainerStateMachine
// does with a committed entry, cut down to the mini cluster. Each entry is a container command
// (the container-command message); applying it runs the command on every member's replica, and
// a PutBlock stores the entry's log index as the block's BCSID, as a real datanode does.
import type { RaftStateMachine } from '@fastpath/ratis-client/testing';
import { decodeContainerCommandMessage } from '../internal/ratis/container-command-message.js';
import { dn, uint64, type hadoop } from '../internal/proto/wire.js';
import type { MiniDatanode } from './mini-datanode.js';

/** A container command applied to every running member of a pipeline. */
export class MiniContainerStateMachine implements RaftStateMachine {
  readonly #members: () => readonly MiniDatanode[];
  readonly #groupId: string;

  /**
   * @param members the pipeline's datanodes, in pipeline order (asked at each entry: a stopped
   *   one misses the entries of its downtime, as a lagging follower would until it catches up).
   */
  constructor(groupId: string, members: () => readonly MiniDatanode[]) {
    this.#groupId = groupId;
    this.#members = members;
  }

  async apply(content: Buffer, index: number): Promise<Buffer> {
    const request = decodeContainerCommandMessage(content, `pipeline ${this.#groupId}`);
    if (request.putBlock?.blockData?.blockID)
      request.putBlock.blockData.blockID.blockCommitSequenceId = uint64(index);
    let answer: hadoop.hdds.datanode.IContainerCommandResponseProto | undefined;
    for (const member of this.#members()) {
      if (!member.running) continue;
      const response = await member.applyCommitted({ ...request, datanodeUuid: member.uuid });
      // The leader's answer is the one the client gets; the first member that ran is it here.
      answer ??= response;
    }
    answer ??= {
      cmdType: request.cmdType,
      result: dn.Result.CONTAINER_INTERNAL_ERROR,
      message: `no member of pipeline ${this.#groupId} is running`,
    };
    return Buffer.from(dn.ContainerCommandResponseProto.encode(answer).finish());
  }

  query(): Buffer {
    // Ozone reads over the standalone port, never through Ratis.
    throw new Error('the mini cluster answers no read-only queries through Ratis');
  }
}
