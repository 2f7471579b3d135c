/**
 * `@fastpath/token-manager`: the one front door. Everything public is re-exported here by name.
 * The ZooKeeper managers are in the optional subpath `@fastpath/token-manager/zookeeper`.
 *
 * @module @fastpath/token-manager
 */
export {
  DEFAULT_DELEGATION_TOKEN_SECRET_MANAGER_OPTIONS,
  DelegationTokenSecretManager,
  type CreateTokenOptions,
  type CreateTokenRequest,
  type DelegationTokenSecretManagerOptions,
  type TokenOwnerCount,
} from './delegation-token-secret-manager.js';
export type { CreationLocking, TokenCreationHooks } from './internal/token-creation.js';
export type { PreparedToken, TokenStore, TokenStoreContext, TokenStoreMetrics } from './token-store.js';
export { InMemoryTokenStore } from './in-memory-token-store.js';
export type { CacheTicket, CachedToken, TokenCache, TokenInformation } from './token-cache.js';
export type { KeyCache } from './key-cache.js';
export {
  AccessControlError,
  DuplicateTokenError,
  InvalidTokenError,
  TokenCreationAbortedError,
  TokenManagerStateError,
  TokenStoreError,
  TokenStoreUnavailableError,
  type AccessDeniedReason,
  type InvalidTokenReason,
} from './token-errors.js';
export type { TimedStep } from './internal/token-metrics.js';
// The wire formats moved to @fastpath/hadoop-common; the types this package's API takes and
// returns stay importable from here.
export {
  DELEGATION_KEY_MAX_KEY_BYTES,
  DELEGATION_TOKEN_IDENTIFIER_VERSION,
  DelegationKey,
  DelegationTokenIdentifier,
  decodeSharedCount,
  decodeTokenNode,
  encodeSharedCount,
  encodeTokenNode,
  Token,
  TOKEN_MAX_ENCODED_BYTES,
  TOKEN_MAX_IDENTIFIER_BYTES,
  TOKEN_MAX_PASSWORD_BYTES,
  TOKEN_MAX_URL_STRING_LENGTH,
  WireFormatError,
  type DecodedTokenNode,
  type DelegationKeyFields,
  type DelegationTokenIdentifierFields,
  type TokenFields,
  type TokenNodePayload,
} from '@fastpath/hadoop-common';
