/**
 * `@fastpath/hadoop-rpc/testing`: a Hadoop IPC server in Node for tests, with fault hooks, and
 * Hadoop's own IPC test service served on it; and the client mechanisms of the Kerberos attack
 * cases (a tapped, a replaying and a misdirected one).
 *
 * @module @fastpath/hadoop-rpc/testing
 */
export {
  type HadoopRpcCallContext,
  type HadoopRpcFault,
  type HadoopRpcMethod,
  type HadoopRpcTestProtocol,
  type HadoopRpcTestSaslMechanism,
  type HadoopRpcTestSaslStep,
  type HadoopRpcTestServer,
  HadoopRpcTestServerError,
  type HadoopRpcTestServerOptions,
  JavaExceptionReply,
  startHadoopRpcTestServer,
} from './hadoop-rpc-test-server.js';
export {
  CALL_CONTEXT_REQUEST,
  describeCallContext,
  TEST_RPC_PROTOCOL,
  testRpcMessages,
  testRpcProtocol,
} from './test-rpc-protocol.js';
export {
  kerberosTestSaslMechanism,
  type KerberosTestSaslMechanismOptions,
} from './kerberos-test-sasl-mechanism.js';
export { tokenTestSaslMechanism, type TokenTestSaslMechanismOptions } from './token-test-sasl-mechanism.js';
export { aimedAt, sendingAsKerberos, tapped } from './kerberos-attacks.js';
