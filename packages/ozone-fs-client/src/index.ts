/**
 * `@fastpath/ozone-fs-client`: the one front door. Everything public is re-exported here by name.
 *
 * @module @fastpath/ozone-fs-client
 */
export {
  createOzoneClient,
  DEFAULT_OZONE_CLIENT_OPTIONS,
  OzoneClient,
  type BucketInfo,
  type BucketLayout,
  type ClientTlsOptions,
  type CreateKeyOptions,
  type KeyDetails,
  type KeyEncryptionDetails,
  type KeyListing,
  type KmsProviderOptions,
  type OmCallStats,
  type OmLeader,
  type OzoneFileStatus,
  type OzoneClientOptions,
  type ReplicationName,
  type StorageType,
  type VolumeInfo,
} from './ozone-client.js';
export {
  DEFAULT_OZONE_CLIENT_CONFIG,
  loadOzoneSiteXml,
  MAX_READ_WORKER_THREADS,
  MAX_STREAM_READ_RESPONSE_DATA_SIZE_BYTES,
  MIN_BYTES_PER_CHECKSUM,
  OM_TRANSPORT_CLASSES,
  OZONE_CLIENT_CONFIG_KEYS,
  ozoneClientConfigFromProperties,
  parseDurationMs,
  parseStorageSize,
  validateOzoneClientConfig,
  type DatanodeTransport,
  type OmGrpcChannel,
  type OmTransportName,
  type OzoneClientConfig,
  type OzoneProperties,
} from './ozone-client-config.js';
export type { DatanodeStreamStats } from './internal/grpc/datanode-stream-pool.js';
export type { WritePipeline } from './internal/ratis/raft-client-pool.js';
export type { ReadWorkerStats } from './internal/workers/read-worker-pool.js';
export {
  DEFAULT_WINDOW_CACHE_BYTES,
  KeyInputStream,
  type BadReplicaReport,
  type KeyBlockLocation,
  type KeyInputStreamStats,
} from './key-input-stream.js';
export {
  DEFAULT_OZONE_FILE_SYSTEM_OPTIONS,
  OzoneFileSystem,
  type CreateFileOptions,
  type OzoneFileSystemOptions,
} from './fs/ozone-file-system.js';
export { closeAllFileSystems, getFileSystem, newFileSystemInstance } from './fs/file-system-cache.js';
export { OzoneFSInputStream } from './fs/fs-input-stream.js';
export type { FileStatus } from './fs/file-status.js';
export { parseOzoneUri, type OzoneFsAuthority, type OzoneScheme } from './fs/ozone-path.js';
export {
  ChecksumError,
  EndOfFileError,
  FileAlreadyExistsError,
  FileNotFoundError,
  InvalidPathError,
  ParentNotDirectoryError,
  PathIsNotEmptyDirectoryError,
  UnsupportedOperationError,
} from './fs/file-system-errors.js';
export { KeyOutputStream } from './key-output-stream.js';
export type { OzoneSecurityOptions } from './internal/om/om-sasl.js';
export {
  decodeOzoneTokenIdentifier,
  OZONE_TOKEN_KIND,
  type OzoneTokenIdentifier,
} from './ozone-token-identifier.js';
export type { ChecksumTypeName } from './internal/checksum.js';
export type { DatanodeAddress } from './internal/pipeline.js';
export {
  ChecksumMismatchError,
  DatanodeResultError,
  ErasureCodedWriteError,
  ErasureCodingConfigError,
  ErasureUnrecoverableError,
  MiniClusterError,
  OM_STATUS_ERRORS,
  OmFailoverExhaustedError,
  OmStatusError,
  type OmStatusErrorEntry,
  OzoneClosedError,
  OzoneHsyncUnsupportedError,
  OzoneDataStreamUnavailableError,
  OzoneError,
  OzoneInvalidArgumentError,
  OzoneProtocolError,
  OzoneRpcError,
  OzoneTlsConfigError,
  ReadWorkerError,
  ReplicasExhaustedError,
  ShortCircuitError,
  ShortReadError,
  type ChunkLocation,
  type EcReplicaWriteFailure,
} from './ozone-errors.js';
export { OzoneKmsError, OzoneUnsupportedEncryptionError } from './ozone-encryption-errors.js';
export {
  checkErasureCoderSchema,
  createRawErasureDecoder,
  createRawErasureEncoder,
  type ErasureCodecName,
  type ErasureCoderSchema,
  type RawErasureDecoder,
  type RawErasureEncoder,
} from './internal/ec/raw-erasure-coder.js';
export type { EcBlockGroupLayout, EcReplicationConfig } from './internal/ec/ec-stripe-layout.js';
