import { checkInteger, checkNonEmptyString, InvalidOptionError } from '@fastpath/core';
import { tmpdir } from 'node:os';
import type { ZooKeeperInstallationOptions } from './locate-zookeeper.js';

/**
 * Options of `startZooKeeper`. Every field is optional; see {@link DEFAULT_ZOOKEEPER_FIXTURE_OPTIONS}.
 * The installation fields (`zookeeperHome`, `systemJarDir`, `installIfMissing`, `javaPath`, ...)
 * are those of `locateZooKeeper`.
 */
export interface ZooKeeperFixtureOptions extends ZooKeeperInstallationOptions {
  /**
   * Number of servers, 1 to 9. 1 starts a standalone server (`ZooKeeperServerMain`); more start
   * an ensemble (`QuorumPeerMain`, `server.N` lines, a `myid` per data dir). Default 1.
   */
  nodes?: number;
  /** Maximum Java heap of each server (`-Xmx`), in MiB. Default 256. */
  heapMb?: number;
  /** ZooKeeper's `tickTime`, in milliseconds. Default 2000. */
  tickTimeMs?: number;
  /** `minSessionTimeout`, in milliseconds. Default: ZooKeeper's (2 × tickTime). */
  minSessionTimeoutMs?: number;
  /** `maxSessionTimeout`, in milliseconds. Default: ZooKeeper's (20 × tickTime). */
  maxSessionTimeoutMs?: number;
  /** `initLimit` of an ensemble, in ticks. Default 10. */
  initLimitTicks?: number;
  /** `syncLimit` of an ensemble, in ticks. Default 5. */
  syncLimitTicks?: number;
  /** `snapCount`: transactions between snapshots. Default 10000 (ZooKeeper's is 100000). */
  snapCount?: number;
  /** `preAllocSize`: transaction log pre-allocation, in KiB. Default 1024 (ZooKeeper's is 65536). */
  preAllocSizeKb?: number;
  /** Bound for each server to report a `Mode:` after a start or restart, in milliseconds. Default 30000. */
  startTimeoutMs?: number;
  /** Bound for a server to exit after SIGTERM (`stop`) before it gets SIGKILL, in milliseconds. Default 10000. */
  stopTimeoutMs?: number;
  /** Bound for one four-letter-word exchange, in milliseconds. Default 2000. */
  fourLetterTimeoutMs?: number;
  /** Fresh port sets tried when another process takes a picked port first. Default 3. */
  portRetries?: number;
  /** Where the fixture's temporary directory is created. Default: the OS temp dir. */
  baseDir?: string;
  /** Extra JVM arguments, placed before the class path. Default none. */
  jvmArgs?: readonly string[];
  /** Extra `zoo.cfg` lines (`key=value`), written last. Default none. */
  extraConfig?: Readonly<Record<string, string | number | boolean>>;
  /**
   * Run every server with SASL (Kerberos) authentication. Default: none (no authentication).
   * See {@link ZooKeeperKerberosOptions}.
   */
  kerberos?: ZooKeeperKerberosOptions;
}

/**
 * A Kerberized ZooKeeper, as Hadoop's documentation sets one up: the `sasl` authentication
 * provider, a JAAS `Server` section that logs in from the service keytab, and authenticated
 * clients known by the first component of their principal (`kerberos.removeHostFromPrincipal`
 * and `removeRealmFromPrincipal`), which is what Hadoop's `sasl:<name>` ACLs name.
 */
export interface ZooKeeperKerberosOptions {
  /** The krb5.conf of the realm (the JVM's `java.security.krb5.conf`). Required. */
  krb5ConfigPath: string;
  /** A keytab holding `principal`. Required. */
  keytab: string;
  /** The servers' principal, `zookeeper/localhost@REALM` for a client that connects to 127.0.0.1. Required. */
  principal: string;
  /**
   * Refuse every request of a connection that has not authenticated with SASL, closing its
   * session (`zookeeper.sessionRequireClientSASLAuth`). Default `true`.
   */
  requireClientAuth?: boolean;
}

/** Defaults of {@link ZooKeeperFixtureOptions} (installation defaults: `DEFAULT_ZOOKEEPER_INSTALLATION_OPTIONS`). */
export const DEFAULT_ZOOKEEPER_FIXTURE_OPTIONS = Object.freeze({
  nodes: 1,
  heapMb: 256,
  tickTimeMs: 2000,
  initLimitTicks: 10,
  syncLimitTicks: 5,
  snapCount: 10_000,
  preAllocSizeKb: 1024,
  startTimeoutMs: 30_000,
  stopTimeoutMs: 10_000,
  fourLetterTimeoutMs: 2000,
  portRetries: 3,
  jvmArgs: Object.freeze([] as string[]),
  extraConfig: Object.freeze({} as Record<string, string | number | boolean>),
});

/** The checked options, defaults filled in. */
export interface ResolvedFixtureOptions {
  readonly nodes: number;
  readonly heapMb: number;
  readonly tickTimeMs: number;
  readonly minSessionTimeoutMs: number | undefined;
  readonly maxSessionTimeoutMs: number | undefined;
  readonly initLimitTicks: number;
  readonly syncLimitTicks: number;
  readonly snapCount: number;
  readonly preAllocSizeKb: number;
  readonly startTimeoutMs: number;
  readonly stopTimeoutMs: number;
  readonly fourLetterTimeoutMs: number;
  readonly portRetries: number;
  readonly baseDir: string;
  readonly jvmArgs: readonly string[];
  readonly extraConfig: Readonly<Record<string, string | number | boolean>>;
  readonly kerberos: Readonly<Required<ZooKeeperKerberosOptions>> | undefined;
}

