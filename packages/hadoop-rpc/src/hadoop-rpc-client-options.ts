import { userInfo } from 'node:os';
import {
  checkInteger,
  checkNonEmptyString,
  checkOneOf,
  InvalidOptionError,
  type MetricsRegistry,
} from '@fastpath/core';
import type { HadoopConfiguration } from '@fastpath/hadoop-common';
import { SIMPLE_SASL_MECHANISM, type SaslMechanism } from './sasl-mechanism.js';

/** Options of {@link createHadoopRpcClient}. Defaults are Hadoop's (`core-default.xml`). */
export interface HadoopRpcClientOptions {
  /**
   * The user the calls run as: the connection context's `effectiveUser` with SIMPLE auth.
   * Default: the operating system's login name (`os.userInfo().username`).
   */
  user?: string;
  /** The real user when `user` is a proxy user (the context's `realUser`). Default: none. */
  realUser?: string;
  /**
   * The preamble's auth protocol: `'none'` (no SASL; what Hadoop's client sends when security is
   * off and it holds no token) or `'sasl'` (negotiate with `saslMechanisms`). Default: `'none'`.
   */
  authProtocol?: 'none' | 'sasl';
  /**
   * The mechanisms SASL negotiation may use, tried in the server's order of offer. Default:
   * `[SIMPLE_SASL_MECHANISM]`.
   */
  saslMechanisms?: readonly SaslMechanism[];
  /**
   * This client's 16-byte id, sent with every call and shared by all its connections (a server's
   * retry cache keys on it with the call id). Default: 16 random bytes (a version-4 UUID).
   */
  clientId?: Uint8Array;
  /** The preamble's service class, 0-255. Default: 0. */
  serviceClass?: number;
  /**
   * Silence on a connection with calls outstanding after which a ping (call id −4) is sent, in
   * ms. Default: 60 000 (`ipc.ping.interval`).
   */
  pingIntervalMs?: number;
  /** Whether pings are sent at all. Default: `true` (`ipc.client.ping`). */
  pingEnabled?: boolean;
  /** Bound for a connection to be ready (TCP connect, SASL), in ms. Default: 20 000 (`ipc.client.connect.timeout`). */
  connectTimeoutMs?: number;
  /**
   * Bound for a call's answer once sent, in ms; 0 for none. Default: 120 000
   * (`ipc.client.rpc-timeout.ms`). A call can override it with `timeoutMs`.
   */
  callTimeoutMs?: number;
  /**
   * A connection with no call outstanding for this long is closed, in ms. Default: 10 000
   * (`ipc.client.connection.maxidletime`).
   */
  maxIdleTimeMs?: number;
  /** Largest response frame accepted, in bytes. Default: 134 217 728 (128 MiB, `ipc.maximum.response.length`). */
  maxResponseBytes?: number;
  /** Where metrics go. Default: a private registry, readable as `client.metrics`. */
  metrics?: MetricsRegistry;
  /** This client's name in metric labels. Default: `'hadoop-rpc'`. */
  name?: string;
}

const DEFAULT_SASL_MECHANISMS: readonly SaslMechanism[] = Object.freeze([SIMPLE_SASL_MECHANISM]);
const DEFAULT_AUTH_PROTOCOL: 'none' | 'sasl' = 'none';

/**
 * The defaults of every optional field of {@link HadoopRpcClientOptions} that has a fixed one
 * (frozen); `user` and `clientId` have none (the login name and random bytes, per client).
 */
export const DEFAULT_HADOOP_RPC_CLIENT_OPTIONS = Object.freeze({
  /** `'none'`: no SASL, what Hadoop's client sends with security off and no token. */
  authProtocol: DEFAULT_AUTH_PROTOCOL,
  /** Only {@link SIMPLE_SASL_MECHANISM}, used only when `authProtocol` is `'sasl'`. */
  saslMechanisms: DEFAULT_SASL_MECHANISMS,
  /** Service class 0 in the connection preamble. */
  serviceClass: 0,
  /** 60 000 ms, as `ipc.ping.interval` in `core-default.xml`. */
  pingIntervalMs: 60_000,
  /** `true`, as `ipc.client.ping`. */
  pingEnabled: true,
  /** 20 000 ms, as `ipc.client.connect.timeout`. */
  connectTimeoutMs: 20_000,
  /** 120 000 ms, as `ipc.client.rpc-timeout.ms`. */
  callTimeoutMs: 120_000,
  /** 10 000 ms, as `ipc.client.connection.maxidletime`. */
  maxIdleTimeMs: 10_000,
  /** 134 217 728 bytes (128 MiB), as `ipc.maximum.response.length`. */
  maxResponseBytes: 134_217_728,
  /** `'hadoop-rpc'`, the client's `client` label in metrics. */
  name: 'hadoop-rpc',
});

/**
 * The Hadoop configuration key of each option that has one: the one place they are mapped
 * (read by {@link hadoopRpcClientOptionsFrom}).
 */
export const HADOOP_RPC_CONFIGURATION_KEYS = Object.freeze({
  /** Key of `pingIntervalMs`: milliseconds, at least 1. */
  pingIntervalMs: 'ipc.ping.interval',
  /** Key of `pingEnabled`: `true` or `false`. */
  pingEnabled: 'ipc.client.ping',
  /** Key of `connectTimeoutMs`: milliseconds, at least 1. */
  connectTimeoutMs: 'ipc.client.connect.timeout',
  /** Key of `callTimeoutMs`: milliseconds, 0 for no bound. */
  callTimeoutMs: 'ipc.client.rpc-timeout.ms',
  /** Key of `maxIdleTimeMs`: milliseconds, at least 1. */
  maxIdleTimeMs: 'ipc.client.connection.maxidletime',
  /** Key of `maxResponseBytes`: bytes (the client accepts 64 and more). */
  maxResponseBytes: 'ipc.maximum.response.length',
} as const);

