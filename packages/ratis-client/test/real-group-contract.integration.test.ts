// The Raft client contract against a real Apache Ratis 3.2.1 group: three peers, one JVM each,
// from the ratis fixture (tools/ratis), with the same append-only log state machine as the
// embedded group. The server's watch timeout is shortened so that a watch at ALL_COMMITTED with a
// paused follower is answered NotReplicated within the case.
import { startRatisGroup } from '@fastpath/ratis-fixture';
import { RAFT_GRPC_TRANSPORTS } from '@fastpath/ratis-client';
import { describeRaftContract } from './contract/raft-contract-suite.js';

describeRaftContract('a real Apache Ratis 3.2.1 group', {
  start: async () => {
    const group = await startRatisGroup({ properties: { 'raft.server.watch.timeout': '3s' } });
    return {
      groupId: group.groupId,
      peers: group.peers,
      leaderId: () => group.leaderId(),
      stopPeer: (id) => group.stopPeer(id),
      restartPeer: (id) => group.restartPeer(id),
      pausePeer: (id) => group.pausePeer(id),
      resumePeer: (id) => group.resumePeer(id),
      transferLeadership: (id) => group.transferLeadership(id),
      close: () => group.stop(),
    };
  },
  caseTimeoutMs: 120_000,
  transports: RAFT_GRPC_TRANSPORTS,
});
