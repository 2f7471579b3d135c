// The one table of the server's settings. Defaults, parsers, units, flags, environment variables
// and the words of the documentation come from here: KMS_PROPERTY_DEFAULTS, the settings reader,
// the command line's flags and --help, and (checked by a test) the tables of docs/kms.md.

/** Prefix of the authentication filter's settings in `kms-site.xml` (Hadoop's). */
export const AUTH_PREFIX = 'hadoop.kms.authentication.';
/** Prefix of the ZooKeeper token store's settings (Hadoop's). */
export const ZK_DT_PREFIX = `${AUTH_PREFIX}zk-dt-secret-manager.`;
/** Prefix of the ZooKeeper signer secret provider's settings (Hadoop's `ZKSignerSecretProvider`). */
export const ZK_SIGNER_PREFIX = `${AUTH_PREFIX}signer.secret.provider.zookeeper.`;

/** How a value is read. */
export type SettingParser =
  | { readonly type: 'int'; readonly min: number; readonly max: number }
  | { readonly type: 'bool' }
  | { readonly type: 'oneOf'; readonly values: readonly string[] }
  | { readonly type: 'string' }
  | { readonly type: 'path' };

/** One setting: a `kms-site.xml` property with everything known about it. */
export interface KmsSettingRow {
  readonly key: string;
  /** The default as the configuration holds it; `''` for none. */
  readonly default: string;
  readonly parser: SettingParser;
  /** The unit of a number (`ms`, `s`, `bytes`), when it has one. */
  readonly unit?: 'ms' | 's' | 'bytes';
  /** How the default reads in the documentation, when not the raw value (`none`, `~/.fastpath-kms`). */
  readonly shownDefault?: string;
  /** What it means, in the documentation's words. */
  readonly doc: string;
  /** The command-line flag that sets it. */
  readonly flag?: { readonly name: string; readonly value: string; readonly help: string };
  /** The environment variable that sets it. */
  readonly env?: string;
}

const int = (min: number, max: number): SettingParser => ({ type: 'int', min, max });
const bool: SettingParser = { type: 'bool' };
const string: SettingParser = { type: 'string' };
const path: SettingParser = { type: 'path' };
const oneOf = (...values: string[]): SettingParser => ({ type: 'oneOf', values });
const HOUR_MS = 3_600_000;
const CENTURY_SEC = 100 * 365 * 86_400;

/**
 * Every `kms-site.xml` property the server reads: Hadoop's names and defaults where Hadoop has
 * the setting, `fastpath.kms.*` for this server's own. `${…}` references in defaults are
 * substituted when read.
 */
