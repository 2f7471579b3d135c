import cluster from 'node:cluster';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rmdir, unlink } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { MetricsRegistry, Redacted, type Clock } from '@fastpath/core';
import { AclsReloader } from './internal/acl/acls-reloader.js';
import { GroupResolver } from './internal/acl/group-resolver.js';
import { KmsAudit } from './internal/audit/kms-audit.js';
import { AuthCookie, KERBEROS_AUTH_TYPE, SIMPLE_AUTH_TYPE } from './internal/auth/auth-cookie.js';
import { SignerSecrets, type SignerSecretSource } from './internal/auth/signer-secrets.js';
import { ZkSignerSecrets } from './internal/auth/zk-signer-secrets.js';
import { KmsAuthenticator } from './internal/auth/kms-authenticator.js';
import { ProxyUsers } from './internal/auth/proxy-users.js';
import {
  createTokenService,
  type TokenService,
  type TokenServiceInfo,
} from './internal/auth/token-service.js';
import type { KmsSettings } from './internal/config/kms-settings.js';
import type { KerberosSettings } from './internal/kerberos/kerberos-settings.js';
import {
  KerberosNameRules,
  KerberosUnavailableError,
  loadKerberos,
  type KerberosModule,
} from '@fastpath/hadoop-common';
import { KmsKerberosError } from './kms-errors.js';
import { SpnegoAcceptor } from './internal/kerberos/spnego-acceptor.js';
import { KMS_ACLS_FILE, loadKmsSettings, type SettingsLayer } from './internal/config/load-kms-settings.js';
import { buildKmsApp } from './internal/http/kms-app.js';
import { listenError } from './internal/http/listen-error.js';
import { KmsInput } from './internal/operations/kms-input.js';
import { KmsMetrics } from './internal/http/kms-metrics.js';
import { KmsOperations } from './internal/operations/kms-operations.js';
import { TokenOperations } from './internal/operations/token-operations.js';
import { KmsConfigError } from './kms-errors.js';
import { SILENT_LOGGER, type KmsLogger } from './internal/kms-logger.js';
import { KeyProvider } from './internal/keys/key-provider.js';
import { FileKeyStore, type KeyStore } from './internal/keystore/file-key-store.js';
import type { ScryptParams } from './internal/keystore/keystore-file.js';
import { GENERATED_PASSWORD_FILE, resolveKeystorePassword } from './internal/keystore/keystore-password.js';
import { KMS_SERVER_NAME, KMS_SERVER_VERSION } from './internal/version.js';

/** Options of {@link createKmsServer}. Every field is optional: the defaults give a working KMS. */
export interface KmsServerOptions {
  /** Address to listen on (`hadoop.kms.http.host`). Default: `0.0.0.0`. */
  host?: string;
  /** Port (`hadoop.kms.http.port`); 0 picks a free one. Default: 9600. */
  port?: number;
  /** Directory holding `kms-site.xml` and `kms-acls.xml` (both optional). Default: none. */
  configDir?: string;
  /** Data directory: keystore, generated password file, audit log (`fastpath.kms.data.dir`). Default: `~/.fastpath-kms`. */
  dataDir?: string;
  /** `kms-site.xml` properties given directly, on top of the file. Default: none. */
  site?: Readonly<Record<string, string>>;
  /** `kms-acls.xml` properties given directly; when set, the file is not read (nor reloaded). Default: none. */
  acls?: Readonly<Record<string, string>>;
  /** The keystore password. Default: from `keystorePasswordFile`, else the generated password file. */
  keystorePassword?: string | Redacted<string>;
  /** File holding the keystore password (`fastpath.kms.keystore.password.file`). Default: none. */
  keystorePasswordFile?: string;
  /** PEM certificate and key files: serve HTTPS. Default: plain HTTP. */
  tls?: {
    /** PEM certificate (chain) file (`fastpath.kms.ssl.certificate.file`); read at build time. */
    certFile: string;
    /** PEM private key file (`fastpath.kms.ssl.private.key.file`); read at build time. */
    keyFile: string;
  };
  /** The cookie signing secret, when not configured in `kms-site.xml`. Default: random per server. */
  signatureSecret?: Redacted<Buffer>;
  /** Messages of the server (start, warnings, reloads). Default: silent. */
  logger?: KmsLogger;
  /** pino level of Fastify's request log. Default: `'silent'`. */
  requestLogLevel?: 'silent' | 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
  /** Environment for `${env.NAME}` in configuration files. Default: `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Clock of token lifetimes, cookies and audit windows (tests). Default: the system clock. */
  clock?: Clock;
  /** Metrics registry. Default: a new one with process metrics. */
  metrics?: MetricsRegistry;
  /** scrypt cost of a keystore created now (tests use a cheap one). Default: N=2^15, r=8, p=1. */
  scrypt?: ScryptParams;
}

