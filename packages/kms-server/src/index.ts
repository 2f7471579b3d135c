/**
 * `@fastpath/kms-server`: the one front door. The server factory, its options and settings, and its
 * errors; everything else is internal. Test helpers live at `@fastpath/kms-server/testing`.
 *
 * @module @fastpath/kms-server
 */
export { createKmsServer, type KmsBuildInfo, type KmsServer, type KmsServerOptions } from './kms-server.js';
export type { KmsSettings, ZkSignerSettings, ZkTokenStoreSettings } from './internal/config/kms-settings.js';
export type { KmsInputLimits } from './internal/operations/kms-input.js';
export type { KmsLogger } from './internal/kms-logger.js';
export type { ScryptParams } from './internal/keystore/keystore-file.js';
export type { TokenServiceInfo } from './internal/auth/token-service.js';
export {
  KeystoreError,
  KmsConfigError,
  KmsKerberosError,
  KmsSignerSecretsError,
  KmsListenError,
  KmsRequestError,
  type KeystoreErrorCode,
  type KmsErrorCode,
  type KmsRequestErrorCode,
} from './kms-errors.js';
