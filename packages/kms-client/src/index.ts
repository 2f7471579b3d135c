/**
 * `@fastpath/kms-client`: the one front door. Everything public is re-exported here by name.
 *
 * @module @fastpath/kms-client
 */
export {
  DEFAULT_KMS_CLIENT_OPTIONS,
  KmsClient,
  type CreateKeyOptions,
  type GetDelegationTokenOptions,
  type KmsAuth,
  type KmsCallOptions,
  type KmsClientOptions,
  type RollNewVersionOptions,
} from './kms-client.js';
export { KMS_DELEGATION_TOKEN_KIND, KmsDelegationToken } from './kms-delegation-token.js';
export type { CreatedKeyVersion, KeyVersion } from './key-version.js';
export type { KeyMetadata } from './key-metadata.js';
export type { EncryptedKeyVersion } from './encrypted-key-version.js';
export {
  KmsAbortedError,
  KmsAccessDeniedError,
  KmsAuthenticationFailedError,
  KmsAuthenticationRequiredError,
  KmsBadRequestError,
  KmsBadResponseError,
  KmsClientClosedError,
  KmsError,
  KmsInvalidArgumentError,
  KmsKeyExistsError,
  KmsKeyNotFoundError,
  KmsKerberosLoginError,
  KmsMalformedTokenError,
  KmsNotFoundError,
  KmsServerError,
  KmsTimeoutError,
  KmsTlsError,
  KmsTokenCancelError,
  KmsUnavailableError,
  KmsUnreachableError,
  type KmsErrorDetails,
} from './kms-errors.js';