/** What `/build-info` reports: the benchmark checks the token manager and its locking before measuring. */
export interface KmsBuildInfo {
  /** The package name, `@fastpath/kms-server`. */
  readonly name: string;
  /** The package version, e.g. `0.2.0` (what `fastpath-kms --version` prints). */
  readonly version: string;
  /** The Node.js version running the server (`process.version`, e.g. `v22.12.0`). */
  readonly node: string;
  /** Id of the process answering (a worker's own pid in cluster mode). */
  readonly pid: number;
  /** Worker id in cluster mode, else `null`. */
  readonly worker: number | null;
  /** Processes sharing the port (`fastpath.kms.workers`); 1 without a cluster. */
  readonly workers: number;
  /** Which secret manager backs delegation tokens and how its creation is locked. */
  readonly tokenManager: TokenServiceInfo;
  /** The keystore this process serves keys from. */
  readonly keystore: {
    /** The keystore file, absolute (`fastpath.kms.keystore.file`). */
    readonly file: string;
    /**
     * `true` in a cluster worker: it serves a copy kept current by the primary process, the only
     * one that opens the file.
     */
    readonly replica: boolean;
  };
  /** Whether the server answers over HTTPS. */
  readonly tls: boolean;
  /** When this process built the server, ISO 8601 in UTC (e.g. `2026-01-02T03:04:05.678Z`). */
  readonly startedAt: string;
}

/** A KMS server, built and ready to listen. */
export interface KmsServer extends AsyncDisposable {
  /** The Fastify application (route tests use `app.inject`). */
  readonly app: FastifyInstance;
  /** The settings it runs with: defaults, `kms-site.xml`, `site` and the options, resolved and checked. */
  readonly settings: KmsSettings;
  /** Where it listens, once {@link KmsServer.listen} resolved. */
  readonly address:
    | {
        /** The bound address as the socket reports it (e.g. `127.0.0.1`, `::`). */
        host: string;
        /** The bound port: the chosen one when the setting was 0. */
        port: number;
      }
    | undefined;
  /** `http(s)://host:port` once listening. */
  readonly url: string | undefined;
  /** What `GET /build-info` answers; fixed when the server is built. */
  readonly buildInfo: KmsBuildInfo;
  /** The metrics registry. */
  readonly metrics: MetricsRegistry;
  /**
   * Starts listening; resolves with the base URL (`http://127.0.0.1:9600`). Rejects with
   * `KmsListenError` (`ERR_KMS_LISTEN`) when the address cannot be bound; the server is then
   * closed, and what its start created in the data directory (keystore, password file, audit log,
   * the directory itself) is removed.
   */
  listen(): Promise<string>;
  /**
   * Graceful shutdown: stops accepting, answers 503 to new requests on open connections, lets
   * requests in progress finish (up to `fastpath.kms.shutdown.timeout.ms`), then stops the token
   * manager, waits for any keystore write, and closes the audit log. Idempotent.
   */
  close(): Promise<void>;
}

/** Internal parts a cluster worker supplies instead of the defaults. */
export interface KmsServerInternals {
  keyStore?: KeyStore;
  extraLayers?: readonly SettingsLayer[];
  /** The `/metrics` text, when it comes from elsewhere (a cluster's aggregate). */
  metricsText?: () => Promise<{ contentType: string; body: string }>;
}

function optionLayer(options: KmsServerOptions): SettingsLayer {
  const values: Record<string, string | undefined> = {
    'hadoop.kms.http.host': options.host,
    'hadoop.kms.http.port': options.port === undefined ? undefined : String(options.port),
    'fastpath.kms.data.dir': options.dataDir,
    'fastpath.kms.keystore.password.file': options.keystorePasswordFile,
    'fastpath.kms.ssl.certificate.file': options.tls?.certFile,
    'fastpath.kms.ssl.private.key.file': options.tls?.keyFile,
    'hadoop.kms.ssl.enabled': options.tls === undefined ? undefined : 'true',
  };
  return { source: 'options', values };
}