const MAX_MS = 2 ** 31 - 1;

/**
 * The client options a Hadoop configuration sets (`core-site.xml`'s `ipc.*` keys), each with
 * Hadoop's default when the key is absent; a bad value throws `ERR_HADOOP_CONFIGURATION` naming
 * the key and the file it came from.
 *
 * @example
 * ```ts
 * const conf = HadoopConfiguration.fromXmlFile('/etc/hadoop/core-site.xml', { optional: true });
 * const client = createHadoopRpcClient({ ...hadoopRpcClientOptionsFrom(conf), user: 'alice' });
 * ```
 */
export function hadoopRpcClientOptionsFrom(conf: HadoopConfiguration): HadoopRpcClientOptions {
  const k = HADOOP_RPC_CONFIGURATION_KEYS;
  const d = DEFAULT_HADOOP_RPC_CLIENT_OPTIONS;
  return {
    pingIntervalMs: conf.getInteger(k.pingIntervalMs, d.pingIntervalMs, 1, MAX_MS),
    pingEnabled: conf.getBoolean(k.pingEnabled, d.pingEnabled),
    connectTimeoutMs: conf.getInteger(k.connectTimeoutMs, d.connectTimeoutMs, 1, MAX_MS),
    callTimeoutMs: conf.getInteger(k.callTimeoutMs, d.callTimeoutMs, 0, MAX_MS),
    maxIdleTimeMs: conf.getInteger(k.maxIdleTimeMs, d.maxIdleTimeMs, 1, MAX_MS),
    maxResponseBytes: conf.getInteger(k.maxResponseBytes, d.maxResponseBytes, 1, MAX_MS),
  };
}

/** Options with every default filled in and every value checked. */
export interface ResolvedHadoopRpcClientOptions {
  user: string;
  realUser: string | undefined;
  authProtocol: 'none' | 'sasl';
  saslMechanisms: readonly SaslMechanism[];
  clientId: Buffer;
  serviceClass: number;
  pingIntervalMs: number;
  pingEnabled: boolean;
  connectTimeoutMs: number;
  callTimeoutMs: number;
  maxIdleTimeMs: number;
  maxResponseBytes: number;
  metrics: MetricsRegistry | undefined;
  name: string;
}

/** Fills in the defaults and checks every field, naming the one that is wrong. */
export function resolveHadoopRpcClientOptions(
  options: HadoopRpcClientOptions,
  randomClientId: () => Buffer,
): ResolvedHadoopRpcClientOptions {
  const o = { ...DEFAULT_HADOOP_RPC_CLIENT_OPTIONS, ...withoutUndefined(options) };
  const user = o.user ?? loginName();
  checkNonEmptyString('user', user);
  if (o.realUser !== undefined) checkNonEmptyString('realUser', o.realUser);
  checkOneOf('authProtocol', o.authProtocol, ['none', 'sasl'] as const);
  const mechanisms: unknown = o.saslMechanisms;
  if (!Array.isArray(mechanisms) || mechanisms.length === 0) {
    throw new InvalidOptionError('saslMechanisms', 'expected at least one SASL mechanism');
  }
  o.saslMechanisms.forEach((m, i) => {
    if (typeof m?.method !== 'string' || typeof m.mechanism !== 'string' || typeof m.start !== 'function') {
      throw new InvalidOptionError(`saslMechanisms[${i}]`, 'expected a SaslMechanism');
    }
  });
  let clientId: Buffer;
  if (o.clientId === undefined) clientId = randomClientId();
  else if (o.clientId instanceof Uint8Array && o.clientId.length === 16) clientId = Buffer.from(o.clientId);
  else throw new InvalidOptionError('clientId', 'expected 16 bytes');
  checkInteger('serviceClass', o.serviceClass, 0, 255);
  checkInteger('pingIntervalMs', o.pingIntervalMs, 1, MAX_MS);
  if (typeof o.pingEnabled !== 'boolean') throw new InvalidOptionError('pingEnabled', 'expected a boolean');
  checkInteger('connectTimeoutMs', o.connectTimeoutMs, 1, MAX_MS);
  checkInteger('callTimeoutMs', o.callTimeoutMs, 0, MAX_MS);
  checkInteger('maxIdleTimeMs', o.maxIdleTimeMs, 1, MAX_MS);
  // A response frame's length is a signed 32-bit int on the wire.
  checkInteger('maxResponseBytes', o.maxResponseBytes, 64, MAX_MS);
  checkNonEmptyString('name', o.name);
  return {
    user,
    realUser: o.realUser,
    authProtocol: o.authProtocol,
    saslMechanisms: [...o.saslMechanisms],
    clientId,
    serviceClass: o.serviceClass,
    pingIntervalMs: o.pingIntervalMs,
    pingEnabled: o.pingEnabled,
    connectTimeoutMs: o.connectTimeoutMs,
    callTimeoutMs: o.callTimeoutMs,
    maxIdleTimeMs: o.maxIdleTimeMs,
    maxResponseBytes: o.maxResponseBytes,
    metrics: options.metrics,
    name: o.name,
  };
}

function loginName(): string {
  try {
    return userInfo().username;
  } catch {
    // No passwd entry for this uid (some containers): Hadoop's UGI would fail too; name it.
    throw new InvalidOptionError('user', 'the operating system has no login name for this process; pass one');
  }
}

function withoutUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
