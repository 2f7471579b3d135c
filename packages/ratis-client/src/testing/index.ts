/**
 * `@fastpath/ratis-client/testing`: an embedded Raft group speaking Ratis's client protocol (and its DataStream protocol), for tests.
 *
 * @module @fastpath/ratis-client/testing
 */
export {
  EmbeddedRaftGroup,
  type EmbeddedPeerInfo,
  type EmbeddedRaftGroupOptions,
  RaftTestServerError,
  startEmbeddedRaftGroup,
} from './embedded-raft-group.js';
export type { RaftStateMachine, RaftStreamContext, RaftStreamSink } from './raft-state-machine.js';
export type { EmbeddedDataStreamPacket } from './embedded-data-stream-server.js';
export {
  AppendLogStateMachine,
  decodeAppendReply,
  decodeLogStatus,
  encodeLogRead,
} from './append-log-state-machine.js';
export { RAFT_CLIENT_PROTOCOL_SERVICE } from '../internal/proto/grpc-methods.js';