export const KMS_SETTINGS: readonly KmsSettingRow[] = Object.freeze([
  // HTTP
  {
    key: 'hadoop.kms.http.port',
    default: '9600',
    parser: int(0, 65535),
    doc: 'listen port (`0` = any free port)',
    flag: { name: 'port', value: '<n>', help: 'listen port (default 9600; 0 = any free port)' },
    env: 'FASTPATH_KMS_PORT',
  },
  {
    key: 'hadoop.kms.http.host',
    default: '0.0.0.0',
    parser: string,
    doc: 'listen address',
    flag: { name: 'host', value: '<address>', help: 'listen address (default 0.0.0.0)' },
    env: 'FASTPATH_KMS_HOST',
  },
  {
    key: 'hadoop.kms.ssl.enabled',
    default: 'false',
    parser: bool,
    doc: 'serve HTTPS; needs the two PEM files below',
  },
  {
    key: 'fastpath.kms.ssl.certificate.file',
    default: '',
    parser: path,
    doc: 'PEM certificate (chain); setting it with the key enables TLS',
    flag: {
      name: 'tls-cert',
      value: '<pem>',
      help: 'PEM certificate (chain) file: serve HTTPS, with --tls-key',
    },
    env: 'FASTPATH_KMS_TLS_CERT',
  },
  {
    key: 'fastpath.kms.ssl.private.key.file',
    default: '',
    parser: path,
    doc: 'PEM private key',
    flag: { name: 'tls-key', value: '<pem>', help: 'PEM private key file' },
    env: 'FASTPATH_KMS_TLS_KEY',
  },
  {
    key: 'fastpath.kms.http.max.body.bytes',
    default: String(8 * 1024 * 1024),
    parser: int(1024, 1024 * 1024 * 1024),
    unit: 'bytes',
    doc: 'largest request body (413 beyond)',
  },
  {
    key: 'fastpath.kms.http.max.header.bytes',
    default: String(16 * 1024),
    parser: int(1024, 1024 * 1024),
    unit: 'bytes',
    doc: 'largest request line plus headers (431 beyond)',
  },
  {
    key: 'fastpath.kms.http.request.timeout.ms',
    default: '60000',
    parser: int(0, HOUR_MS),
    unit: 'ms',
    doc: 'time allowed to receive a whole request (0 = none)',
  },
  {
    key: 'fastpath.kms.http.keepalive.timeout.ms',
    default: '72000',
    parser: int(0, HOUR_MS),
    unit: 'ms',
    doc: 'idle keep-alive connection lifetime',
  },
  {
    key: 'fastpath.kms.shutdown.timeout.ms',
    default: '30000',
    parser: int(0, HOUR_MS),
    unit: 'ms',
    doc: 'how long a shutdown waits for requests in progress',
  },
  {
    key: 'fastpath.kms.workers',
    default: '1',
    parser: int(1, 256),
    doc: 'processes sharing the port; more than 1 needs the ZooKeeper token store',
    flag: {
      name: 'workers',
      value: '<n>',
      help: 'processes sharing the port (needs the ZooKeeper token store), default 1',
    },
    env: 'FASTPATH_KMS_WORKERS',
  },
  // Keys and the keystore
  {
    key: 'fastpath.kms.data.dir',
    default: '',
    parser: path,
    shownDefault: '`~/.fastpath-kms`',
    doc: 'data directory (created with mode 0700)',
    flag: {
      name: 'data-dir',
      value: '<dir>',
      help: 'keystore, generated password file, audit log (default ~/.fastpath-kms)',
    },
    env: 'FASTPATH_KMS_DATA_DIR',
  },
  {
    key: 'fastpath.kms.keystore.file',
    default: '${fastpath.kms.data.dir}/kms.keystore',
    parser: path,
    doc: 'the keystore',
    flag: { name: 'keystore-file', value: '<file>', help: 'keystore (default <data-dir>/kms.keystore)' },
  },
  {
    key: 'fastpath.kms.keystore.password.file',
    default: '',
    parser: path,
    doc: 'file holding the keystore password',
    flag: {
      name: 'keystore-password-file',
      value: '<f>',
      help: 'keystore password file (else FASTPATH_KMS_KEYSTORE_PASSWORD, else a generated owner-only file <data-dir>/kms.keystore.password)',
    },
    env: 'FASTPATH_KMS_KEYSTORE_PASSWORD_FILE',
  },
  {
    key: 'hadoop.kms.key.provider.uri',
    default: '',
    parser: string,
    doc: 'ignored (with a warning); keys live in the keystore above',
  },
  {
    key: 'hadoop.security.key.default.cipher',
    default: 'AES/CTR/NoPadding',
    parser: string,
    doc: 'cipher of keys created without one (AES only)',
  },
  {
    key: 'hadoop.security.key.default.bitlength',
    default: '128',
    parser: int(1, 4096),
    doc: 'length of keys created without one (128, 192 or 256)',
  },
  { key: 'hadoop.kms.key.authorization.enable', default: 'true', parser: bool, doc: 'apply key ACLs' },
  {
    key: 'fastpath.kms.eek.max.keys.per.request',
    default: '10000',
    parser: int(1, 1_000_000),
    doc: 'largest `num_keys` of one generate request',
  },
  // Request input limits (KmsInputLimits)
  {
    key: 'fastpath.kms.key.name.max.bytes',
    default: '1024',
    parser: int(1, 1024 * 1024),
    unit: 'bytes',
    doc: 'longest key name, bytes of UTF-8 (see [Request limits](#request-limits))',
  },
  {
    key: 'fastpath.kms.key.description.max.bytes',
    default: '4096',
    parser: int(0, 1024 * 1024),
    unit: 'bytes',
    doc: 'longest key description, bytes of UTF-8',
  },
  {
    key: 'fastpath.kms.key.attributes.max.count',
    default: '64',
    parser: int(0, 10_000),
    doc: 'most attributes of one key',
  },
  {
    key: 'fastpath.kms.key.attribute.max.bytes',
    default: '1024',
    parser: int(1, 1024 * 1024),
    unit: 'bytes',
    doc: 'longest attribute name or value, bytes of UTF-8',
  },
  {
    key: 'fastpath.kms.user.name.max.bytes',
    default: '256',
    parser: int(1, 4096),
    unit: 'bytes',
    doc: 'longest user name in `user.name`, `doas` and `renewer`, bytes of UTF-8',
  },
  // ACLs and users
  {
    key: 'fastpath.kms.acls.reload.interval.ms',
    default: '1000',
    parser: int(10, HOUR_MS),
    unit: 'ms',
    doc: 'how often `kms-acls.xml` is checked for changes',
  },
  {
    key: 'hadoop.user.group.static.mapping.overrides',
    default: 'dr.who=;',
    parser: string,
    doc: 'fixed groups: `user1=g1,g2;user2=;`',
  },
  {
    key: 'fastpath.kms.group.mapping',
    default: 'unix',
    parser: oneOf('unix', 'none'),
    doc: 'other groups: `unix` (`/etc/passwd`, `/etc/group`) or `none`',
  },
  {
    key: 'fastpath.kms.group.cache.ms',
    default: '300000',
    parser: int(0, 86_400_000),
    unit: 'ms',
    doc: 'how long group files are cached',
  },
  // Audit
  {
    key: 'fastpath.kms.audit.log.file',
    default: '${fastpath.kms.data.dir}/kms-audit.log',
    parser: path,
    doc: 'the audit log (mode 0600, appended to)',
    flag: { name: 'audit-log', value: '<file>', help: 'audit log (default <data-dir>/kms-audit.log)' },
    env: 'FASTPATH_KMS_AUDIT_LOG',
  },
  {
    key: 'hadoop.kms.audit.aggregation.window.ms',
    default: '10000',
    parser: int(1, 86_400_000),
    unit: 'ms',
    doc: 'audit aggregation window',
  },
  // Authentication
  {
    key: `${AUTH_PREFIX}type`,
    default: 'simple',
    parser: oneOf('simple', 'kerberos'),
    doc: '`simple` (`user.name`) or `kerberos` (SPNEGO; see [Kerberos](#kerberos))',
  },
  {
    key: `${AUTH_PREFIX}simple.anonymous.allowed`,
    default: 'false',
    parser: bool,
    doc: 'if true, a request without identity acts as `dr.who` (simple mode)',
  },
  {
    key: `${AUTH_PREFIX}kerberos.keytab`,
    default: '',
    parser: path,
    shownDefault: '`~/kms.keytab`',
    doc: 'keytab holding the `HTTP/` service principal(s) (Kerberos mode)',
  },
  {
    key: `${AUTH_PREFIX}kerberos.principal`,
    default: 'HTTP/localhost',
    parser: string,
    doc: '`HTTP/<host>[@REALM]` the server accepts tickets for, or `*`: every `HTTP/` principal of the keytab',
  },
  {
    key: `${AUTH_PREFIX}kerberos.name.rules`,
    default: 'DEFAULT',
    parser: string,
    doc: "`auth_to_local` rules mapping a client principal to its short name (Hadoop's syntax)",
  },
  {
    key: `${AUTH_PREFIX}kerberos.name.rules.mechanism`,
    default: 'hadoop',
    parser: oneOf('hadoop', 'mit'),
    doc: '`hadoop`: a principal no rule maps is refused; `mit`: it keeps its full name',
  },
  {
    key: `${AUTH_PREFIX}kerberos.endpoint.whitelist`,
    default: '',
    parser: string,
    doc: "paths that skip Kerberos, as Hadoop's handler lists them (`/jmx, /prom`); `/health`, `/build-info`, `/metrics` skip it anyway, `/kms` is refused (see [Kerberos](#kerberos))",
  },
  {
    key: `${AUTH_PREFIX}token.validity`,
    default: '36000',
    parser: int(1, CENTURY_SEC),
    unit: 's',
    doc: "`hadoop.auth` cookie lifetime, seconds (and the `random` secret's rollover interval)",
  },
  {
    key: `${AUTH_PREFIX}token.max-inactive-interval`,
    default: '-1',
    parser: int(-1, CENTURY_SEC),
    unit: 's',
    doc: 'a cookie unused this long expires; renewed on each use (`-1` = no limit)',
  },
  {
    key: `${AUTH_PREFIX}signer.secret.provider`,
    default: 'random',
    parser: oneOf('random', 'string', 'file', 'zookeeper'),
    doc: '`random` (rolled every `token.validity`), `string`, `file`, or `zookeeper` (shared by a fleet, rolled every `token.validity`)',
  },
  {
    key: `${ZK_SIGNER_PREFIX}connection.string`,
    default: '',
    parser: string,
    doc: 'ZooKeeper servers (`host:port,…`) of the `zookeeper` provider; required with it',
  },
  {
    key: `${ZK_SIGNER_PREFIX}path`,
    default: '/hadoop-kms/hadoop-auth-signature-secret',
    parser: string,
    doc: "znode holding the fleet's secrets (Hadoop's layout; the same path on every instance)",
  },
  {
    key: `${ZK_SIGNER_PREFIX}auth.type`,
    default: 'none',
    parser: oneOf('none', 'sasl'),
    doc: '`none`, or `sasl`: Kerberos to ZooKeeper from `kerberos.keytab` as `kerberos.principal`, every znode for `sasl:<first component of the principal>` only (see [A fleet](#a-fleet-behind-a-load-balancer))',
  },
  {
    key: `${ZK_SIGNER_PREFIX}kerberos.keytab`,
    default: '',
    parser: path,
    doc: 'keytab the `sasl` client logs in from; required with `sasl`',
  },
  {
    key: `${ZK_SIGNER_PREFIX}kerberos.principal`,
    default: '',
    parser: string,
    doc: "principal the `sasl` client logs in as (`kms/host@REALM`; the realm defaults to krb5.conf's); must be in the keytab; required with `sasl`",
  },
  {
    key: 'fastpath.kms.signer.secret.zookeeper.connection.timeout.ms',
    default: '10000',
    parser: int(1, HOUR_MS),
    unit: 'ms',
    doc: 'bound of one connection attempt and of one ZooKeeper call of the `zookeeper` provider (3 attempts at start)',
  },
  {
    key: 'fastpath.kms.signer.secret.zookeeper.session.timeout.ms',
    default: '30000',
    parser: int(1, HOUR_MS),
    unit: 'ms',
    doc: "session timeout of the `zookeeper` provider's connection",
  },
  { key: `${AUTH_PREFIX}signature.secret`, default: '', parser: string, doc: 'cookie signing secret' },
  {
    key: `${AUTH_PREFIX}signature.secret.file`,
    default: '',
    parser: path,
    doc: "file holding the cookie signing secret (share it between servers so each accepts the others' cookies)",
  },
  {
    key: `${AUTH_PREFIX}cookie.domain`,
    default: '',
    parser: string,
    doc: 'cookie `Domain` (none by default)',
  },
  { key: `${AUTH_PREFIX}cookie.path`, default: '', parser: string, doc: 'cookie `Path` (none by default)' },
  {
    key: `${AUTH_PREFIX}cookie.persistent`,
    default: 'false',
    parser: bool,
    doc: 'write `Expires` on the cookie (else a session cookie)',
  },
  // Delegation tokens
  {
    key: `${AUTH_PREFIX}delegation-token.update-interval.sec`,
    default: '86400',
    parser: int(1, CENTURY_SEC),
    unit: 's',
    doc: 'master key roll interval',
  },
  {
    key: `${AUTH_PREFIX}delegation-token.max-lifetime.sec`,
    default: '604800',
    parser: int(1, CENTURY_SEC),
    unit: 's',
    doc: 'token maximum lifetime',
  },
  {
    key: `${AUTH_PREFIX}delegation-token.renew-interval.sec`,
    default: '86400',
    parser: int(1, CENTURY_SEC),
    unit: 's',
    doc: 'token renewal interval',
  },
  {
    key: `${AUTH_PREFIX}delegation-token.removal-scan-interval.sec`,
    default: '3600',
    parser: int(1, CENTURY_SEC),
    unit: 's',
    doc: 'expired-token scan interval',
  },
  {
    key: 'fastpath.kms.token.creation.locking',
    default: 'staged',
    parser: oneOf('staged', 'global'),
    doc: '`staged` (HADOOP-20045) or `global` (the behaviour before it)',
  },
  // ZooKeeper token store
  { key: `${ZK_DT_PREFIX}enable`, default: 'false', parser: bool, doc: 'keep tokens in ZooKeeper' },
  { key: `${ZK_DT_PREFIX}zkConnectionString`, default: '', parser: string, doc: 'required when enabled' },
  {
    key: `${ZK_DT_PREFIX}znodeWorkingPath`,
    default: 'zkdtsm',
    parser: string,
    doc: "tree `/<path>/ZKDTSMRoot/…` (Hadoop's layout)",
  },
  {
    key: `${ZK_DT_PREFIX}zkAuthType`,
    default: 'none',
    parser: oneOf('none', 'sasl'),
    doc: '`none`, or `sasl`: Kerberos to ZooKeeper from `kerberos.keytab` as `kerberos.principal`, every znode for `sasl:<first component of the principal>` only',
  },
  {
    key: `${ZK_DT_PREFIX}kerberos.keytab`,
    default: '',
    parser: path,
    doc: 'keytab the `sasl` client logs in from; required with `sasl`',
  },
  {
    key: `${ZK_DT_PREFIX}kerberos.principal`,
    default: '',
    parser: string,
    doc: 'principal the `sasl` client logs in as; must be in the keytab; required with `sasl`',
  },
  {
    key: 'fastpath.kms.zookeeper.sasl.client.username',
    default: 'zookeeper',
    parser: string,
    doc: "service part of the ZooKeeper servers' principal `<name>/<host>@REALM`, both `sasl` clients (Java's system property `zookeeper.sasl.client.username`)",
  },
  {
    key: `${ZK_DT_PREFIX}zkSessionTimeout`,
    default: '10000',
    parser: int(1, HOUR_MS),
    unit: 'ms',
    doc: 'ZooKeeper session timeout',
  },
  {
    key: `${ZK_DT_PREFIX}zkConnectionTimeout`,
    default: '10000',
    parser: int(1, HOUR_MS),
    unit: 'ms',
    doc: 'ZooKeeper connection timeout',
  },
  {
    key: `${ZK_DT_PREFIX}zkNumRetries`,
    default: '3',
    parser: int(0, 1000),
    doc: 'connection attempts at start',
  },
  {
    key: `${ZK_DT_PREFIX}token.seqnum.batch.size`,
    default: '100',
    parser: int(1, 1_000_000),
    doc: 'sequence numbers reserved per compare-and-set',
  },
  {
    key: `${ZK_DT_PREFIX}token.watcher.enabled`,
    default: 'true',
    parser: bool,
    doc: 'keep the token cache current through watches',
  },
  {
    key: 'fastpath.kms.token.persist.coalescing',
    default: 'true',
    parser: bool,
    doc: 'write tokens created together in one ZooKeeper multi-operation',
  },
] satisfies KmsSettingRow[]);

/** Environment variables that set no property: the command line reads them itself. */
export const KMS_EDGE_ENVIRONMENT: Readonly<Record<string, string>> = Object.freeze({
  FASTPATH_KMS_CONFIG_DIR: 'the configuration directory',
  FASTPATH_KMS_KEYSTORE_PASSWORD: 'the keystore password itself',
  FASTPATH_KMS_KEYSTORE_NEW_PASSWORD: 'the new password of `keystore rekey`',
  FASTPATH_KMS_LOG_LEVEL: 'the request log level (`silent` by default)',
  FASTPATH_KMS_CLUSTER_WORKER: 'set by the cluster primary in the environment of its workers (not for users)',
});

const BY_KEY: ReadonlyMap<string, KmsSettingRow> = new Map(KMS_SETTINGS.map((row) => [row.key, row]));

/** The row of `key`; a key not in the table is a bug of the caller. */
export function settingRow(key: string): KmsSettingRow {
  const row = BY_KEY.get(key);
  if (row === undefined) throw new Error(`${key} is not in KMS_SETTINGS`);
  return row;
}
