// @fastpath/ozone-fixture: a real Apache Ozone cluster for interop tests. The one front door.
export {
  DEFAULT_OM_HA_HEAP_MB,
  DEFAULT_OZONE_CLUSTER_CONFIGURATION,
  DEFAULT_REAL_OZONE_CLUSTER_OPTIONS,
  OZONE_DEFAULT_ALLOWED_REPLICATION_CONFIGS,
  SMALL_CELL_ALLOWED_REPLICATION_CONFIGS,
  type RealOzoneClusterOptions,
} from './real-ozone-cluster-options.js';
export {
  ecBlockGroupLengths,
  ecExpectedDataLocations,
  ecGroupReadable,
  ecInternalBlockLengths,
  parseEcReplication,
  type EcReplication,
  type OzoneEcReplicationText,
} from './ec-replication.js';
export {
  erasureCodedKeySet,
  type ErasureCodedKeySet,
  type ErasureCodedKeySetOptions,
  type ErasureCodedTestKey,
} from './erasure-coded-key-set.js';
export { keyPatternBytes } from './key-pattern-bytes.js';
export {
  OZONE_CLIENT_PRINCIPAL,
  OZONE_DATANODE_TLS_HOST,
  OZONE_SERVICE_PRINCIPAL,
  secureOzoneConfiguration,
  type OzoneSecurityKdc,
  type RealOzoneSecurityOptions,
} from './secure-ozone-configuration.js';
export {
  startRealOzoneCluster,
  type JavaBlockReplica,
  type JavaBlockToken,
  type JavaClientCounters,
  type JavaKeyBlock,
  type JavaKeyInspection,
  type JavaKeyLookup,
  type JavaStoredReplica,
  type JavaProcessCredentials,
  type JavaProcessKeyRead,
  type OzoneDelegationTokenFile,
  type RealOzoneSecurity,
  type JavaKeyRead,
  type RealDatanodeCounters,
  type RealOzoneCluster,
  type RealOzoneDatanode,
  type RealOzoneManager,
  type RealS3Gateway,
  type S3ClientConfig,
} from './real-ozone-cluster.js';
export {
  OZONE_BUCKET_LAYOUTS,
  OZONE_CHECKSUM_TYPES,
  OZONE_KEY_REPLICATIONS,
  type KeyToWrite,
  type OzoneBucketLayout,
  type OzoneChecksumType,
  type OzoneKeyReplication,
  type OzoneRatisReplication,
  type WrittenBlock,
  type WrittenKey,
} from './key-spec.js';
export {
  prepareOzoneJars,
  type OzoneJars,
  type PrepareOzoneJarsOptions,
  type PrepareReport,
} from './ozone-jars.js';
export { javaColdReadCommand, type JavaColdReadInput, type JavaColdReadTimes } from './java-cold-read.js';
export {
  OzoneClusterExitedError,
  OzoneClusterTimeoutError,
  OzoneDatanodeControlError,
  OzoneFixtureStateError,
  OzoneKeyReadError,
  OzoneKeyWriteError,
  OzoneOmControlError,
  OzoneS3GatewayError,
} from './ozone-fixture-errors.js';