/**
 * Kerberos mode's acceptor. libkrb5 reads the acceptor keytab from `KRB5_KTNAME`, once per
 * process, so the server sets it to its keytab: one Kerberos keytab per process.
 */
async function createSpnegoAcceptor(kerberos: KerberosSettings, logger: KmsLogger): Promise<SpnegoAcceptor> {
  let module: KerberosModule;
  try {
    module = await loadKerberos();
  } catch (error) {
    if (!(error instanceof KerberosUnavailableError)) throw error;
    throw new KmsKerberosError('hadoop.kms.authentication.type', error.message, { cause: error });
  }
  process.env['KRB5_KTNAME'] = kerberos.keytab;
  logger.info(`Kerberos (SPNEGO) authentication for ${kerberos.acceptedPrincipals.join(', ')}`);
  return new SpnegoAcceptor(module, kerberos, kerberosNameRules(kerberos));
}

/** Kerberos mode's name rules, which the acceptor and the token manager both map names with. */
function kerberosNameRules(kerberos: KerberosSettings): KerberosNameRules {
  return new KerberosNameRules(kerberos.nameRules, {
    mechanism: kerberos.nameRulesMechanism,
    defaultRealm: kerberos.defaultRealm,
  });
}

function readPem(file: string, property: string): Buffer {
  try {
    return readFileSync(file);
  } catch (cause) {
    throw new KmsConfigError(property, `cannot read ${property} ${file}: ${(cause as Error).message}`, {
      cause,
    });
  }
}

/**
 * Builds a Hadoop-KMS-compatible server (REST API v1 under `/kms/v1`): reads the configuration,
 * opens (or creates) the keystore, starts the token manager, and assembles the HTTP application.
 * Call `listen()` to serve and `close()` to stop. Refuses to build with `ERR_KMS_CONFIG` (a bad
 * setting, naming it) or a keystore error (wrong password, tampered file, in use).
 *
 * @example
 * ```ts
 * import { createKmsServer } from '@fastpath/kms-server';
 *
 * await using kms = await createKmsServer({ host: '127.0.0.1', port: 0, dataDir: '/tmp/kms' });
 * const url = await kms.listen();
 * const res = await fetch(`${url}/kms/v1/keys/names?user.name=alice`); // 200 []
 * ```
 */
export function createKmsServer(options: KmsServerOptions = {}): Promise<KmsServer> {
  return startKmsServer(options, {});
}

