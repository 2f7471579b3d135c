/**
 * `@fastpath/hadoop-common`: the one front door. What several fastpath packages speak with Hadoop
 * and Ozone: the Writable codec, tokens and their identifiers, and the configuration XML files.
 *
 * @module @fastpath/hadoop-common
 */
export { WireFormatError } from './wire-format-error.js';
export {
  CREDENTIALS_MAX_ENTRIES,
  CREDENTIALS_MAX_FILE_BYTES,
  CREDENTIALS_MAX_SECRET_BYTES,
  Credentials,
  type CredentialsFormat,
} from './credentials.js';
export { DataInput, TEXT_DEFAULT_MAX_LEN } from './data-input.js';
export { DataOutput } from './data-output.js';
export {
  DelegationTokenIdentifier,
  DELEGATION_TOKEN_IDENTIFIER_VERSION,
  type DelegationTokenIdentifierFields,
} from './delegation-token-identifier.js';
export {
  Token,
  TOKEN_MAX_ENCODED_BYTES,
  TOKEN_MAX_IDENTIFIER_BYTES,
  TOKEN_MAX_PASSWORD_BYTES,
  TOKEN_MAX_URL_STRING_LENGTH,
  type TokenFields,
} from './token.js';
export { DelegationKey, DELEGATION_KEY_MAX_KEY_BYTES, type DelegationKeyFields } from './delegation-key.js';
export {
  decodeTokenNode,
  encodeTokenNode,
  type DecodedTokenNode,
  type TokenNodePayload,
} from './token-node.js';
export { decodeSharedCount, encodeSharedCount } from './shared-count.js';
export { HadoopConfiguration, type HadoopConfigurationEntry } from './hadoop-configuration.js';
export { HadoopConfigurationError } from './hadoop-configuration-error.js';
export {
  loadKerberos,
  type GssClientContext,
  type GssClientOptions,
  type GssServerContext,
  type KerberosModule,
  gssErrorText,
} from './load-kerberos.js';
export { KerberosUnavailableError, type KerberosUnavailableReason } from './kerberos-unavailable-error.js';
export { KerberosName } from './kerberos-name.js';
export {
  DEFAULT_KERBEROS_NAME_RULES_OPTIONS,
  KerberosNameRules,
  type KerberosNameMechanism,
  type KerberosNameRulesOptions,
} from './kerberos-name-rules.js';
export {
  KerberosNameRulesError,
  MalformedKerberosNameError,
  NoMatchingKerberosRuleError,
} from './kerberos-name-errors.js';
export { DEFAULT_KRB5_CONFIG, krb5DefaultRealm, parseKrb5DefaultRealm } from './krb5-default-realm.js';
