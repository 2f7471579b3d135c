/**
 * `@fastpath/ozone-fs-client/testing/contract`: the shared suites (they register jest tests) — the
 * client contract, the file system's reads, the datanode streams and the writes — and the embedded
 * mini cluster's adapter. Another cluster (Ozone's own MiniOzoneCluster) runs the same suites
 * through its own OzoneClusterAdapter.
 *
 * @module @fastpath/ozone-fs-client/testing/contract
 */
export { contractKeyBytes } from './contract-key-bytes.js';
export { describeOzoneContract } from './ozone-contract-suite.js';
export { describeFileSystemReads } from './file-system-read-suite.js';
export { describeDatanodeStreams } from './datanode-stream-suite.js';
export { describeReadBlockReads } from './read-block-suite.js';
export { describeOzoneWrites } from './ozone-write-suite.js';
export { describeEcReads } from './ec-read-suite.js';
export { edgeRanges } from './edge-ranges.js';
export {
  contractKeySha256,
  expectWrittenKey,
  type WrittenKey,
  type WrittenKeyChecks,
} from './expect-written-key.js';
export {
  standaloneGetBlock,
  type ReplicaBlock,
  type StandaloneGetBlockOptions,
} from './standalone-get-block.js';
export {
  withBulkEngine,
  withDataStreamWrites,
  withDatanodeTransport,
  withRatisChannel,
} from './ozone-cluster-adapter.js';
export { runScriptUntilExit } from './run-script-until-exit.js';
export type {
  ClusterKeyRecord,
  ContractBlockReplicaRef,
  ContractKeySpec,
  EcContractKeySpec,
  ContractReplicaRef,
  JavaKeyReadResult,
  OzoneClusterAdapter,
  OzoneContractCapabilities,
  ReadChunkCounters,
} from './ozone-cluster-adapter.js';
export { MINI_CLUSTER_CAPABILITIES, miniClusterAdapter, omTransportClass } from './mini-cluster-adapter.js';