/** {@link createKmsServer} with internal parts (cluster workers). */
export async function startKmsServer(
  options: KmsServerOptions,
  internals: KmsServerInternals,
): Promise<KmsServer> {
  const logger = options.logger ?? SILENT_LOGGER;
  const layers: SettingsLayer[] = [];
  if (options.site) layers.push({ source: 'options.site', values: options.site });
  layers.push(...(internals.extraLayers ?? []), optionLayer(options));
  const { settings } = loadKmsSettings({
    configDir: options.configDir,
    layers,
    ...(options.env ? { env: options.env } : {}),
  });
  for (const warning of settings.warnings) logger.warn(warning);
  const tlsFiles = settings.http.tls;
  const tls = tlsFiles && {
    cert: readPem(tlsFiles.certFile, 'fastpath.kms.ssl.certificate.file'),
    key: readPem(tlsFiles.keyFile, 'fastpath.kms.ssl.private.key.file'),
  };

  const cleanups: Array<() => Promise<void> | void> = [];
  const cleanup = async (): Promise<void> => {
    for (const fn of cleanups.reverse()) {
      try {
        await fn();
      } catch (error) {
        logger.error('error while stopping', error);
      }
    }
    cleanups.length = 0;
  };

  // What this start creates, so a start that cannot serve (its port is taken) leaves the data
  // directory as it found it. Files first, the directory last.
  const created = [
    settings.keystore.file,
    join(settings.dataDir, GENERATED_PASSWORD_FILE),
    settings.audit.file,
    settings.dataDir,
  ].filter((path) => !existsSync(path));
  const removeCreated = async (): Promise<void> => {
    for (const path of created) {
      await (path === settings.dataDir ? rmdir(path) : unlink(path)).catch(() => undefined);
    }
  };

  try {
    await mkdir(settings.dataDir, { recursive: true, mode: 0o700 });
    const metrics = options.metrics ?? new MetricsRegistry({ processMetrics: true });
    let keyStore = internals.keyStore;
    if (keyStore === undefined) {
      const resolved = await resolveKeystorePassword({
        password: options.keystorePassword === undefined ? undefined : Redacted.of(options.keystorePassword),
        passwordFile: settings.keystore.passwordFile,
        dataDir: settings.dataDir,
        keystoreFile: settings.keystore.file,
      });
      if (resolved.source === 'generated') {
        logger.info(
          `no keystore password was given: created a random one in ${resolved.file} (readable only by its owner); keep it with the keystore`,
        );
      }
      if (resolved.warning) logger.warn(resolved.warning);
      keyStore = await FileKeyStore.open({
        file: settings.keystore.file,
        password: resolved.password,
        metrics,
        ...(options.scrypt ? { scrypt: options.scrypt } : {}),
      });
      logger.info(`keystore ${settings.keystore.file} open: ${keyStore.state.keys.size} keys`);
    }
    const store = keyStore;
    cleanups.push(() => store.close());

    const audit = new KmsAudit({
      file: settings.audit.file,
      aggregationWindowMs: settings.audit.aggregationWindowMs,
      ...(options.clock ? { clock: options.clock } : {}),
    });
    cleanups.push(() => audit.close());

    const aclsFile = options.configDir === undefined ? undefined : join(options.configDir, KMS_ACLS_FILE);
    const acls = new AclsReloader({
      file: aclsFile,
      inline: options.acls,
      intervalMs: settings.acls.reloadIntervalMs,
      ...(options.env ? { env: options.env } : {}),
      onLoad: (loaded, source) => {
        logger.info(`ACLs loaded from ${source}`);
        for (const warning of loaded.warnings) logger.warn(warning);
      },
      onError: (error) =>
        logger.error(`${aclsFile} changed but cannot be loaded; the previous ACLs stay in force`, error),
    });
    acls.start();
    cleanups.push(() => acls.stop());

    const groups = new GroupResolver({
      staticMapping: settings.groups.staticMapping,
      mapping: settings.groups.mapping,
      cacheMs: settings.groups.cacheMs,
      ...(options.clock ? { clock: options.clock } : {}),
    });
    const proxyUsers = await ProxyUsers.fromProperties(settings.proxyUserProperties);
    for (const warning of proxyUsers.warnings) logger.warn(warning);

    const tokens: TokenService = await createTokenService(settings.tokens, {
      ...(settings.auth.kerberos ? { kerberosNameRules: kerberosNameRules(settings.auth.kerberos) } : {}),
      metrics,
      clock: options.clock,
      onBackgroundError: (error) => logger.error('token manager background task failed', error),
    });
    await tokens.start();
    cleanups.push(() => tokens.stop());
    logger.info(
      `delegation tokens: ${tokens.info.implementation} secret manager, creation locking ${tokens.info.creationLocking}` +
        (tokens.info.zookeeper
          ? ` (ZooKeeper ${tokens.info.zookeeper.connectionString}, /${tokens.info.zookeeper.znodeWorkingPath})`
          : ''),
    );

    const rolloverMs = settings.auth.tokenValiditySec * 1000;
    const zkSigner = settings.auth.zookeeperSigner;
    let secrets: SignerSecretSource;
    if (zkSigner !== undefined) {
      const shared = await ZkSignerSecrets.start({
        ...zkSigner,
        rolloverMs,
        metrics,
        logger,
        clock: options.clock,
      });
      cleanups.push(() => shared.close());
      secrets = shared;
    } else {
      const configuredSecret = settings.auth.signatureSecret ?? options.signatureSecret;
      secrets =
        configuredSecret === undefined
          ? SignerSecrets.random({ rolloverMs, clock: options.clock })
          : SignerSecrets.fixed(configuredSecret);
    }
    const cookie = new AuthCookie({
      secrets,
      validityMs: settings.auth.tokenValiditySec * 1000,
      type: settings.auth.type === 'kerberos' ? KERBEROS_AUTH_TYPE : SIMPLE_AUTH_TYPE,
      maxInactiveMs: settings.auth.maxInactiveSec * 1000,
      domain: settings.auth.cookieDomain,
      path: settings.auth.cookiePath,
      persistent: settings.auth.cookiePersistent,
      clock: options.clock,
    });
    const spnego = settings.auth.kerberos && (await createSpnegoAcceptor(settings.auth.kerberos, logger));
    const authenticator = new KmsAuthenticator({
      spnego,
      cookie,
      tokens,
      proxyUsers,
      groups,
      anonymousAllowed: settings.auth.anonymousAllowed,
    });
    const keys = new KeyProvider(store, {
      defaultCipher: settings.keys.defaultCipher,
      defaultBitLength: settings.keys.defaultBitLength,
      ...(options.clock ? { clock: options.clock } : {}),
    });
    cleanups.push(() => keys.random.close());
    const input = new KmsInput(settings.limits);
    const operations = new KmsOperations({
      input,
      keyDefaults: { cipher: settings.keys.defaultCipher, bitLength: settings.keys.defaultBitLength },
      keys,
      acls: () => acls.current,
      audit,
      keyAuthorization: settings.keys.authorizationEnabled,
      maxEekPerRequest: settings.keys.maxEekPerRequest,
    });
    const kmsMetrics = new KmsMetrics(metrics);
    cleanups.push(() => kmsMetrics.close());

    const buildInfo: KmsBuildInfo = Object.freeze({
      name: KMS_SERVER_NAME,
      version: KMS_SERVER_VERSION,
      node: process.version,
      pid: process.pid,
      worker: cluster.isWorker ? (cluster.worker?.id ?? null) : null,
      workers: settings.workers,
      tokenManager: tokens.info,
      keystore: Object.freeze({ file: settings.keystore.file, replica: internals.keyStore !== undefined }),
      tls: tls !== undefined,
      startedAt: new Date().toISOString(),
    });
    metrics
      .gauge('kms_build_info', 'Build and token-manager settings of this server (value 1)', [
        'version',
        'token_manager',
        'creation_locking',
      ])
      .set(
        {
          version: KMS_SERVER_VERSION,
          token_manager: tokens.info.implementation,
          creation_locking: tokens.info.creationLocking,
        },
        1,
      );

    let closing = false;
    let closed: Promise<void> | undefined;
    const startedMs = Date.now();
    const app = buildKmsApp({
      operations,
      tokens: new TokenOperations(tokens),
      input,
      logger,
      authenticator,
      audit,
      metrics: kmsMetrics,
      http: settings.http,
      tls,
      logLevel: options.requestLogLevel ?? 'silent',
      closing: () => closing,
      endpoints: {
        health: () => ({
          status: closing ? 503 : 200,
          body: {
            status: closing ? 'closing' : 'ok',
            keys: store.state.keys.size,
            tokenManager: tokens.info.implementation,
            uptimeMs: Date.now() - startedMs,
          },
        }),
        buildInfo: () => buildInfo,
        metrics:
          internals.metricsText ??
          (async () => ({ contentType: metrics.contentType, body: await metrics.metrics() })),
      },
    });

    let address: { host: string; port: number } | undefined;
    const server: KmsServer = {
      app,
      settings,
      buildInfo,
      metrics,
      get address() {
        return address;
      },
      get url() {
        if (address === undefined) return undefined;
        const host = address.host.includes(':') ? `[${address.host}]` : address.host;
        return `${tls ? 'https' : 'http'}://${host}:${address.port}`;
      },
      async listen() {
        try {
          await app.listen({ host: settings.http.host, port: settings.http.port });
        } catch (error) {
          await server.close();
          if (internals.keyStore === undefined) await removeCreated();
          throw listenError(error, settings.http.host, settings.http.port);
        }
        const info = app.server.address() as AddressInfo;
        address = { host: info.address, port: info.port };
        logger.info(`KMS listening on ${server.url as string}/kms/v1`);
        return server.url as string;
      },
      close() {
        closed ??= (async () => {
          closing = true;
          const timer = setTimeout(() => {
            logger.warn('requests still in progress at the shutdown timeout: closing their connections');
            app.server.closeAllConnections?.();
          }, settings.http.shutdownTimeoutMs);
          timer.unref();
          try {
            await app.close();
          } finally {
            clearTimeout(timer);
          }
          await cleanup();
          logger.info('KMS stopped');
        })();
        return closed;
      },
      [Symbol.asyncDispose]() {
        return server.close();
      },
    };
    return server;
  } catch (error) {
    await cleanup();
    if (internals.keyStore === undefined) await removeCreated();
    throw error;
  }
}
