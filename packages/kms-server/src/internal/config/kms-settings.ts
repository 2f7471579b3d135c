import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { Redacted } from '@fastpath/core';
import { HadoopConfiguration } from '@fastpath/hadoop-common';
import type { CreationLocking } from '@fastpath/token-manager';
import type { KmsInputLimits } from '../operations/kms-input.js';
import { KmsConfigError } from '../../kms-errors.js';
import { AUTH_PREFIX, KMS_PROPERTY_DEFAULTS, ZK_DT_PREFIX, ZK_SIGNER_PREFIX } from './kms-properties.js';
import { settingRow, type KmsSettingRow, type SettingParser } from './kms-settings-table.js';
import { resolveKerberosSettings, type KerberosSettings } from '../kerberos/kerberos-settings.js';
import {
  resolveZkSaslSettings,
  type ZkSaslSettings,
  type ZkSaslSettingsInput,
} from '../kerberos/zookeeper-sasl-settings.js';

/**
 * The ZooKeeper token store's settings, present when it is enabled. `…` in the keys below stands
 * for `hadoop.kms.authentication.zk-dt-secret-manager.`.
 */
export interface ZkTokenStoreSettings {
  /** ZooKeeper servers, `host:port,…` (`…zkConnectionString`, required). */
  readonly connectionString: string;
  /**
   * Parent of the token tree `/<path>/ZKDTSMRoot/…`, as configured (`…znodeWorkingPath`,
   * default `zkdtsm`).
   */
  readonly znodeWorkingPath: string;
  /** Session timeout asked of ZooKeeper, ms (`…zkSessionTimeout`, default 10 000). */
  readonly sessionTimeoutMs: number;
  /** Bound of one connection attempt, ms (`…zkConnectionTimeout`, default 10 000). */
  readonly connectionTimeoutMs: number;
  /** Further connection attempts at start, 0-1000 (`…zkNumRetries`, default 3). */
  readonly numRetries: number;
  /** Sequence numbers reserved per compare-and-set (`…token.seqnum.batch.size`, default 100). */
  readonly seqNumBatchSize: number;
  /** Keep the token cache current through watches (`…token.watcher.enabled`, default true). */
  readonly tokenWatcherEnabled: boolean;
  /**
   * Write tokens created together in one multi-operation
   * (`fastpath.kms.token.persist.coalescing`, default true).
   */
  readonly persistCoalescing: boolean;
  /** Kerberos to ZooKeeper (`…zkAuthType=sasl`); `undefined` for `none`. */
  readonly sasl: ZkSaslSettings | undefined;
}

/**
 * The ZooKeeper signer secret provider's settings (`signer.secret.provider=zookeeper`). `…` in
 * the keys below stands for `hadoop.kms.authentication.signer.secret.provider.zookeeper.`.
 */
export interface ZkSignerSettings {
  /** ZooKeeper servers, `host:port,…` (`…connection.string`, required). */
  readonly connectionString: string;
  /** The znode of the secrets, absolute. */
  readonly path: string;
  /**
   * Bound of one connection attempt and of one ZooKeeper call, ms; 3 attempts at start
   * (`fastpath.kms.signer.secret.zookeeper.connection.timeout.ms`, default 10 000).
   */
  readonly connectionTimeoutMs: number;
  /**
   * Session timeout asked of ZooKeeper, ms
   * (`fastpath.kms.signer.secret.zookeeper.session.timeout.ms`, default 30 000).
   */
  readonly sessionTimeoutMs: number;
  /** Kerberos to ZooKeeper (`…auth.type=sasl`); `undefined` for `none`. */
  readonly sasl: ZkSaslSettings | undefined;
}

