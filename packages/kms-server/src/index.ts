// @fastpath/kms-server: the one front door. Everything public is re-exported here by name.
export {
  KmsConfigError,
  KmsListenError,
  KeystoreError,
  KmsRequestError,
  type KeystoreErrorCode,
  type KmsErrorCode,
  type KmsRequestErrorCode,
} from './kms-errors.js';
export {
  KMS_ERROR_CATALOGUE,
  FOREIGN_ERROR_ANSWERS,
  errorAnswer,
  type ErrorAnswer,
  type KmsErrorMapping,
  type KmsErrorRow,
  type RemoteExceptionBody,
} from './kms-error-table.js';
export { KMS_ENVIRONMENT_VARIABLES, KMS_PROPERTY_DEFAULTS } from './config/kms-properties.js';
export { defaultDataDir, type KmsSettings, type ZkTokenStoreSettings } from './config/kms-settings.js';
export {
  KMS_ACLS_FILE,
  KMS_SITE_FILE,
  loadKmsSettings,
  type KmsSettingsSources,
  type SettingsLayer,
} from './config/load-kms-settings.js';
export {
  FileKeyStore,
  createKeystore,
  rekeyKeystore,
  type FileKeyStoreOptions,
  type KeyStore,
} from './keystore/file-key-store.js';
export { DEFAULT_SCRYPT_PARAMS, type ScryptParams } from './keystore/keystore-file.js';
export type { KeyStoreCommand, KeyStoreState, StoredKey } from './keystore/keystore-state.js';
export {
  GENERATED_PASSWORD_FILE,
  readPasswordFile,
  resolveKeystorePassword,
  type KeystorePasswordOptions,
  type KeystorePasswordSource,
} from './keystore/keystore-password.js';
export {
  EEK_VERSION_NAME,
  EK_VERSION_NAME,
  KeyProvider,
  type CreateKeyOptions,
  type EncryptedKeyVersion,
  type KeyMetadata,
  type KeyProviderOptions,
  type KeyVersion,
} from './keys/key-provider.js';
export { EEK_IV_BYTES, decryptDek, encryptDek, flipIv } from './keys/eek-crypto.js';
export { buildVersionName, parseVersionName } from './keys/key-version-name.js';
export { createKmsServer, type KmsBuildInfo, type KmsServer, type KmsServerOptions } from './kms-server.js';
export { SILENT_LOGGER, streamLogger, type KmsLogger } from './kms-logger.js';
export { KMS_SERVER_NAME, KMS_SERVER_VERSION } from './version.js';
