// @fastpath/test-support: what fastpath's tests share, so that no package keeps its own copy.
export { eventually, gate, isPending, waitFor, type WaitOptions } from './wait-for.js';
export { expectError, type ExpectedError } from './expect-error.js';
export { remoteExceptionOf, type RemoteExceptionBody } from './remote-exception.js';
export {
  DEFAULT_KEY_ACLS,
  keyAclScenarioAcls,
  KMS_ACL_OPERATIONS,
  kmsAclsXml,
  operationAcls,
} from './kms-acls.js';
export { isAlive } from './process-alive.js';
export { hex, l, v, varint, type Bytes } from './protobuf-bytes.js';
export {
  createTestCertificateAuthority,
  type TestCertificateAuthority,
  type TestServerCertificate,
} from './test-certificates.js';