export function resolveFixtureOptions(options: ZooKeeperFixtureOptions): ResolvedFixtureOptions {
  const d = DEFAULT_ZOOKEEPER_FIXTURE_OPTIONS;
  const tickTimeMs = checkInteger('tickTimeMs', options.tickTimeMs ?? d.tickTimeMs, 1, 600_000);
  const minSessionTimeoutMs =
    options.minSessionTimeoutMs === undefined
      ? undefined
      : checkInteger('minSessionTimeoutMs', options.minSessionTimeoutMs, 1);
  const maxSessionTimeoutMs =
    options.maxSessionTimeoutMs === undefined
      ? undefined
      : checkInteger('maxSessionTimeoutMs', options.maxSessionTimeoutMs, 1);
  const effectiveMin = minSessionTimeoutMs ?? 2 * tickTimeMs;
  const effectiveMax = maxSessionTimeoutMs ?? 20 * tickTimeMs;
  if (effectiveMin > effectiveMax) {
    throw new InvalidOptionError(
      maxSessionTimeoutMs === undefined ? 'minSessionTimeoutMs' : 'maxSessionTimeoutMs',
      `minSessionTimeout (${effectiveMin} ms) must not exceed maxSessionTimeout (${effectiveMax} ms)`,
    );
  }
  const jvmArgs = options.jvmArgs ?? d.jvmArgs;
  // Checked on an unknown-typed alias: Array.isArray on jvmArgs itself would narrow the readonly
  // array to any[].
  const givenJvmArgs: unknown = jvmArgs;
  if (!Array.isArray(givenJvmArgs) || givenJvmArgs.some((arg) => typeof arg !== 'string')) {
    throw new InvalidOptionError('jvmArgs', 'expected an array of strings');
  }
  const extraConfig = options.extraConfig ?? d.extraConfig;
  for (const [key, value] of Object.entries(extraConfig)) {
    if (!/^[A-Za-z0-9_.-]+$/.test(key) || /[\r\n]/.test(String(value))) {
      throw new InvalidOptionError('extraConfig', `bad zoo.cfg entry "${key}"`);
    }
  }
  return Object.freeze({
    nodes: checkInteger('nodes', options.nodes ?? d.nodes, 1, 9),
    heapMb: checkInteger('heapMb', options.heapMb ?? d.heapMb, 16, 65_536),
    tickTimeMs,
    minSessionTimeoutMs,
    maxSessionTimeoutMs,
    initLimitTicks: checkInteger('initLimitTicks', options.initLimitTicks ?? d.initLimitTicks, 1),
    syncLimitTicks: checkInteger('syncLimitTicks', options.syncLimitTicks ?? d.syncLimitTicks, 1),
    snapCount: checkInteger('snapCount', options.snapCount ?? d.snapCount, 2),
    preAllocSizeKb: checkInteger('preAllocSizeKb', options.preAllocSizeKb ?? d.preAllocSizeKb, 1),
    startTimeoutMs: checkInteger('startTimeoutMs', options.startTimeoutMs ?? d.startTimeoutMs, 1),
    stopTimeoutMs: checkInteger('stopTimeoutMs', options.stopTimeoutMs ?? d.stopTimeoutMs, 1),
    fourLetterTimeoutMs: checkInteger(
      'fourLetterTimeoutMs',
      options.fourLetterTimeoutMs ?? d.fourLetterTimeoutMs,
      1,
    ),
    portRetries: checkInteger('portRetries', options.portRetries ?? d.portRetries, 0, 100),
    baseDir: checkNonEmptyString('baseDir', options.baseDir ?? tmpdir()),
    jvmArgs: Object.freeze([...jvmArgs]),
    extraConfig: Object.freeze({ ...extraConfig }),
    kerberos: options.kerberos === undefined ? undefined : resolveKerberos(options.kerberos),
  });
}

function resolveKerberos(options: ZooKeeperKerberosOptions): Readonly<Required<ZooKeeperKerberosOptions>> {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidOptionError('kerberos', 'expected { krb5ConfigPath, keytab, principal }');
  }
  for (const field of ['krb5ConfigPath', 'keytab', 'principal'] as const) {
    const value = checkNonEmptyString(`kerberos.${field}`, options[field]);
    // They go into a JAAS file between double quotes.
    if (/["\\\r\n]/.test(value))
      throw new InvalidOptionError(
        `kerberos.${field}`,
        'must not contain quotes, backslashes or line breaks',
      );
  }
  const requireClientAuth = options.requireClientAuth ?? true;
  if (typeof requireClientAuth !== 'boolean') {
    throw new InvalidOptionError('kerberos.requireClientAuth', 'expected a boolean');
  }
  return Object.freeze({
    krb5ConfigPath: options.krb5ConfigPath,
    keytab: options.keytab,
    principal: options.principal,
    requireClientAuth,
  });
}
