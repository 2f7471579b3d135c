import type { Redacted } from '@fastpath/core';
import type { ZooKeeperSaslOptions } from '@fastpath/zookeeper-client';
import type { DelegationTokenSecretManagerOptions } from './delegation-token-secret-manager.js';

/**
 * How the store authenticates to ZooKeeper and protects its znodes: `none` (open ACL, Hadoop's
 * default), `digest` (user:password) or `sasl` (Kerberos, Hadoop's `zkAuthType=sasl`: every znode
 * is for `sasl:<first component of the principal>` only).
 */
export type ZkAuthType = 'none' | 'digest' | 'sasl';

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
  digest?: {
    /** User of the `digest` scheme (`user` in ZooKeeper's `user:password`). */
    username: string;
    /** Its password; pass a `Redacted<string>` to keep it out of logs and dumps. */
    password: string | Redacted<string>;
  };
  /**
   * For `authType: 'sasl'`: the mechanism every connection authenticates with (e.g. Kerberos from
   * `@fastpath/hadoop-rpc`, see `@fastpath/zookeeper-client`'s `sasl` option) and the principal
   * it logs in as, whose first component the znodes' ACL names (`kms/host@REALM` → `sasl:kms`).
   */
  sasl?: ZooKeeperSaslOptions & {
    /** The client principal the mechanism logs in as, e.g. `kms/host.example.com@EXAMPLE.COM`. */
    principal: string;
  };
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
  /** `'zkdtsm'` (`zk-dt-secret-manager.znodeWorkingPath`): the tree is `/zkdtsm/ZKDTSMRoot/...`. */
  znodeWorkingPath: 'zkdtsm',
  /** 10 s in ms (`zk-dt-secret-manager.zkSessionTimeout`). */
  sessionTimeoutMs: 10_000,
  /** 10 s in ms per connection attempt (`zk-dt-secret-manager.zkConnectionTimeout`). */
  connectionTimeoutMs: 10_000,
  /** 3 further connection attempts at start (`zk-dt-secret-manager.zkNumRetries`). */
  connectRetries: 3,
  /** 5 s in ms per ZooKeeper operation; no Hadoop key (the Java client's read timeout plays this part). */
  operationTimeoutMs: 5000,
  /** 100 sequence numbers per reserved range (`zk-dt-secret-manager.token.seqnum.batch.size`). */
  seqNumBatchSize: 100,
  /** `true`: tokens are cached through watches (`zk-dt-secret-manager.token.watcher.enabled`). */
  tokenWatcherEnabled: true,
  /** `'none'`: znodes get the open ACL (`zk-dt-secret-manager.zkAuthType`). */
  authType: 'none',
  /** `true`: tokens ready together are written in one multi-operation. */
  persistCoalescing: true,
  /** 100 tokens at most per multi-operation. */
  persistMaxBatchSize: 100,
});

/** Znode names of Hadoop's layout, under `/<znodeWorkingPath>`. */
export const ZK_DTSM_ROOT = 'ZKDTSMRoot';
/** Under {@link ZK_DTSM_ROOT}: the shared token sequence counter (4-byte big-endian int). */
export const ZK_DTSM_SEQ_NUM_ROOT = 'ZKDTSMSeqNumRoot';
/** Under {@link ZK_DTSM_ROOT}: the shared master-key id counter (4-byte big-endian int). */
export const ZK_DTSM_KEY_ID_ROOT = 'ZKDTSMKeyIdRoot';
/** Under {@link ZK_DTSM_ROOT}: parent of the master key nodes, `DK_<keyId>`. */
export const ZK_DTSM_MASTER_KEY_ROOT = 'ZKDTSMMasterKeyRoot';
/** Under {@link ZK_DTSM_ROOT}: parent of the token nodes, `DT_<sequenceNumber>`. */
export const ZK_DTSM_TOKENS_ROOT = 'ZKDTSMTokensRoot';
/** Prefix of token node names (`DT_<sequenceNumber>`). */
export const ZK_DTSM_TOKEN_PREFIX = 'DT_';
/** Prefix of key node names (`DK_<keyId>`). */
export const ZK_DTSM_KEY_PREFIX = 'DK_';

/** The znode paths of one tree. */
export interface ZkDtsmPaths {
  /** `/<znodeWorkingPath>`, leading and trailing slashes of the option normalised, e.g. `/zkdtsm`. */
  readonly workingPath: string;
  /** `<workingPath>/ZKDTSMRoot`, the parent of everything below. */
  readonly root: string;
  /** `<root>/ZKDTSMSeqNumRoot`, the shared sequence counter. */
  readonly seqNumRoot: string;
  /** `<root>/ZKDTSMKeyIdRoot`, the shared master-key id counter. */
  readonly keyIdRoot: string;
  /** `<root>/ZKDTSMMasterKeyRoot`, holding `DK_<keyId>` nodes. */
  readonly masterKeyRoot: string;
  /** `<root>/ZKDTSMTokensRoot`, holding `DT_<sequenceNumber>` nodes. */
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
