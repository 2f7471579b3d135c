import { describe, expect, it } from '@jest/globals';
import { BenchmarkCheckError } from '../../harness/index.js';
import { commonDataReplica, type GroupMember } from './ec-data-replica.js';

const group = (...uuids: string[]): GroupMember[] =>
  uuids.map((datanodeUuid, i) => ({ datanodeUuid, replicaIndex: i + 1 }));

describe('the EC rows pick the datanode to stop', () => {
  it('one pipeline for every file: the datanode of replica index 1', () => {
    const files = [[group('a', 'b', 'c', 'd', 'e')], [group('a', 'b', 'c', 'd', 'e')]];
    expect(commonDataReplica(files, 3)).toEqual({ datanodeUuid: 'a', replicaIndex: 1 });
  });

  it('takes the lowest data index held by one datanode everywhere, in any member order', () => {
    const shuffled: GroupMember[] = [
      { datanodeUuid: 'e', replicaIndex: 5 },
      { datanodeUuid: 'b', replicaIndex: 2 },
      { datanodeUuid: 'x', replicaIndex: 1 },
      { datanodeUuid: 'c', replicaIndex: 3 },
      { datanodeUuid: 'd', replicaIndex: 4 },
    ];
    expect(commonDataReplica([[group('a', 'b', 'c', 'd', 'e')], [shuffled]], 3)).toEqual({
      datanodeUuid: 'b',
      replicaIndex: 2,
    });
  });

  it('refuses when the files went to pipelines that share no data replica (d and e hold parity in both)', () => {
    const files = [[group('a', 'b', 'c', 'd', 'e')], [group('f', 'g', 'h', 'd', 'e')]];
    expect(() => commonDataReplica(files, 3)).toThrow(BenchmarkCheckError);
    expect(() => commonDataReplica(files, 3)).toThrow(/ecPipelineMinimum 1/);
    expect(() => commonDataReplica([], 3)).toThrow(/no EC block groups/);
  });

  it('a spare node listed for an index makes it no single holder', () => {
    const spare = [...group('a', 'b', 'c', 'd', 'e'), { datanodeUuid: 'z', replicaIndex: 1 }];
    expect(commonDataReplica([[spare]], 3)).toEqual({ datanodeUuid: 'b', replicaIndex: 2 });
  });
});