/** Everything the server runs with, resolved from defaults, files and overrides, and checked. */
export interface KmsSettings {
  /** The HTTP listener and its limits. */
  readonly http: {
    /** Listen address (`hadoop.kms.http.host`, default `0.0.0.0`). */
    readonly host: string;
    /** Listen port, 0-65535, 0 for any free one (`hadoop.kms.http.port`, default 9600). */
    readonly port: number;
    /** The PEM files HTTPS is served with; `undefined`: plain HTTP. */
    readonly tls:
      | {
          /** PEM certificate (chain) file, absolute (`fastpath.kms.ssl.certificate.file`). */
          readonly certFile: string;
          /** PEM private key file, absolute (`fastpath.kms.ssl.private.key.file`). */
          readonly keyFile: string;
        }
      | undefined;
    /** Largest request body in bytes, 413 beyond (`fastpath.kms.http.max.body.bytes`, default 8 MiB). */
    readonly maxBodyBytes: number;
    /**
     * Largest request line plus headers in bytes, 431 beyond
     * (`fastpath.kms.http.max.header.bytes`, default 16 KiB).
     */
    readonly maxHeaderBytes: number;
    /**
     * Time allowed to receive a whole request, ms, 0 for none
     * (`fastpath.kms.http.request.timeout.ms`, default 60 000).
     */
    readonly requestTimeoutMs: number;
    /** Idle keep-alive connection lifetime, ms (`fastpath.kms.http.keepalive.timeout.ms`, default 72 000). */
    readonly keepAliveTimeoutMs: number;
    /**
     * How long `close()` lets requests in progress finish before closing their connections, ms
     * (`fastpath.kms.shutdown.timeout.ms`, default 30 000).
     */
    readonly shutdownTimeoutMs: number;
  };
  /**
   * Processes sharing the port, 1-256 (`fastpath.kms.workers`, default 1); more than 1 needs the
   * ZooKeeper token store (`ERR_KMS_CONFIG` otherwise).
   */
  readonly workers: number;
  /**
   * Data directory, absolute (`fastpath.kms.data.dir`, default `~/.fastpath-kms`); created with
   * mode 0700.
   */
  readonly dataDir: string;
  /** Where the keys are kept. */
  readonly keystore: {
    /** The keystore file, absolute (`fastpath.kms.keystore.file`, default `<dataDir>/kms.keystore`). */
    readonly file: string;
    /**
     * File holding its password (`fastpath.kms.keystore.password.file`); `undefined`: the
     * password comes from `FASTPATH_KMS_KEYSTORE_PASSWORD` or the generated file in the data
     * directory.
     */
    readonly passwordFile: string | undefined;
  };
  /** What keys are created with, and who may use them. */
  readonly keys: {
    /**
     * Cipher of a key created without one, AES only (`hadoop.security.key.default.cipher`,
     * default `AES/CTR/NoPadding`).
     */
    readonly defaultCipher: string;
    /**
     * Bit length of a key created without one: 128, 192 or 256
     * (`hadoop.security.key.default.bitlength`, default 128).
     */
    readonly defaultBitLength: number;
    /** Whether key ACLs of `kms-acls.xml` apply (`hadoop.kms.key.authorization.enable`, default true). */
    readonly authorizationEnabled: boolean;
    /**
     * Largest `num_keys` of one generate-EEK request (`fastpath.kms.eek.max.keys.per.request`,
     * default 10 000).
     */
    readonly maxEekPerRequest: number;
  };
  /** What one request may carry (key and user names, descriptions, attributes). */
  readonly limits: KmsInputLimits;
  /** How `kms-acls.xml` is followed. */
  readonly acls: {
    /**
     * How often the file is checked for changes, ms, 10 or more
     * (`fastpath.kms.acls.reload.interval.ms`, default 1000).
     */
    readonly reloadIntervalMs: number;
  };
  /** How a user's groups are found, for ACLs. */
  readonly groups: {
    /**
     * Fixed groups per user, which win over `mapping`
     * (`hadoop.user.group.static.mapping.overrides`, default `dr.who=;`).
     */
    readonly staticMapping: ReadonlyMap<string, readonly string[]>;
    /**
     * Groups of other users: `unix` (`/etc/passwd`, `/etc/group`) or `none`
     * (`fastpath.kms.group.mapping`, default `unix`).
     */
    readonly mapping: 'unix' | 'none';
    /** How long the group files are cached, ms (`fastpath.kms.group.cache.ms`, default 300 000). */
    readonly cacheMs: number;
  };
  /** The audit log. */
  readonly audit: {
    /**
     * The audit log file, absolute, appended to (`fastpath.kms.audit.log.file`, default
     * `<dataDir>/kms-audit.log`).
     */
    readonly file: string;
    /**
     * Window in which one user's repeated successes of an aggregated operation on one key (e.g.
     * `DECRYPT_EEK`) make one audit line, ms (`hadoop.kms.audit.aggregation.window.ms`, default
     * 10 000).
     */
    readonly aggregationWindowMs: number;
  };
  /**
   * Authentication: who a request is, and the `hadoop.auth` cookie. `…` in the keys below stands
   * for `hadoop.kms.authentication.`.
   */
  readonly auth: {
    /** `simple` (`user.name`) or `kerberos` (SPNEGO). */
    readonly type: 'simple' | 'kerberos';
    /** Kerberos mode's settings, checked against the keytab; `undefined` in simple mode. */
    readonly kerberos: KerberosSettings | undefined;
    /**
     * Simple mode: a request without identity acts as `dr.who` (`…simple.anonymous.allowed`,
     * default false).
     */
    readonly anonymousAllowed: boolean;
    /**
     * `hadoop.auth` cookie lifetime and the rollover interval of generated or shared secrets,
     * seconds (`…token.validity`, default 36 000).
     */
    readonly tokenValiditySec: number;
    /** `token.max-inactive-interval`, seconds; -1 for none. */
    readonly maxInactiveSec: number;
    /** The cookie signing secret, when one is configured; otherwise random ones, rolled every `tokenValiditySec`. */
    readonly signatureSecret: Redacted<Buffer> | undefined;
    /** The secrets shared through ZooKeeper (`signer.secret.provider=zookeeper`); then no `signatureSecret`. */
    readonly zookeeperSigner: ZkSignerSettings | undefined;
    /** The cookie's `Domain` attribute (`…cookie.domain`); `undefined`: none is sent. */
    readonly cookieDomain: string | undefined;
    /** The cookie's `Path` attribute (`…cookie.path`); `undefined`: none is sent. */
    readonly cookiePath: string | undefined;
    /** Write `Expires` on the cookie; false: a session cookie (`…cookie.persistent`, default false). */
    readonly cookiePersistent: boolean;
  };
  /**
   * Delegation tokens, configured in seconds and held here in ms. `…` in the keys below stands for
   * `hadoop.kms.authentication.delegation-token.`.
   */
  readonly tokens: {
    /** Master key roll interval, ms (`…update-interval.sec`, default 1 day). */
    readonly updateIntervalMs: number;
    /** Longest a token can live, renewals included, ms (`…max-lifetime.sec`, default 7 days). */
    readonly maxLifetimeMs: number;
    /** How long a token stays valid without renewal, ms (`…renew-interval.sec`, default 1 day). */
    readonly renewIntervalMs: number;
    /** How often expired tokens are removed, ms (`…removal-scan-interval.sec`, default 1 hour). */
    readonly removalScanIntervalMs: number;
    /**
     * `staged` (HADOOP-20045) or `global`, the behaviour before it (`fastpath.kms.token.creation.locking`,
     * default `staged`).
     */
    readonly creationLocking: CreationLocking;
    /**
     * The ZooKeeper token store's settings; `undefined` unless
     * `hadoop.kms.authentication.zk-dt-secret-manager.enable` is true (tokens in memory).
     */
    readonly zookeeper: ZkTokenStoreSettings | undefined;
  };
  /** `hadoop.kms.proxyuser.*` properties, verbatim. */
  readonly proxyUserProperties: ReadonlyMap<string, string>;
  /** Things worth a warning at start (ignored Hadoop settings). */
  readonly warnings: readonly string[];
}

