// The wire formats of @fastpath/token-manager: Hadoop-compatible serialisations of identifiers,
// tokens, master keys and ZooKeeper node payloads. The package front door re-exports the public part.
export { WireFormatError } from './wire-format-error.js';
export { DataOutput } from './data-output.js';
export { DataInput, TEXT_DEFAULT_MAX_LEN } from './data-input.js';
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
