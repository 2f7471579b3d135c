// The one adapter between the server and @fastpath/token-manager: everything the server needs
// from a secret manager goes through here, so a change in that package's API is fixed in one place.
import { zooKeeperKerberos } from '../kerberos/zookeeper-kerberos.js';
import { FastpathError, type Clock, type LatencySummary, type MetricsRegistry } from '@fastpath/core';
import type { KerberosNameRules } from '@fastpath/hadoop-common';
import {
  AccessControlError,
  DelegationTokenSecretManager,
  InvalidTokenError,
  type CreationLocking,
  type DelegationTokenSecretManagerOptions,
} from '@fastpath/token-manager';
import type { KmsSettings } from '../config/kms-settings.js';

/** Hadoop's token kind of the KMS. */
export const KMS_TOKEN_KIND = 'kms-dt';

/** Which secret manager backs the tokens; the build-info endpoint reports it. */
export interface TokenServiceInfo {
  /** `memory` (one process) or `zookeeper` (shared). */
  readonly implementation: 'memory' | 'zookeeper';
  /** How token creation is locked (`fastpath.kms.token.creation.locking`): `staged` or `global`. */
  readonly creationLocking: CreationLocking;
  /** ZooKeeper only: whether creations persisting together share one multi-operation. */
  readonly persistCoalescing: boolean | null;
  /** Token kind issued and accepted: `kms-dt`, as Hadoop's KMS. */
  readonly kind: string;
  /** Where the shared tokens are (`zookeeper` only, else `null`). */
  readonly zookeeper: {
    /**
     * ZooKeeper servers, `host:port,…`
     * (`hadoop.kms.authentication.zk-dt-secret-manager.zkConnectionString`).
     */
    readonly connectionString: string;
    /**
     * Parent of the token tree, as configured
     * (`hadoop.kms.authentication.zk-dt-secret-manager.znodeWorkingPath`).
     */
    readonly znodeWorkingPath: string;
  } | null;
}

/** Who a verified token speaks for. */
export interface TokenIdentity {
  readonly owner: string;
  readonly realUser: string;
}

/** The delegation-token operations of the KMS. Tokens travel as Hadoop URL strings. */
export interface TokenService {
  readonly info: TokenServiceInfo;
  start(): Promise<void>;
  stop(): Promise<void>;
  create(request: {
    owner: string;
    renewer: string;
    realUser: string;
    service?: string | undefined;
  }): Promise<string>;
  verify(urlString: string): Promise<TokenIdentity>;
  renew(urlString: string, renewer: string): Promise<number>;
  cancel(urlString: string, canceller: string): Promise<void>;
  /** Exact per-stage latencies (creation stages, verification), for benchmarks. */
  latency(): Record<string, LatencySummary>;
}

/**
 * Java's `toString()` of the exception Hadoop raises for a token error, which Hadoop's filter
 * sends as the message of its 403 answer (e.g.
 * `org.apache.hadoop.security.AccessControlException: alice tries to renew a token (…) with non-matching renewer bob`).
 */
export function javaExceptionText(error: unknown): string {
  if (error instanceof AccessControlError)
    return `org.apache.hadoop.security.AccessControlException: ${error.message}`;
  if (error instanceof InvalidTokenError)
    return `org.apache.hadoop.security.token.SecretManager$InvalidToken: ${error.message}`;
  if (error instanceof FastpathError) return `java.io.IOException: ${error.message}`;
  return 'java.io.IOException: token operation failed';
}

/** Hadoop's text for a token that does not decode, sent before the token store is asked. */
export const NOT_A_TOKEN =
  'org.apache.hadoop.security.token.SecretManager$InvalidToken: the token is not a URL-safe base64 string';

/** Whether a token-manager error is about the token or the caller (Hadoop's IOExceptions), not the store. */
export function isTokenRefusal(error: unknown): boolean {
  return error instanceof AccessControlError || error instanceof InvalidTokenError;
}

class ManagerTokenService implements TokenService {
  readonly info: TokenServiceInfo;
  readonly #manager: DelegationTokenSecretManager;

  constructor(manager: DelegationTokenSecretManager, info: TokenServiceInfo) {
    this.#manager = manager;
    this.info = info;
  }