/** The default data directory: `~/.fastpath-kms`. */
export function defaultDataDir(): string {
  return join(homedir(), '.fastpath-kms');
}

/** Header bytes kept free beside a key's URL: method, version, host, cookie, a delegation token. */
const KEY_URL_HEADROOM_BYTES = 4096;

/**
 * Resolves and checks every setting. `conf` holds `kms-site.xml` and the overrides on top; the
 * defaults of {@link KMS_PROPERTY_DEFAULTS} go underneath. Throws `ERR_KMS_CONFIG` naming the
 * first property with a value the server cannot use.
 */
export function resolveKmsSettings(
  conf: HadoopConfiguration,
  options: { cwd?: string; env?: Readonly<Record<string, string | undefined>> } = {},
): KmsSettings {
  const defaults = new HadoopConfiguration(
    Object.entries(KMS_PROPERTY_DEFAULTS).map(([k, v]) => [k, { value: v, source: 'default' }] as const),
  );
  const c = HadoopConfiguration.layered(defaults, conf);
  const cwd = options.cwd ?? process.cwd();
  const warnings: string[] = [];
  const dataDirRaw = c.getTrimmed('fastpath.kms.data.dir');
  const dataDir = resolve(cwd, dataDirRaw ?? defaultDataDir());
  // The data dir default is substituted into the file defaults below.
  const withDataDir = HadoopConfiguration.layered(
    c,
    new HadoopConfiguration([
      ['fastpath.kms.data.dir', { value: dataDir, source: c.sourceOf('fastpath.kms.data.dir') ?? 'default' }],
    ]),
  );
  const path = (key: string): string | undefined => {
    const value = withDataDir.getTrimmed(key);
    if (value === undefined) return undefined;
    if (value.includes('\0')) throw withDataDir.invalid(key, 'a path cannot contain NUL');
    return isAbsolute(value) ? value : resolve(cwd, value);
  };
  // Every read goes through the settings table: its default, its parser and its bounds.
  const rowOf = <T extends SettingParser['type']>(
    key: string,
    type: T,
  ): KmsSettingRow & { parser: Extract<SettingParser, { type: T }> } => {
    const row = settingRow(key);
    if (row.parser.type !== type)
      throw new Error(`${key} is read as ${type}, the settings table says ${row.parser.type}`);
    return row as KmsSettingRow & { parser: Extract<SettingParser, { type: T }> };
  };
  const int = (key: string): number => {
    const row = rowOf(key, 'int');
    return withDataDir.getInteger(key, Number(row.default), row.parser.min, row.parser.max);
  };
  const bool = (key: string): boolean => withDataDir.getBoolean(key, rowOf(key, 'bool').default === 'true');
  const oneOf = <T extends string>(key: string): T => {
    const row = rowOf(key, 'oneOf');
    return withDataDir.getOneOf(key, row.default as T, row.parser.values as readonly T[]);
  };
  const text = (key: string): string => withDataDir.getString(key, rowOf(key, 'string').default);

  const authType = oneOf<'simple' | 'kerberos'>(`${AUTH_PREFIX}type`);

  const host = text('hadoop.kms.http.host');
  const tlsEnabled = bool('hadoop.kms.ssl.enabled');
  const certFile = path('fastpath.kms.ssl.certificate.file');
  const keyFile = path('fastpath.kms.ssl.private.key.file');
  if ((certFile === undefined) !== (keyFile === undefined)) {
    const missing =
      certFile === undefined ? 'fastpath.kms.ssl.certificate.file' : 'fastpath.kms.ssl.private.key.file';
    throw new KmsConfigError(missing, `${missing} must be set together with the other TLS file`);
  }
  if (tlsEnabled && certFile === undefined) {
    throw withDataDir.invalid(
      'hadoop.kms.ssl.enabled',
      'TLS needs fastpath.kms.ssl.certificate.file and fastpath.kms.ssl.private.key.file (PEM files)',
    );
  }

  const providerUri = withDataDir.getTrimmed('hadoop.kms.key.provider.uri');
  if (providerUri !== undefined) {
    warnings.push(
      `hadoop.kms.key.provider.uri (${providerUri}) is ignored: keys live in the keystore named by fastpath.kms.keystore.file`,
    );
  }

  const cipher = text('hadoop.security.key.default.cipher');
  if (cipher.split('/')[0]?.toUpperCase() !== 'AES') {
    throw withDataDir.invalid(
      'hadoop.security.key.default.cipher',
      `only AES ciphers are supported, got ${JSON.stringify(cipher)}`,
    );
  }
  const bitLength = int('hadoop.security.key.default.bitlength');
  if (![128, 192, 256].includes(bitLength)) {
    throw withDataDir.invalid(
      'hadoop.security.key.default.bitlength',
      `expected 128, 192 or 256, got ${bitLength}`,
    );
  }

  const groupMapping = oneOf<'unix' | 'none'>('fastpath.kms.group.mapping');

  const signerProvider = oneOf<'random' | 'string' | 'file' | 'zookeeper'>(
    `${AUTH_PREFIX}signer.secret.provider`,
  );
  // Both ZooKeeper clients' `sasl` settings, read here; the keytab is read with the last checks.
  const zkSaslInput = (prefix: string, authKey: string): Omit<ZkSaslSettingsInput, 'env'> => {
    const keytabProperty = `${prefix}kerberos.keytab`;
    const principalProperty = `${prefix}kerberos.principal`;
    const keytab = path(keytabProperty);
    if (keytab === undefined) {
      throw new KmsConfigError(keytabProperty, `${keytabProperty} is required when ${authKey} is sasl`);
    }
    const principal = text(principalProperty).trim();
    if (principal === '') {
      throw new KmsConfigError(principalProperty, `${principalProperty} is required when ${authKey} is sasl`);
    }
    if (!/^[^/@\s]+(\/[^/@\s]+)?(@[^/@\s]+)?$/.test(principal)) {
      throw withDataDir.invalid(
        principalProperty,
        `expected a Kerberos principal (name[/host][@REALM]), got ${JSON.stringify(principal)}`,
      );
    }
    const serviceName = text('fastpath.kms.zookeeper.sasl.client.username').trim();
    if (!/^[^/@\s]+$/.test(serviceName)) {
      throw withDataDir.invalid(
        'fastpath.kms.zookeeper.sasl.client.username',
        `expected a service name without "/", "@" or spaces, got ${JSON.stringify(serviceName)}`,
      );
    }
    return { keytab, keytabProperty, principal, principalProperty, serviceName };
  };
  const resolveZkSigner = () => {
    const connectionString = withDataDir.getTrimmed(`${ZK_SIGNER_PREFIX}connection.string`);
    if (connectionString === undefined || connectionString === '') {
      throw new KmsConfigError(
        `${ZK_SIGNER_PREFIX}connection.string`,
        `${ZK_SIGNER_PREFIX}connection.string is required when ${AUTH_PREFIX}signer.secret.provider is zookeeper`,
      );
    }
    const saslInput =
      oneOf<'none' | 'sasl'>(`${ZK_SIGNER_PREFIX}auth.type`) === 'sasl'
        ? zkSaslInput(ZK_SIGNER_PREFIX, `${ZK_SIGNER_PREFIX}auth.type`)
        : undefined;
    const znode = text(`${ZK_SIGNER_PREFIX}path`);
    if (!/^(\/[^/\s]+)+$/.test(znode)) {
      throw withDataDir.invalid(
        `${ZK_SIGNER_PREFIX}path`,
        `not an absolute znode path: ${JSON.stringify(znode)}`,
      );
    }
    return {
      settings: {
        connectionString,
        path: znode,
        connectionTimeoutMs: int('fastpath.kms.signer.secret.zookeeper.connection.timeout.ms'),
        sessionTimeoutMs: int('fastpath.kms.signer.secret.zookeeper.session.timeout.ms'),
      },
      saslInput,
    };
  };
  let zookeeperSignerInput: ReturnType<typeof resolveZkSigner> | undefined;
  if (signerProvider === 'zookeeper') {
    zookeeperSignerInput = resolveZkSigner();
    // As Hadoop's filter: the provider named wins, a configured secret is not used.
    for (const key of [`${AUTH_PREFIX}signature.secret`, `${AUTH_PREFIX}signature.secret.file`]) {
      if ((withDataDir.getTrimmed(key) ?? '') !== '') {
        warnings.push(`${key} is ignored: signer.secret.provider is zookeeper`);
      }
    }
  }
  let signatureSecret: Redacted<Buffer> | undefined;
  const secretFile = path(`${AUTH_PREFIX}signature.secret.file`);
  const inlineSecret = withDataDir.get(`${AUTH_PREFIX}signature.secret`);
  if (zookeeperSignerInput !== undefined) {
    // The fleet's secrets come from ZooKeeper.
  } else if (secretFile !== undefined) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(secretFile);
    } catch (error) {
      throw new KmsConfigError(
        `${AUTH_PREFIX}signature.secret.file`,
        `cannot read the signature secret file ${secretFile}: ${(error as Error).message}`,
      );
    }
    if (bytes.length === 0)
      throw withDataDir.invalid(`${AUTH_PREFIX}signature.secret.file`, `${secretFile} is empty`);
    signatureSecret = new Redacted(bytes);
  } else if (inlineSecret !== undefined && inlineSecret !== '') {
    signatureSecret = new Redacted(Buffer.from(inlineSecret, 'utf8'));
  } else if (signerProvider !== 'random') {
    throw withDataDir.invalid(
      `${AUTH_PREFIX}signer.secret.provider`,
      `"${signerProvider}" needs a signature secret or secret file`,
    );
  }

  const zkEnabled = bool(`${ZK_DT_PREFIX}enable`);
  let zookeeper: Omit<ZkTokenStoreSettings, 'sasl'> | undefined;
  let zookeeperSaslInput: Omit<ZkSaslSettingsInput, 'env'> | undefined;
  if (zkEnabled) {
    const connectionString = withDataDir.getTrimmed(`${ZK_DT_PREFIX}zkConnectionString`);
    if (connectionString === undefined) {
      throw new KmsConfigError(
        `${ZK_DT_PREFIX}zkConnectionString`,
        `${ZK_DT_PREFIX}zkConnectionString is required when ${ZK_DT_PREFIX}enable is true`,
      );
    }
    const zkAuthType = oneOf<'none' | 'sasl'>(`${ZK_DT_PREFIX}zkAuthType`);
    zookeeperSaslInput =
      zkAuthType === 'sasl' ? zkSaslInput(ZK_DT_PREFIX, `${ZK_DT_PREFIX}zkAuthType`) : undefined;
    const workingPath = text(`${ZK_DT_PREFIX}znodeWorkingPath`);
    if (!/^\/*[^/\s]+(\/[^/\s]+)*\/*$/.test(workingPath)) {
      throw withDataDir.invalid(
        `${ZK_DT_PREFIX}znodeWorkingPath`,
        `not a znode path: ${JSON.stringify(workingPath)}`,
      );
    }
    zookeeper = {
      connectionString,
      znodeWorkingPath: workingPath,
      sessionTimeoutMs: int(`${ZK_DT_PREFIX}zkSessionTimeout`),
      connectionTimeoutMs: int(`${ZK_DT_PREFIX}zkConnectionTimeout`),
      numRetries: int(`${ZK_DT_PREFIX}zkNumRetries`),
      seqNumBatchSize: int(`${ZK_DT_PREFIX}token.seqnum.batch.size`),
      tokenWatcherEnabled: bool(`${ZK_DT_PREFIX}token.watcher.enabled`),
      persistCoalescing: bool('fastpath.kms.token.persist.coalescing'),
    };
  }

  const workers = int('fastpath.kms.workers');
  if (workers > 1 && zookeeper === undefined) {
    throw new KmsConfigError(
      `${ZK_DT_PREFIX}enable`,
      `${workers} workers need the ZooKeeper token store: set ${ZK_DT_PREFIX}enable=true and ${ZK_DT_PREFIX}zkConnectionString ` +
        '(in-memory tokens issued by one worker would be unknown to the others)',
    );
  }

  const proxyUserProperties = new Map<string, string>();
  for (const key of withDataDir.keys()) {
    if (!key.startsWith('hadoop.kms.proxyuser.')) continue;
    if (!/^hadoop\.kms\.proxyuser\..+\.(users|groups|hosts)$/.test(key)) {
      throw withDataDir.invalid(key, 'expected hadoop.kms.proxyuser.<user>.users, .groups or .hosts');
    }
    proxyUserProperties.set(key, withDataDir.get(key) ?? '');
  }

  // Last among the checks: it reads the keytab, and a settings mistake is the one to report first.
  const kerberos =
    authType === 'kerberos'
      ? resolveKerberosSettings({
          keytab: path(`${AUTH_PREFIX}kerberos.keytab`),
          principal: text(`${AUTH_PREFIX}kerberos.principal`),
          nameRules: text(`${AUTH_PREFIX}kerberos.name.rules`),
          nameRulesMechanism: oneOf<'hadoop' | 'mit'>(`${AUTH_PREFIX}kerberos.name.rules.mechanism`),
          endpointWhitelist: text(`${AUTH_PREFIX}kerberos.endpoint.whitelist`),
          env: options.env ?? process.env,
        })
      : undefined;
  const zkSasl = (input: Omit<ZkSaslSettingsInput, 'env'> | undefined): ZkSaslSettings | undefined =>
    input === undefined ? undefined : resolveZkSaslSettings({ ...input, env: options.env ?? process.env });
  const zookeeperSigner: ZkSignerSettings | undefined =
    zookeeperSignerInput === undefined
      ? undefined
      : Object.freeze({ ...zookeeperSignerInput.settings, sasl: zkSasl(zookeeperSignerInput.saslInput) });
  const zookeeperTokens: ZkTokenStoreSettings | undefined =
    zookeeper === undefined ? undefined : Object.freeze({ ...zookeeper, sasl: zkSasl(zookeeperSaslInput) });

  const sec = (key: string): number => int(key) * 1000;
  const keystoreFile = path('fastpath.kms.keystore.file');
  const auditFile = path('fastpath.kms.audit.log.file');
  if (keystoreFile === undefined)
    throw withDataDir.invalid('fastpath.kms.keystore.file', 'must not be empty');
  if (auditFile === undefined) throw withDataDir.invalid('fastpath.kms.audit.log.file', 'must not be empty');

  const maxHeaderBytes = int('fastpath.kms.http.max.header.bytes');
  const keyNameMaxBytes = int('fastpath.kms.key.name.max.bytes');
  // A key name is percent-encoded in URLs (three characters per byte at worst); the request line
  // must still fit under the header limit with room for the rest of the request's headers.
  if (3 * keyNameMaxBytes + KEY_URL_HEADROOM_BYTES > maxHeaderBytes) {
    throw withDataDir.invalid(
      'fastpath.kms.key.name.max.bytes',
      `a name of ${keyNameMaxBytes} bytes percent-encodes to up to ${3 * keyNameMaxBytes} characters, ` +
        `which with ${KEY_URL_HEADROOM_BYTES} bytes for the rest of a request exceeds fastpath.kms.http.max.header.bytes ` +
        `(${maxHeaderBytes}): lower it to at most ${Math.floor((maxHeaderBytes - KEY_URL_HEADROOM_BYTES) / 3)} or raise the header limit`,
    );
  }

  return Object.freeze({
    http: Object.freeze({
      host,
      port: int('hadoop.kms.http.port'),
      tls: certFile !== undefined && keyFile !== undefined ? Object.freeze({ certFile, keyFile }) : undefined,
      maxBodyBytes: int('fastpath.kms.http.max.body.bytes'),
      maxHeaderBytes,
      requestTimeoutMs: int('fastpath.kms.http.request.timeout.ms'),
      keepAliveTimeoutMs: int('fastpath.kms.http.keepalive.timeout.ms'),
      shutdownTimeoutMs: int('fastpath.kms.shutdown.timeout.ms'),
    }),
    workers,
    dataDir,
    keystore: Object.freeze({
      file: keystoreFile,
      passwordFile: path('fastpath.kms.keystore.password.file'),
    }),
    keys: Object.freeze({
      defaultCipher: cipher,
      defaultBitLength: bitLength,
      authorizationEnabled: bool('hadoop.kms.key.authorization.enable'),
      maxEekPerRequest: int('fastpath.kms.eek.max.keys.per.request'),
    }),
    limits: Object.freeze({
      keyNameMaxBytes,
      userNameMaxBytes: int('fastpath.kms.user.name.max.bytes'),
      descriptionMaxBytes: int('fastpath.kms.key.description.max.bytes'),
      attributesMaxCount: int('fastpath.kms.key.attributes.max.count'),
      attributeMaxBytes: int('fastpath.kms.key.attribute.max.bytes'),
    }),
    acls: Object.freeze({ reloadIntervalMs: int('fastpath.kms.acls.reload.interval.ms') }),
    groups: Object.freeze({
      staticMapping: parseStaticMapping(withDataDir),
      mapping: groupMapping,
      cacheMs: int('fastpath.kms.group.cache.ms'),
    }),
    audit: Object.freeze({
      file: auditFile,
      aggregationWindowMs: int('hadoop.kms.audit.aggregation.window.ms'),
    }),
    auth: Object.freeze({
      type: authType,
      kerberos,
      anonymousAllowed: bool(`${AUTH_PREFIX}simple.anonymous.allowed`),
      tokenValiditySec: int(`${AUTH_PREFIX}token.validity`),
      maxInactiveSec: int(`${AUTH_PREFIX}token.max-inactive-interval`),
      signatureSecret,
      zookeeperSigner,
      cookieDomain: withDataDir.getTrimmed(`${AUTH_PREFIX}cookie.domain`),
      cookiePath: withDataDir.getTrimmed(`${AUTH_PREFIX}cookie.path`),
      cookiePersistent: bool(`${AUTH_PREFIX}cookie.persistent`),
    }),
    tokens: Object.freeze({
      updateIntervalMs: sec(`${AUTH_PREFIX}delegation-token.update-interval.sec`),
      maxLifetimeMs: sec(`${AUTH_PREFIX}delegation-token.max-lifetime.sec`),
      renewIntervalMs: sec(`${AUTH_PREFIX}delegation-token.renew-interval.sec`),
      removalScanIntervalMs: sec(`${AUTH_PREFIX}delegation-token.removal-scan-interval.sec`),
      creationLocking: oneOf<'staged' | 'global'>('fastpath.kms.token.creation.locking'),
      zookeeper: zookeeperTokens,
    }),
    proxyUserProperties,
    warnings: Object.freeze(warnings),
  });
}

/** Hadoop's `hadoop.user.group.static.mapping.overrides`: `user1=group1,group2;user2=;`. */
function parseStaticMapping(conf: HadoopConfiguration): Map<string, string[]> {
  const key = 'hadoop.user.group.static.mapping.overrides';
  const raw = conf.get(key) ?? '';
  const mapping = new Map<string, string[]>();
  for (const part of raw.split(';')) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    if (eq <= 0) throw conf.invalid(key, `expected user=group1,group2;…, got ${JSON.stringify(part)}`);
    const user = part.slice(0, eq).trim();
    const groups = part
      .slice(eq + 1)
      .split(',')
      .map((g) => g.trim())
      .filter((g) => g !== '');
    mapping.set(user, groups);
  }
  return mapping;
}
