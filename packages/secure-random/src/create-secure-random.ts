import { checkOneOf, InvalidOptionError } from '@fastpath/core';
import { DeviceSecureRandom, type DeviceSecureRandomOptions } from './device-secure-random.js';
import { NodeCryptoSecureRandom } from './node-crypto-secure-random.js';
import { PooledSecureRandom, type PooledSecureRandomOptions } from './pooled-secure-random.js';
import { SECURE_RANDOM_IMPLS, type SecureRandom, type SecureRandomImpl } from './secure-random.js';

/** Hadoop's key naming the secure random implementation (`CommonConfigurationKeysPublic`). */
export const HADOOP_SECURE_RANDOM_IMPL_KEY = 'hadoop.security.secure.random.impl';
/** Hadoop's key naming the device file of `OsSecureRandom`. */
export const HADOOP_RANDOM_DEVICE_FILE_PATH_KEY = 'hadoop.security.random.device.file.path';

/** Hadoop-style configuration: key to value, as a plain object or a Map. */
export type HadoopConfig = Readonly<Record<string, string | undefined>> | ReadonlyMap<string, string>;

/** Options of {@link createSecureRandom}. */
export interface SecureRandomOptions {
  /** The implementation to build. Default: `'pooled'` (or what `hadoopConfig` names). */
  impl?: SecureRandomImpl;
  /** Options used when the implementation is `'device'`. Default: none (the device defaults). */
  device?: DeviceSecureRandomOptions;
  /** Options used when the implementation is `'pooled'`. Default: none (the pool defaults). */
  pooled?: PooledSecureRandomOptions;
  /**
   * Hadoop configuration to read `hadoop.security.secure.random.impl` and
   * `hadoop.security.random.device.file.path` from. `impl` and `device.path` given above win.
   * Default: none.
   */
  hadoopConfig?: HadoopConfig;
}

/** Defaults of {@link SecureRandomOptions}. */
export const DEFAULT_SECURE_RANDOM_OPTIONS: Readonly<{
  /** Built when neither `impl` nor `hadoop.security.secure.random.impl` names one: `'pooled'`. */
  impl: SecureRandomImpl;
}> = Object.freeze({
  impl: 'pooled',
});

// Hadoop class names that have an equivalent here. OpensslSecureRandom (RAND_bytes per call) and
// the JDK's SecureRandom both map to one system-CSPRNG call per draw.
const HADOOP_IMPL_NAMES: ReadonlyMap<string, SecureRandomImpl> = new Map([
  ['org.apache.hadoop.crypto.random.OsSecureRandom', 'device'],
  ['OsSecureRandom', 'device'],
  ['org.apache.hadoop.crypto.random.OpensslSecureRandom', 'node-crypto'],
  ['OpensslSecureRandom', 'node-crypto'],
  ['java.security.SecureRandom', 'node-crypto'],
  ...SECURE_RANDOM_IMPLS.map((name) => [name, name] as const),
]);

/**
 * Builds a secure random generator by implementation name, the way Hadoop's codecs pick one from
 * `hadoop.security.secure.random.impl`. Build one and share it: building per use (as Hadoop's
 * codec did per connection) is the cost HADOOP-16011 is about.
 *
 * @example
 * ```ts
 * const fast = createSecureRandom();                         // pooled
 * const os = createSecureRandom({
 *   hadoopConfig: {
 *     'hadoop.security.secure.random.impl': 'org.apache.hadoop.crypto.random.OsSecureRandom',
 *     'hadoop.security.random.device.file.path': '/dev/urandom',
 *   },
 * });
 * ```
 */
export function createSecureRandom(options: SecureRandomOptions = {}): SecureRandom {
  const config = options.hadoopConfig;
  const impl =
    options.impl === undefined
      ? (implFromConfig(readConfig(config, HADOOP_SECURE_RANDOM_IMPL_KEY)) ??
        DEFAULT_SECURE_RANDOM_OPTIONS.impl)
      : checkOneOf('impl', options.impl, SECURE_RANDOM_IMPLS);
  switch (impl) {
    case 'pooled':
      return new PooledSecureRandom(options.pooled);
    case 'node-crypto':
      return new NodeCryptoSecureRandom();
    case 'device': {
      const path = options.device?.path ?? readConfig(config, HADOOP_RANDOM_DEVICE_FILE_PATH_KEY);
      return new DeviceSecureRandom(path === undefined ? { ...options.device } : { ...options.device, path });
    }
  }
}

function readConfig(config: HadoopConfig | undefined, key: string): string | undefined {
  if (config === undefined) return undefined;
  // `instanceof Map` narrows to Map<any, any>; the value is checked below, so take it as unknown.
  const raw: unknown =
    config instanceof Map ? config.get(key) : (config as Readonly<Record<string, unknown>>)[key];
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string') throw new InvalidOptionError(key, `expected a string, got ${typeof raw}`);
  const value = raw.trim();
  // Hadoop treats an empty value like an absent one (core-default.xml ships the impl key empty).
  return value === '' ? undefined : value;
}

function implFromConfig(value: string | undefined): SecureRandomImpl | undefined {
  if (value === undefined) return undefined;
  const impl = HADOOP_IMPL_NAMES.get(value);
  if (impl === undefined) {
    throw new InvalidOptionError(
      HADOOP_SECURE_RANDOM_IMPL_KEY,
      `no equivalent of "${value}"; use one of ${[...HADOOP_IMPL_NAMES.keys()].map((n) => `"${n}"`).join(', ')}`,
    );
  }
  return impl;
}