  start(): Promise<void> {
    return this.#manager.start();
  }

  stop(): Promise<void> {
    return this.#manager.stop();
  }

  async create(request: {
    owner: string;
    renewer: string;
    realUser: string;
    service?: string | undefined;
  }): Promise<string> {
    const token = await this.#manager.createToken({
      owner: request.owner,
      renewer: request.renewer,
      realUser: request.realUser,
      ...(request.service === undefined ? {} : { service: request.service }),
    });
    return token.toUrlString();
  }

  verify(urlString: string): Promise<TokenIdentity> {
    // The identifier itself carries `owner` and `realUser`: no copy, no extra promise per request.
    return this.#manager.verify(urlString);
  }

  renew(urlString: string, renewer: string): Promise<number> {
    return this.#manager.renewToken(urlString, renewer);
  }

  async cancel(urlString: string, canceller: string): Promise<void> {
    await this.#manager.cancelToken(urlString, canceller);
  }

  latency(): Record<string, LatencySummary> {
    return this.#manager.latency();
  }
}

/**
 * Builds the token service the settings ask for: the in-memory manager by default, the ZooKeeper
 * manager when `hadoop.kms.authentication.zk-dt-secret-manager.enable` is true (loaded only then,
 * so the embedded default does not load a ZooKeeper client).
 */
export async function createTokenService(
  settings: KmsSettings['tokens'],
  options: {
    metrics: MetricsRegistry;
    clock?: Clock | undefined;
    onBackgroundError: (error: unknown) => void;
    /** How renewers and cancellers map to short names (Kerberos mode's rules). Default: Hadoop's DEFAULT. */
    kerberosNameRules?: KerberosNameRules | undefined;
  },
): Promise<TokenService> {
  const common: DelegationTokenSecretManagerOptions = {
    ...(options.kerberosNameRules ? { kerberosNameRules: options.kerberosNameRules } : {}),
    tokenKind: KMS_TOKEN_KIND,
    keyUpdateIntervalMs: settings.updateIntervalMs,
    tokenMaxLifetimeMs: settings.maxLifetimeMs,
    tokenRenewIntervalMs: settings.renewIntervalMs,
    removalScanIntervalMs: settings.removalScanIntervalMs,
    creationLocking: settings.creationLocking,
    metrics: options.metrics,
    name: 'kms-tokens',
    onBackgroundError: options.onBackgroundError,
    ...(options.clock ? { clock: options.clock } : {}),
  };
  const zk = settings.zookeeper;
  if (zk === undefined) {
    return new ManagerTokenService(new DelegationTokenSecretManager(common), {
      implementation: 'memory',
      creationLocking: settings.creationLocking,
      persistCoalescing: null,
      kind: KMS_TOKEN_KIND,
      zookeeper: null,
    });
  }
  const { ZkDelegationTokenSecretManager } = await import('@fastpath/token-manager/zookeeper');
  const manager = new ZkDelegationTokenSecretManager({
    ...common,
    connectionString: zk.connectionString,
    znodeWorkingPath: zk.znodeWorkingPath,
    sessionTimeoutMs: zk.sessionTimeoutMs,
    connectionTimeoutMs: zk.connectionTimeoutMs,
    connectRetries: zk.numRetries,
    seqNumBatchSize: zk.seqNumBatchSize,
    tokenWatcherEnabled: zk.tokenWatcherEnabled,
    persistCoalescing: zk.persistCoalescing,
    // Hadoop's zkAuthType=sasl: Kerberos from the keytab, every znode for sasl:<first component>.
    ...(zk.sasl === undefined
      ? {}
      : { authType: 'sasl' as const, sasl: { ...zooKeeperKerberos(zk.sasl), principal: zk.sasl.principal } }),
  });
  return new ManagerTokenService(manager, {
    implementation: 'zookeeper',
    creationLocking: settings.creationLocking,
    persistCoalescing: zk.persistCoalescing,
    kind: KMS_TOKEN_KIND,
    zookeeper: { connectionString: zk.connectionString, znodeWorkingPath: zk.znodeWorkingPath },
  });
}
