/**
 * `@fastpath/ozone-fs-client/testing`: the embedded mini Ozone cluster (Node only).
 *
 * @module @fastpath/ozone-fs-client/testing
 */
export {
  DEFAULT_MINI_OZONE_CLUSTER_OPTIONS,
  MiniOzoneCluster,
  startMiniOzoneCluster,
  type MiniOzoneClusterOptions,
} from './mini-ozone-cluster.js';
export {
  MiniDatanode,
  type CommandName,
  type DatanodeCounters,
  type DatanodeFault,
  type ResultName,
} from './mini-datanode.js';
export { MiniOm, type OmFault } from './mini-om.js';
export { MiniOmHa } from './mini-om-ha.js';
export { writeEcKey, type EcKeyToWrite, type WrittenBlockGroup } from './mini-ec-striper.js';
export { MiniRatisPipelines, miniPipelineId } from './mini-ratis-pipelines.js';
export type { ShortCircuitFault } from './mini-domain-socket-server.js';
// The known content of the contract suite's keys, for benchmarks that check every byte they read.
export { contractKeyBytes } from './contract/contract-key-bytes.js';
// Waiting on a condition (polled) instead of a fixed sleep, as the suites do.
export { until } from './contract/until.js';
