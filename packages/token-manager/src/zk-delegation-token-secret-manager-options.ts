import type { Redacted } from '@fastpath/core';
import type { DelegationTokenSecretManagerOptions } from './delegation-token-secret-manager.js';

/** How znodes are protected: `none` (open ACL, Hadoop's default) or `digest` (user:password). */
export type ZkAuthType = 'none' | 'digest';

/** Options of {@link ZkDelegationTokenSecretManager}: the in-memory options plus the store's. */
export interface ZkDelegationTokenSecretManagerOptions extends Omit<
  DelegationTokenSecretManagerOptions,
  'store'
> {
  /** ZooKeeper connect string, e.g. `'zk1:2181,zk2:2181,zk3:2181'`. Required. */
  connectionString: string;
  /** Parent of `ZKDTSMRoot` (Hadoop's `znodeWorkingPath`). Default: `'zkdtsm'`. */
  znodeWorkingPath?: string;
  /** Session timeout asked of ZooKeeper (ms). Default: 10 000. */
  sessionTimeoutMs?: number;
  /** Bound of one connection attempt (ms). Default: 10 000. */
  connectionTimeoutMs?: number;
  /** Further connection attempts at start (Hadoop's `zkNumRetries`). Default: 3. */
  connectRetries?: number;
  /**
   * Bound of one ZooKeeper operation (ms). An operation without an answer by then fails with
   * `ERR_TOKEN_STORE_UNAVAILABLE` and the connection is treated as dead (a new session is made).
   * Default: 5000.
   */
  operationTimeoutMs?: number;
  /** Sequence numbers reserved per compare-and-set on the shared counter. Default: 100. */
  seqNumBatchSize?: number;
  /**
   * Keep the local token cache in step with ZooKeeper through watches, and load all tokens at
   * start. `false`: tokens reach the cache only through the cache-miss read. Default: `true`.
   */
  tokenWatcherEnabled?: boolean;
  /** ACL mode of every znode created. Default: `'none'`. */
  authType?: ZkAuthType;
  /** Credentials for `authType: 'digest'` (the ACL grants this user everything). */
  digest?: { username: string; password: string | Redacted<string> };
  /**
   * Write tokens that are ready to persist at the same moment in one ZooKeeper multi-operation.
   * Each caller still resolves only after its own token is confirmed; a failed multi fails all of
   * its creations and writes none of them. Default: `true` (measured faster, see the README).
   */
  persistCoalescing?: boolean;
  /** Most tokens in one multi-operation when coalescing. Default: 100. */
  persistMaxBatchSize?: number;
}

/** Defaults of the ZooKeeper-specific options (Hadoop's, where Hadoop has one). */
export const DEFAULT_ZK_DELEGATION_TOKEN_SECRET_MANAGER_OPTIONS = Object.freeze({
  znodeWorkingPath: 'zkdtsm',
  sessionTimeoutMs: 10_000,
  connectionTimeoutMs: 10_000,
  connectRetries: 3,
  operationTimeoutMs: 5000,
  seqNumBatchSize: 100,
  tokenWatcherEnabled: true,
  authType: 'none',
  persistCoalescing: true,
  persistMaxBatchSize: 100,
});

/** Znode names of Hadoop's layout, under `/<znodeWorkingPath>`. */
export const ZK_DTSM_ROOT = 'ZKDTSMRoot';
export const ZK_DTSM_SEQ_NUM_ROOT = 'ZKDTSMSeqNumRoot';
export const ZK_DTSM_KEY_ID_ROOT = 'ZKDTSMKeyIdRoot';
export const ZK_DTSM_MASTER_KEY_ROOT = 'ZKDTSMMasterKeyRoot';
export const ZK_DTSM_TOKENS_ROOT = 'ZKDTSMTokensRoot';
/** Prefix of token node names (`DT_<sequenceNumber>`). */
export const ZK_DTSM_TOKEN_PREFIX = 'DT_';
/** Prefix of key node names (`DK_<keyId>`). */
export const ZK_DTSM_KEY_PREFIX = 'DK_';

/** The znode paths of one tree. */
export interface ZkDtsmPaths {
  readonly workingPath: string;
  readonly root: string;
  readonly seqNumRoot: string;
  readonly keyIdRoot: string;
  readonly masterKeyRoot: string;
  readonly tokensRoot: string;
}

/** Hadoop's znode paths for a working path (`'zkdtsm'` → `/zkdtsm/ZKDTSMRoot/...`). */
export function zkDtsmPaths(znodeWorkingPath: string): ZkDtsmPaths {
  const working = `/${znodeWorkingPath.replace(/^\/+|\/+$/g, '')}`;
  const root = `${working}/${ZK_DTSM_ROOT}`;
  return {
    workingPath: working,
    root,
    seqNumRoot: `${root}/${ZK_DTSM_SEQ_NUM_ROOT}`,
    keyIdRoot: `${root}/${ZK_DTSM_KEY_ID_ROOT}`,
    masterKeyRoot: `${root}/${ZK_DTSM_MASTER_KEY_ROOT}`,
    tokensRoot: `${root}/${ZK_DTSM_TOKENS_ROOT}`,
  };
}
