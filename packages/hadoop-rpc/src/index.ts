/**
 * `@fastpath/hadoop-rpc`: the one front door. Everything public is re-exported here by name.
 *
 * @module @fastpath/hadoop-rpc
 */
export { createHadoopRpcClient, HadoopRpcClient, type HadoopRpcCall } from './hadoop-rpc-client.js';
export {
  DEFAULT_HADOOP_RPC_CLIENT_OPTIONS,
  HADOOP_RPC_CONFIGURATION_KEYS,
  hadoopRpcClientOptionsFrom,
  type HadoopRpcClientOptions,
} from './hadoop-rpc-client-options.js';
export {
  type ConnectFailure,
  HadoopRpcCallTimeoutError,
  HadoopRpcClientClosedError,
  HadoopRpcConnectError,
  HadoopRpcConnectionLostError,
  HadoopRpcConnectTimeoutError,
  HadoopRpcInvalidArgumentError,
  HadoopRpcKerberosError,
  HadoopRpcProtocolError,
  HadoopRpcResponseTooLargeError,
  HadoopRpcSaslError,
  HadoopRpcSaslQopError,
  isRetriableRemoteClass,
  type KerberosFailureReason,
  RemoteException,
  type RemoteExceptionFields,
  type RemoteStatus,
} from './hadoop-rpc-errors.js';
export { classifyHadoopRpcFailure, type HadoopRpcFailure } from './hadoop-rpc-failure.js';
export { createKerberosSaslMechanism, type KerberosSaslMechanismOptions } from './kerberos-sasl-mechanism.js';
export {
  type SaslAuth,
  type SaslMechanism,
  type SaslMechanismSession,
  type SaslSecurityLayer,
  type SaslServerInfo,
  SIMPLE_SASL_MECHANISM,
} from './sasl-mechanism.js';
export {
  createTokenSaslMechanism,
  type HadoopRpcProtection,
  RPC_PROTECTION_QOP,
  selectToken,
  type TokenSaslMechanismOptions,
} from './token-sasl-mechanism.js';
