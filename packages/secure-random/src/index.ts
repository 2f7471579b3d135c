/**
 * `@fastpath/secure-random`: the one front door. Everything public is re-exported here by name.
 *
 * @module @fastpath/secure-random
 */
export {
  MAX_DRAW_BYTES,
  SECURE_RANDOM_IMPLS,
  type SecureRandom,
  type SecureRandomImpl,
} from './secure-random.js';
export {
  DEFAULT_DEVICE_SECURE_RANDOM_OPTIONS,
  DeviceSecureRandom,
  type DeviceSecureRandomOptions,
} from './device-secure-random.js';
export { NodeCryptoSecureRandom } from './node-crypto-secure-random.js';
export {
  DEFAULT_POOLED_SECURE_RANDOM_OPTIONS,
  PooledSecureRandom,
  type PooledSecureRandomOptions,
} from './pooled-secure-random.js';
export {
  createSecureRandom,
  DEFAULT_SECURE_RANDOM_OPTIONS,
  HADOOP_RANDOM_DEVICE_FILE_PATH_KEY,
  HADOOP_SECURE_RANDOM_IMPL_KEY,
  type HadoopConfig,
  type SecureRandomOptions,
} from './create-secure-random.js';
export { defaultSecureRandom, generateSecureRandom } from './generate-secure-random.js';
export {
  DEFAULT_SESSION_KEY_OPTIONS,
  generateSessionKeys,
  SESSION_IV_BYTES,
  type SessionKeyBytes,
  type SessionKeyOptions,
  type SessionKeys,
} from './generate-session-keys.js';
export { allocSessionKeyBuffers, fillSessionKeys, type SessionKeyBuffers } from './fill-session-keys.js';
export {
  DeviceReadError,
  DeviceShortReadError,
  DeviceUnavailableError,
  InvalidDrawSizeError,
  InvalidDrawTargetError,
  RandomSourceError,
  SecureRandomClosedError,
} from './secure-random-errors.js';
