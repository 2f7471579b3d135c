// @fastpath/hadoop-fixture: the one front door. Everything public is re-exported here by name.
export { prepareHadoop, type HadoopInstallation, type PrepareHadoopOptions } from './prepare-hadoop.js';
export { startHadoopKms, type HadoopKms } from './start-hadoop-kms.js';
export {
  DEFAULT_HADOOP_KMS_ACLS,
  DEFAULT_HADOOP_KMS_OPTIONS,
  type HadoopKmsOptions,
  type HadoopKmsZooKeeperOptions,
} from './hadoop-kms-options.js';
export {
  runHadoopClient,
  runKeyShell,
  type DriverEek,
  type HadoopClientAnswer,
  type HadoopClientOptions,
  type HadoopClientRequest,
  type HadoopKerberosClientOptions,
  type KeyShellOptions,
} from './hadoop-client.js';
export { HADOOP_JAVA_17_OPENS } from './java-options.js';
export {
  HadoopClientError,
  HadoopKmsExitedError,
  HadoopKmsTimeoutError,
  HadoopRpcPeerError,
} from './hadoop-errors.js';
export { startHadoopRpcPeer, type HadoopRpcPeer } from './start-hadoop-rpc-peer.js';
