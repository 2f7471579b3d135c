// Which datanode the EC rows stop: one that holds the same data replica index in every block
// group of every file of the set, so that every read of the degraded row meets a lost data
// replica where it would meet one in any file. With one EC pipeline per config (the real
// cluster's `ecPipelineMinimum` 1; the embedded cluster puts every group on its first d + p
// datanodes) every datanode of the pipeline qualifies; the lowest data index is taken.
import { BenchmarkCheckError } from '../../harness/index.js';

/** One member of a block group's pipeline. */
export interface GroupMember {
  datanodeUuid: string;
  /** 1..d+p; 1..d hold data. */
  replicaIndex: number;
}

/** The datanode to stop and the data replica index it holds in every group. */
export interface DataReplicaHolder {
  datanodeUuid: string;
  replicaIndex: number;
}

/**
 * The datanode holding data replica index i (the lowest i that works) in every group of every file.
 *
 * @param files - Per file, per block group, the pipeline's members.
 * @throws BenchmarkCheckError when no datanode holds one data index everywhere (the files went to
 *   several pipelines: a cluster with more than one EC pipeline per config).
 */
export function commonDataReplica(
  files: readonly (readonly (readonly GroupMember[])[])[],
  dataUnits: number,
): DataReplicaHolder {
  const groups = files.flat();
  if (groups.length === 0) throw new BenchmarkCheckError('no EC block groups to choose a datanode from');
  for (let index = 1; index <= dataUnits; index++) {
    const holders = groups.map((g) => g.filter((m) => m.replicaIndex === index).map((m) => m.datanodeUuid));
    const first = holders[0]!;
    // The group's only holder of that index, the same datanode in every group.
    if (first.length === 1 && holders.every((h) => h.length === 1 && h[0] === first[0]))
      return { datanodeUuid: first[0]!, replicaIndex: index };
  }
  throw new BenchmarkCheckError(
    `no datanode holds the same data replica of every EC file (${groups.length} block groups): ` +
      'the files went to more than one EC pipeline (a real cluster needs ecPipelineMinimum 1)',
  );
}
