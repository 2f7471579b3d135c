/**
 * `@fastpath/ratis-client`: the one front door. Everything public is re-exported here by name.
 *
 * @module @fastpath/ratis-client
 */
export {
  createRaftClient,
  RaftClient,
  type RaftReadOptions,
  type RaftReply,
  type RaftWatchOptions,
  type RaftWatchReply,
  type RaftWriteOptions,
} from './raft-client.js';
export type {
  RaftDataStream,
  RaftDataStreamReply,
  RaftDataStreamWriteOptions,
  RaftStreamOptions,
} from './raft-data-stream.js';
export {
  DEFAULT_RAFT_CLIENT_OPTIONS,
  RAFT_GRPC_TRANSPORTS,
  type RaftClientOptions,
  type RaftGrpcTransport,
  type RaftClientTlsOptions,
  type RaftPeer,
  type ReplicationLevel,
} from './raft-client-options.js';
export {
  type CommitInfo,
  RaftClientClosedError,
  RaftDataStreamError,
  RaftInvalidArgumentError,
  RaftNotReplicatedError,
  RaftProtocolError,
  RaftServerError,
  RaftStateMachineError,
  RaftTimeoutError,
  RaftTlsError,
  type RemoteExceptionDetails,
} from './raft-client-errors.js';
export { bytesToUuid, randomClientId, uuidToBytes } from './raft-ids.js';
