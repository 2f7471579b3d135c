// The Raft client contract against the embedded group of @fastpath/ratis-client/testing.
import { startEmbeddedRaftGroup } from '@fastpath/ratis-client/testing';
import { RAFT_GRPC_TRANSPORTS } from '@fastpath/ratis-client';
import { describeRaftContract } from './contract/raft-contract-suite.js';

describeRaftContract('embedded group', {
  start: () => startEmbeddedRaftGroup({ peers: 3, watchTimeoutMs: 1_000 }),
  caseTimeoutMs: 60_000,
  transports: RAFT_GRPC_TRANSPORTS,
});
