// The Raft client contract against the embedded group of @fastpath/ratis-client/testing.
import { startEmbeddedRaftGroup } from '@fastpath/ratis-client/testing';
import { describeRaftContract } from './contract/raft-contract-suite.js';

describeRaftContract('embedded group', {
  start: () => startEmbeddedRaftGroup({ peers: 3, watchTimeoutMs: 1_000 }),
  caseTimeoutMs: 60_000,
});
