// The state machine of one embedded pipeline's Raft group: what Ozone's ContainerStateMachine
// does with a committed entry, cut down to the mini cluster. Each entry is a container command
// (the container-command message); applying it runs the command on every member's replica, and
// a PutBlock stores the entry's log index as the block's BCSID, as a real datanode does. With
// streaming on, each member writes a stream's packets to the block file the StreamInit header
// names (ContainerStateMachine.stream); the forwarded entry that links the stream changes nothing
// more here (the block's metadata comes with the PutBlock through the log).
import type { RaftStateMachine, RaftStreamContext, RaftStreamSink } from '@fastpath/ratis-client/testing';
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

  stream(content: Buffer, context: RaftStreamContext): RaftStreamSink {
    const request = decodeContainerCommandMessage(content, `pipeline ${this.#groupId}`);
    const member = this.#members().find((m) => m.uuid === context.peerId);
    if (!member?.running)
      throw new Error(`datanode ${context.peerId} is not a running member of ${this.#groupId}`);
    const block = member.openBlockStream(request);
    return {
      write: (data) => block.write(data),
      close: () => block.close(),
      cleanUp: () => block.cleanUp(),
    };
  }

  link(content: Buffer): Buffer {
    const request = decodeContainerCommandMessage(content, `pipeline ${this.#groupId}`);
    return Buffer.from(
      dn.ContainerCommandResponseProto.encode({
        cmdType: request.cmdType,
        result: dn.Result.SUCCESS,
      }).finish(),
    );
  }

  query(): Buffer {
    // Ozone reads over the standalone port, never through Ratis.
    throw new Error('the mini cluster answers no read-only queries through Ratis');
  }
}
