/** Prefix of the authentication filter's settings in `kms-site.xml` (Hadoop's). */
export const AUTH_PREFIX = 'hadoop.kms.authentication.';
/** Prefix of the ZooKeeper token store's settings (Hadoop's). */
export const ZK_DT_PREFIX = `${AUTH_PREFIX}zk-dt-secret-manager.`;

/**
 * Every `kms-site.xml` property the server reads, with its default: Hadoop's names and values
 * where Hadoop has the setting, `fastpath.kms.*` for this server's own. `${fastpath.kms.data.dir}`
 * and other `${…}` references are substituted when read. Units are in the names (`.sec`, `.ms`,
 * `.bytes`) as in Hadoop.
 *
 * @example
 * ```ts
 * KMS_PROPERTY_DEFAULTS['hadoop.kms.http.port']; // '9600'
 * ```
 */
export const KMS_PROPERTY_DEFAULTS: Readonly<Record<string, string>> = Object.freeze({
  // HTTP
  'hadoop.kms.http.port': '9600',
  'hadoop.kms.http.host': '0.0.0.0',
  'hadoop.kms.ssl.enabled': 'false',
  'fastpath.kms.ssl.certificate.file': '',
  'fastpath.kms.ssl.private.key.file': '',
  'fastpath.kms.http.max.body.bytes': String(8 * 1024 * 1024),
  'fastpath.kms.http.max.header.bytes': String(16 * 1024),
  'fastpath.kms.http.request.timeout.ms': '60000',
  'fastpath.kms.http.keepalive.timeout.ms': '72000',
  'fastpath.kms.shutdown.timeout.ms': '30000',
  'fastpath.kms.workers': '1',
  // Keys and the keystore
  'fastpath.kms.data.dir': '',
  'fastpath.kms.keystore.file': '${fastpath.kms.data.dir}/kms.keystore',
  'fastpath.kms.keystore.password.file': '',
  'hadoop.kms.key.provider.uri': '',
  'hadoop.security.key.default.cipher': 'AES/CTR/NoPadding',
  'hadoop.security.key.default.bitlength': '128',
  'hadoop.kms.key.authorization.enable': 'true',
  'fastpath.kms.eek.max.keys.per.request': '10000',
  // Request input limits (see KmsInputLimits)
  'fastpath.kms.key.name.max.bytes': '1024',
  'fastpath.kms.key.description.max.bytes': '4096',
  'fastpath.kms.key.attributes.max.count': '64',
  'fastpath.kms.key.attribute.max.bytes': '1024',
  'fastpath.kms.user.name.max.bytes': '256',
  // ACLs and users
  'fastpath.kms.acls.reload.interval.ms': '1000',
  'hadoop.user.group.static.mapping.overrides': 'dr.who=;',
  'fastpath.kms.group.mapping': 'unix',
  'fastpath.kms.group.cache.ms': '300000',
  // Audit
  'fastpath.kms.audit.log.file': '${fastpath.kms.data.dir}/kms-audit.log',
  'hadoop.kms.audit.aggregation.window.ms': '10000',
  // Authentication
  [`${AUTH_PREFIX}type`]: 'simple',
  [`${AUTH_PREFIX}simple.anonymous.allowed`]: 'false',
  [`${AUTH_PREFIX}token.validity`]: '36000',
  [`${AUTH_PREFIX}signer.secret.provider`]: 'random',
  [`${AUTH_PREFIX}signature.secret`]: '',
  [`${AUTH_PREFIX}signature.secret.file`]: '',
  [`${AUTH_PREFIX}cookie.domain`]: '',
  [`${AUTH_PREFIX}cookie.path`]: '/',
  // Delegation tokens
  [`${AUTH_PREFIX}delegation-token.update-interval.sec`]: '86400',
  [`${AUTH_PREFIX}delegation-token.max-lifetime.sec`]: '604800',
  [`${AUTH_PREFIX}delegation-token.renew-interval.sec`]: '86400',
  [`${AUTH_PREFIX}delegation-token.removal-scan-interval.sec`]: '3600',
  'fastpath.kms.token.creation.locking': 'staged',
  // ZooKeeper token store
  [`${ZK_DT_PREFIX}enable`]: 'false',
  [`${ZK_DT_PREFIX}zkConnectionString`]: '',
  [`${ZK_DT_PREFIX}znodeWorkingPath`]: 'zkdtsm',
  [`${ZK_DT_PREFIX}zkAuthType`]: 'none',
  [`${ZK_DT_PREFIX}zkSessionTimeout`]: '10000',
  [`${ZK_DT_PREFIX}zkConnectionTimeout`]: '10000',
  [`${ZK_DT_PREFIX}zkNumRetries`]: '3',
  [`${ZK_DT_PREFIX}zkShutdownTimeout`]: '10000',
  [`${ZK_DT_PREFIX}token.seqnum.batch.size`]: '100',
  [`${ZK_DT_PREFIX}token.watcher.enabled`]: 'true',
  'fastpath.kms.token.persist.coalescing': 'true',
});

/** Environment variables the command line reads, and the property each one sets. */
export const KMS_ENVIRONMENT_VARIABLES: Readonly<Record<string, string>> = Object.freeze({
  FASTPATH_KMS_PORT: 'hadoop.kms.http.port',
  FASTPATH_KMS_HOST: 'hadoop.kms.http.host',
  FASTPATH_KMS_DATA_DIR: 'fastpath.kms.data.dir',
  FASTPATH_KMS_WORKERS: 'fastpath.kms.workers',
  FASTPATH_KMS_KEYSTORE_PASSWORD_FILE: 'fastpath.kms.keystore.password.file',
  FASTPATH_KMS_AUDIT_LOG: 'fastpath.kms.audit.log.file',
  FASTPATH_KMS_TLS_CERT: 'fastpath.kms.ssl.certificate.file',
  FASTPATH_KMS_TLS_KEY: 'fastpath.kms.ssl.private.key.file',
});
