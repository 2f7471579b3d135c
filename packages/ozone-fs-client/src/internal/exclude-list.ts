// What a key's AllocateBlock asks the OM (and SCM) to keep away from after failed writes: Ozone's
// ExcludeList, sent as hdds ExcludeListProto (datanode UUIDs, container ids, pipeline ids).
import { uuidBits } from './ratis/pipeline-raft-group.js';
import { int64, type hadoop } from './proto/wire.js';

/** The containers, pipelines and datanodes one key's writes failed on. */
export class ExcludeList {
  readonly containerIds = new Set<bigint>();
  /** Pipeline UUIDs. */
  readonly pipelineIds = new Set<string>();
  /** Datanode UUIDs. */
  readonly datanodes = new Set<string>();

  get isEmpty(): boolean {
    return this.containerIds.size + this.pipelineIds.size + this.datanodes.size === 0;
  }

  /** The `excludeList` field of an AllocateBlock, or nothing when there is nothing to exclude. */
  toRequestField(): { excludeList?: hadoop.hdds.IExcludeListProto } {
    if (this.isEmpty) return {};
    return {
      excludeList: {
        datanodes: [...this.datanodes],
        containerIds: [...this.containerIds].map(int64),
        pipelineIds: [...this.pipelineIds].map((id) => ({ id, uuid128: uuidBits(id) })),
      },
    };
  }
}
