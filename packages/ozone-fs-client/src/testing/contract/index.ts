// @fastpath/ozone-fs-client/testing/contract: the client contract suite (registers jest tests)
// and the embedded mini cluster's adapter. Another cluster (Ozone's own MiniOzoneCluster) runs
// the same suite through its own OzoneClusterAdapter.
export {
  contractKeyBytes,
  describeOzoneContract,
  type ContractKeySpec,
  type ContractReplicaRef,
  type OzoneClusterAdapter,
  type OzoneContractCapabilities,
} from './ozone-contract-suite.js';
export { MINI_CLUSTER_CAPABILITIES, miniClusterAdapter } from './mini-cluster-adapter.js';
