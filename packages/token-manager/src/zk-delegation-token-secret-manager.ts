import { createHash } from 'node:crypto';
import { InvalidOptionError, Redacted, checkInteger, checkNonEmptyString, checkOneOf } from '@fastpath/core';
import {
  ZK_EVENT_NODE_CREATED,
  ZK_EVENT_NODE_DATA_CHANGED,
  ZK_EVENT_NODE_DELETED,
} from '@fastpath/zookeeper-client';
import zookeeper from 'node-zookeeper-client';
import type { ACL } from 'node-zookeeper-client';
import {
  DelegationTokenSecretManager,
  type DelegationTokenSecretManagerOptions,
  type PreparedToken,
  type TokenInformation,
} from './delegation-token-secret-manager.js';
import { PersistBatcher, type PersistRequest } from './internal/zk/persist-batcher.js';
import {
  ZK_BAD_VERSION,
  ZK_NODE_EXISTS,
  ZK_NO_NODE,
  ZkSession,
  type ConnectionChange,
} from './internal/zk/zk-session.js';
import { TokenCreationAbortedError, TokenStoreError, TokenStoreUnavailableError } from './token-errors.js';
import type { DelegationTokenIdentifier } from '@fastpath/hadoop-common';
import {
  DelegationKey,
  decodeSharedCount,
  decodeTokenNode,
  encodeSharedCount,
  encodeTokenNode,
} from '@fastpath/hadoop-common';

/** How znodes are protected: `none` (open ACL, Hadoop's default) or `digest` (user:password). */
export type ZkAuthType = 'none' | 'digest';

/** Options of {@link ZkDelegationTokenSecretManager}: the in-memory options plus the store's. */
export interface ZkDelegationTokenSecretManagerOptions extends DelegationTokenSecretManagerOptions {
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
  authType: 'none' as ZkAuthType,
  persistCoalescing: true,
  persistMaxBatchSize: 100,
});

/** Znode names of Hadoop's layout, under `/<znodeWorkingPath>`. */
export const ZK_DTSM_ROOT = 'ZKDTSMRoot';
export const ZK_DTSM_SEQ_NUM_ROOT = 'ZKDTSMSeqNumRoot';
export const ZK_DTSM_KEY_ID_ROOT = 'ZKDTSMKeyIdRoot';
export const ZK_DTSM_MASTER_KEY_ROOT = 'ZKDTSMMasterKeyRoot';
export const ZK_DTSM_TOKENS_ROOT = 'ZKDTSMTokensRoot';
const TOKEN_PREFIX = 'DT_';
const KEY_PREFIX = 'DK_';
const INT32_MAX = 0x7fff_ffff;
const CAS_ATTEMPTS = 1000;
const LOAD_CHUNK = 500;
// One multi-operation in flight per manager: creations arriving meanwhile gather for the next
// one (group commit). Measured best on the 2-core reference machine (see the README).
const PERSIST_MAX_IN_FLIGHT = 1;

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

interface Ticket {
  stale: boolean;
}

interface LoadedToken {
  identifier: DelegationTokenIdentifier;
  info: TokenInformation;
  version: number;
}

/**
 * Hadoop's `ZKDelegationTokenSecretManager`: delegation tokens shared by several managers
 * (processes, hosts) through ZooKeeper, in Hadoop's znode layout and payloads, so a tree is
 * interchangeable with Hadoop's. Creation is staged (HADOOP-20045): sequence numbers come from
 * ranges reserved by compare-and-set under a dedicated allocator mutex, identifiers and passwords
 * are made under a short write lock, and `DT_<seq>` is written outside the lock, the creation
 * resolving only once ZooKeeper confirmed it.
 *
 * Master keys are cached through watches; tokens too, unless `tokenWatcherEnabled` is off, and a
 * verification that misses the cache reads `DT_<seq>`. While ZooKeeper cannot be reached, calls
 * that need it fail with `ERR_TOKEN_STORE_UNAVAILABLE` (retriable) and cached tokens keep
 * verifying; when the session comes back (or a new one is made) the caches are reloaded.
 *
 * @example
 * ```ts
 * import { ZkDelegationTokenSecretManager } from '@fastpath/token-manager/zookeeper';
 *
 * const manager = new ZkDelegationTokenSecretManager({ connectionString: 'zk1:2181,zk2:2181,zk3:2181' });
 * await manager.start();
 * const token = await manager.createToken({ owner: 'alice', renewer: 'yarn' });
 * await manager.verify(token); // on this or any other manager sharing the tree
 * await manager.stop();
 * ```
 */
export class ZkDelegationTokenSecretManager extends DelegationTokenSecretManager {
  /** The znode paths this manager works under. */
  readonly paths: ZkDtsmPaths;
  protected readonly session: ZkSession;
  protected readonly zkOptions: {
    readonly seqNumBatchSize: number;
    readonly tokenWatcherEnabled: boolean;
    readonly persistCoalescing: boolean;
  };
  readonly #acl: ACL[];
  readonly #batcher: PersistBatcher;
  #seqCurrent = 0;
  #seqMax = 0;
  readonly #bySeq = new Map<number, DelegationTokenIdentifier>();
  readonly #tickets = new Map<number, Set<Ticket>>();
  readonly #unparsable = new Set<number>();
  /** Tokens whose creation failed with an unknown outcome: removed from ZooKeeper when possible. */
  readonly #orphans = new Map<number, Buffer>();
  #orphanCleanup: Promise<void> | undefined;
  /**
   * Tokens this manager is persisting, and whether the watch has reported their node created: a
   * token whose creation is confirmed and was reported is published from memory, without a read.
   */
  readonly #persisting = new Map<number, { prepared: PreparedToken; createdEvent: boolean }>();
  #resync: Promise<void> | undefined;
  #resyncAgain = false;
  #storageStarted = false;

  constructor(options: ZkDelegationTokenSecretManagerOptions) {
    super(options);
    if (typeof options !== 'object' || options === null)
      throw new InvalidOptionError('options', 'expected an object');
    const d = DEFAULT_ZK_DELEGATION_TOKEN_SECRET_MANAGER_OPTIONS;
    const connectionString = checkNonEmptyString('connectionString', options.connectionString);
    const workingPath = checkNonEmptyString(
      'znodeWorkingPath',
      options.znodeWorkingPath ?? d.znodeWorkingPath,
    );
    if (!/^\/*[^/\s]+(\/[^/\s]+)*\/*$/.test(workingPath)) {
      throw new InvalidOptionError('znodeWorkingPath', `not a znode path: "${workingPath}"`);
    }
    this.paths = zkDtsmPaths(workingPath);
    const sessionTimeoutMs = checkInteger(
      'sessionTimeoutMs',
      options.sessionTimeoutMs ?? d.sessionTimeoutMs,
      1,
      3_600_000,
    );
    const connectionTimeoutMs = checkInteger(
      'connectionTimeoutMs',
      options.connectionTimeoutMs ?? d.connectionTimeoutMs,
      1,
      3_600_000,
    );
    const operationTimeoutMs = checkInteger(
      'operationTimeoutMs',
      options.operationTimeoutMs ?? d.operationTimeoutMs,
      1,
      3_600_000,
    );
    const connectRetries = checkInteger(
      'connectRetries',
      options.connectRetries ?? d.connectRetries,
      0,
      1000,
    );
    const authType = checkOneOf('authType', options.authType ?? d.authType, ['none', 'digest']);
    let digestAuth: string | undefined;
    if (authType === 'digest') {
      const digest = options.digest;
      if (typeof digest !== 'object' || digest === null) {
        throw new InvalidOptionError('digest', 'authType "digest" needs { username, password }');
      }
      const username = checkNonEmptyString('digest.username', digest.username);
      if (username.includes(':')) throw new InvalidOptionError('digest.username', 'must not contain ":"');
      const password = digest.password instanceof Redacted ? digest.password.unwrap() : digest.password;
      checkNonEmptyString('digest.password', password);
      digestAuth = `${username}:${password}`;
      const hashed = createHash('sha1').update(digestAuth).digest('base64');
      this.#acl = [
        new zookeeper.ACL(zookeeper.Permission.ALL, new zookeeper.Id('digest', `${username}:${hashed}`)),
      ];
    } else {
      this.#acl = (zookeeper.ACL as unknown as { OPEN_ACL_UNSAFE: ACL[] }).OPEN_ACL_UNSAFE;
    }
    this.zkOptions = Object.freeze({
      seqNumBatchSize: checkInteger(
        'seqNumBatchSize',
        options.seqNumBatchSize ?? d.seqNumBatchSize,
        1,
        1_000_000,
      ),
      tokenWatcherEnabled: checkBoolean(
        'tokenWatcherEnabled',
        options.tokenWatcherEnabled ?? d.tokenWatcherEnabled,
      ),
      persistCoalescing: checkBoolean('persistCoalescing', options.persistCoalescing ?? d.persistCoalescing),
    });
    const maxBatch = checkInteger(
      'persistMaxBatchSize',
      options.persistMaxBatchSize ?? d.persistMaxBatchSize,
      1,
      1000,
    );
    this.session = new ZkSession({
      connectionString,
      sessionTimeoutMs,
      connectionTimeoutMs,
      operationTimeoutMs,
      connectRetries,
      digestAuth,
      onOperation: (operation, ms) => this.tokenMetrics.zookeeper(operation, ms),
      onConnectionChange: (change) => this.onConnectionChange(change),
      onHeartbeat: () => {
        if (this.#orphans.size > 0) this.#scheduleOrphanCleanup();
      },
    });
    this.#batcher = new PersistBatcher((batch) => this.#writeBatch(batch), maxBatch, PERSIST_MAX_IN_FLIGHT);
  }

  /** The ACL put on every znode this manager creates. */
  get acl(): readonly ACL[] {
    return this.#acl;
  }

  /** Whether the ZooKeeper session is connected now. */
  get connected(): boolean {
    return this.session.connected;
  }

  /** The sequence range this manager hands numbers from: `(current, max]` is still unused. */
  get sequenceRange(): { current: number; max: number } {
    return { current: this.#seqCurrent, max: this.#seqMax };
  }

  // ---------------------------------------------------------------------------------------------
  // Lifecycle

  protected override async startStorage(): Promise<void> {
    await this.session.start();
    this.#storageStarted = true;
    try {
      await this.session.mkdirp(this.paths.root, this.#acl);
      for (const counter of [this.paths.seqNumRoot, this.paths.keyIdRoot]) {
        await this.#createIfMissing(counter, encodeSharedCount(0));
      }
      for (const dir of [this.paths.masterKeyRoot, this.paths.tokensRoot])
        await this.#createIfMissing(dir, Buffer.alloc(0));
      await this.#watchAndLoad();
      await this.#reserveRange(undefined);
    } catch (error) {
      await this.stopStorage();
      throw error;
    }
  }

  protected override async stopStorage(): Promise<void> {
    if (!this.#storageStarted) return;
    this.#storageStarted = false;
    await this.session.close();
  }

  /**
   * Sets the persistent watches (keys always, tokens when the watcher is on), then loads what they
   * cover: watching first, so nothing that changes during the load is missed.
   */
  async #watchAndLoad(): Promise<void> {
    await this.session.addPersistentWatch(this.paths.masterKeyRoot, this.#onKeyEvent);
    if (this.zkOptions.tokenWatcherEnabled) {
      await this.session.addPersistentWatch(this.paths.tokensRoot, this.#onTokenEvent);
    }
    await this.#syncKeys();
    if (this.zkOptions.tokenWatcherEnabled)
      await this.syncTokensFromStore({ reloadAll: true, removeMissing: true });
  }

  /**
   * The connection came back. Watches do not survive it (a new session has none; the library
   * restores only one-shot watches on the same session) and events may have been missed: set
   * them again, reload, and clean up after creations that failed with an unknown outcome.
   */
  protected onConnectionChange(_change: ConnectionChange): void {
    if (this.#resync) {
      this.#resyncAgain = true;
      return;
    }
    this.#resync = (async () => {
      do {
        this.#resyncAgain = false;
        await this.#watchAndLoad();
      } while (this.#resyncAgain && this.#storageStarted);
    })()
      .catch((error: unknown) => this.#reportUnlessUnavailable(error))
      .finally(() => {
        this.#resync = undefined;
      });
    this.#scheduleOrphanCleanup();
  }

  // ---------------------------------------------------------------------------------------------
  // Stage 1: sequence ranges

  protected override async allocateSequenceNumber(signal?: AbortSignal): Promise<number> {
    if (this.#seqCurrent >= this.#seqMax) {
      await this.hooks.beforeRefill?.();
      await this.#reserveRange(signal);
    }
    return ++this.#seqCurrent;
  }

  /**
   * Reserves the next range by compare-and-set on the shared counter. The local range changes
   * only after ZooKeeper confirmed the reservation: an aborted or failed refill leaves it used
   * up, so no number outside a reserved range is ever handed out.
   */
  async #reserveRange(signal: AbortSignal | undefined): Promise<void> {
    const batch = this.zkOptions.seqNumBatchSize;
    const start = await this.#counterAdd(this.paths.seqNumRoot, batch, signal);
    this.#seqCurrent = start;
    this.#seqMax = start + batch;
  }

  protected override async incrementCurrentKeyId(): Promise<number> {
    const id = (await this.#counterAdd(this.paths.keyIdRoot, 1, undefined)) + 1;
    this.currentKeyIdValue = id;
    return id;
  }

  /** Adds `delta` to a shared counter by compare-and-set on its version; resolves the old value. */
  async #counterAdd(path: string, delta: number, signal: AbortSignal | undefined): Promise<number> {
    for (let attempt = 1; ; attempt++) {
      const { data, stat } = await abortable(this.session.getData(path), signal);
      const value = decodeSharedCount(data);
      if (value > INT32_MAX - delta) {
        throw new TokenStoreError(
          `shared counter ${path} is exhausted: ${value} + ${delta} does not fit in 32 bits`,
        );
      }
      try {
        await abortable(this.session.setData(path, encodeSharedCount(value + delta), stat.version), signal);
        return value;
      } catch (error) {
        if (error instanceof TokenStoreError && error.zkCode === ZK_BAD_VERSION && attempt < CAS_ATTEMPTS)
          continue;
        throw error;
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Stage 3: persistence

  protected override get persistsOutsideLock(): boolean {
    return true;
  }

  protected override async persistCreatedToken(prepared: PreparedToken): Promise<void> {
    const request: PersistRequest = {
      path: this.#tokenPath(prepared.identifier.sequenceNumber),
      data: encodeTokenNode({
        identifier: prepared.identifier.bytes,
        renewDate: prepared.info.renewDate,
        password: prepared.info.password.unwrap(),
      }),
    };
    const seq = prepared.identifier.sequenceNumber;
    const entry = { prepared, createdEvent: false };
    this.#persisting.set(seq, entry);
    const ticket = this.#openTicket(seq);
    try {
      try {
        if (this.zkOptions.persistCoalescing) await this.#batcher.submit(request);
        else await this.#writeBatch([request]);
      } catch (error) {
        // The reported node is not this creation's (someone else's, or an orphan): let the
        // ordinary path judge it.
        if (entry.createdEvent) this.#loadToken(seq).catch((e: unknown) => this.#reportUnlessUnavailable(e));
        throw this.#persistFailure(prepared.identifier, error);
      }
      // Confirmed, and the watch saw the node appear before the confirmation (ZooKeeper sends the
      // event first): publish unless the token was removed meanwhile.
      if (entry.createdEvent && !ticket.stale && !this.#orphans.has(seq))
        this.cachePut(prepared.identifier, prepared.info);
    } finally {
      this.#persisting.delete(seq);
      this.#closeTicket(seq, ticket);
    }
  }

  async #writeBatch(batch: readonly PersistRequest[]): Promise<void> {
    this.tokenMetrics.persistBatch(batch.length);
    try {
      if (batch.length === 1) await this.session.create(batch[0]!.path, batch[0]!.data, this.#acl);
      else await this.session.createAll(batch, this.#acl);
    } catch (error) {
      if (error instanceof TokenStoreUnavailableError && error.outcomeUnknown) {
        // ZooKeeper may still apply the write: remember the nodes, and delete them once it can be
        // done, so that a creation reported failed never becomes a valid token.
        for (const request of batch) {
          const seq = seqOfPath(request.path);
          this.#orphans.set(seq, request.data);
          this.#forgetSeq(seq);
        }
        this.#scheduleOrphanCleanup();
      }
      throw error;
    }
  }

  #persistFailure(identifier: DelegationTokenIdentifier, error: unknown): unknown {
    if (!(error instanceof TokenStoreError)) return error;
    const message = `token DT_${identifier.sequenceNumber} was not stored: ${error.message}`;
    if (error instanceof TokenStoreUnavailableError) {
      return new TokenStoreUnavailableError(message, {
        cause: error,
        outcomeUnknown: error.outcomeUnknown,
        ...(error.zkCode === undefined ? {} : { zkCode: error.zkCode }),
      });
    }
    return new TokenStoreError(message, {
      cause: error,
      ...(error.zkCode === undefined ? {} : { zkCode: error.zkCode }),
    });
  }

  #scheduleOrphanCleanup(): void {
    if (this.#orphanCleanup || this.#orphans.size === 0 || !this.session.connected) return;
    this.#orphanCleanup = this.#cleanupOrphans()
      .catch((error: unknown) => {
        if (!(error instanceof TokenStoreUnavailableError)) this.reportBackgroundError(error);
      })
      .finally(() => {
        this.#orphanCleanup = undefined;
      });
  }

  /**
   * Deletes the nodes of failed creations that ZooKeeper applied after all, in one multi-operation
   * so the tree never shows part of a failed batch.
   */
  async #cleanupOrphans(): Promise<void> {
    const orphans = [...this.#orphans];
    const present: string[] = [];
    for (const [seq, data] of orphans) {
      try {
        const node = await this.session.getData(this.#tokenPath(seq));
        // Only a node holding exactly what this manager tried to write is one of its own.
        if (node.data.equals(data)) present.push(this.#tokenPath(seq));
      } catch (error) {
        if (!(error instanceof TokenStoreError && error.zkCode === ZK_NO_NODE)) throw error;
      }
    }
    if (present.length > 0) {
      try {
        await this.session.removeAll(present);
      } catch (error) {
        // Something changed between the reads and the delete: look again at the next heartbeat.
        if (
          error instanceof TokenStoreError &&
          (error.zkCode === ZK_NO_NODE || error.zkCode === ZK_BAD_VERSION)
        )
          return;
        throw error;
      }
    }
    for (const [seq] of orphans) {
      this.#orphans.delete(seq);
      this.#forgetSeq(seq);
    }
  }

  /** Sequence numbers of failed creations whose node may still appear; they are never cached. */
  get pendingOrphanCleanups(): number {
    return this.#orphans.size;
  }

  // ---------------------------------------------------------------------------------------------
  // Tokens: cache-miss path, renewal, cancellation, expiry

  protected override async fetchTokenInfo(
    identifier: DelegationTokenIdentifier,
  ): Promise<TokenInformation | undefined> {
    this.tokenMetrics.cacheMiss();
    const loaded = await this.#loadToken(identifier.sequenceNumber);
    // The node must hold this very identifier: the same number with other fields is another token.
    return loaded && loaded.identifier.key === identifier.key ? loaded.info : undefined;
  }

  protected override async getTokenInfoForUpdate(
    identifier: DelegationTokenIdentifier,
  ): Promise<TokenInformation | undefined> {
    return this.cacheGet(identifier) ?? (await this.fetchTokenInfo(identifier));
  }

  protected override async updateToken(
    identifier: DelegationTokenIdentifier,
    info: TokenInformation,
  ): Promise<void> {
    const path = this.#tokenPath(identifier.sequenceNumber);
    const data = encodeTokenNode({
      identifier: identifier.bytes,
      renewDate: info.renewDate,
      password: info.password.unwrap(),
    });
    const ticket = this.#openTicket(identifier.sequenceNumber);
    try {
      try {
        await this.session.setData(path, data, -1);
      } catch (error) {
        if (!(error instanceof TokenStoreError && error.zkCode === ZK_NO_NODE)) throw error;
        await this.session.create(path, data, this.#acl);
      }
      if (!ticket.stale) this.cachePut(identifier, info);
    } finally {
      this.#closeTicket(identifier.sequenceNumber, ticket);
    }
  }

  protected override async removeTokenForCancel(identifier: DelegationTokenIdentifier): Promise<boolean> {
    // ZooKeeper is the truth: a token a peer already cancelled is "not found" here too.
    const loaded = await this.#readTokenNode(identifier.sequenceNumber);
    if (!loaded || loaded.identifier.key !== identifier.key) {
      this.cacheDelete(identifier);
      return false;
    }
    try {
      await this.session.remove(this.#tokenPath(identifier.sequenceNumber), -1);
    } catch (error) {
      if (!(error instanceof TokenStoreError && error.zkCode === ZK_NO_NODE)) throw error;
      this.cacheDelete(identifier);
      return false;
    }
    this.cacheDelete(identifier);
    return true;
  }

  protected override async removeExpiredStoredToken(identifier: DelegationTokenIdentifier): Promise<void> {
    const loaded = await this.#readTokenNode(identifier.sequenceNumber);
    if (!loaded || loaded.identifier.key !== identifier.key) return;
    // A peer may have renewed it: only a node that is expired in ZooKeeper too is deleted, and
    // only if it did not change since it was read.
    if (loaded.info.renewDate >= this.clock.now()) return;
    try {
      await this.session.remove(this.#tokenPath(identifier.sequenceNumber), loaded.version);
    } catch (error) {
      if (!(
        error instanceof TokenStoreError &&
        (error.zkCode === ZK_NO_NODE || error.zkCode === ZK_BAD_VERSION)
      )) {
        throw error;
      }
    }
  }

  /** Reads `DT_<seq>` without touching the cache; `undefined` when absent or unreadable. */
  async #readTokenNode(seq: number): Promise<LoadedToken | undefined> {
    let node: { data: Buffer; stat: { version: number } };
    try {
      node = await this.session.getData(this.#tokenPath(seq));
    } catch (error) {
      if (error instanceof TokenStoreError && error.zkCode === ZK_NO_NODE) return undefined;
      throw error;
    }
    return this.#decodeToken(seq, node.data, node.stat.version);
  }

  #decodeToken(seq: number, data: Buffer, version: number): LoadedToken | undefined {
    try {
      const decoded = decodeTokenNode(this.tokenKind, data);
      if (decoded.identifier.sequenceNumber !== seq) return undefined;
      return {
        identifier: decoded.identifier,
        info: {
          renewDate: decoded.renewDate,
          password: new Redacted(decoded.password),
          trackingId: this.options.storeTokenTrackingId
            ? createHash('md5').update(decoded.identifier.bytes).digest('hex')
            : null,
        },
        version,
      };
    } catch {
      return undefined;
    }
  }

  /**
   * Reads `DT_<seq>` and publishes it into the cache unless the token was removed locally
   * meanwhile or its creation failed.
   */
  async #loadToken(seq: number): Promise<LoadedToken | undefined> {
    if (this.#orphans.has(seq)) return undefined;
    const ticket = this.#openTicket(seq);
    try {
      let node: { data: Buffer; stat: { version: number } };
      try {
        node = await this.session.getData(this.#tokenPath(seq));
      } catch (error) {
        if (error instanceof TokenStoreError && error.zkCode === ZK_NO_NODE) return undefined;
        throw error;
      }
      const loaded = this.#decodeToken(seq, node.data, node.stat.version);
      if (!loaded) {
        // Hadoop skips nodes it cannot parse; so do we, without reading them again each sync.
        this.#unparsable.add(seq);
        return undefined;
      }
      if (!ticket.stale && !this.#orphans.has(seq)) this.cachePut(loaded.identifier, loaded.info);
      return loaded;
    } finally {
      this.#closeTicket(seq, ticket);
    }
  }

  readonly #onTokenEvent = (type: number, path: string): void => {
    const seq = seqOfPath(path);
    if (Number.isNaN(seq)) return;
    if (type === ZK_EVENT_NODE_DELETED) {
      this.#forgetSeq(seq);
      return;
    }
    if (type === ZK_EVENT_NODE_CREATED) {
      const own = this.#persisting.get(seq);
      if (own) {
        own.createdEvent = true; // published once the creation is confirmed
        return;
      }
    }
    if (type === ZK_EVENT_NODE_CREATED || type === ZK_EVENT_NODE_DATA_CHANGED) {
      this.#loadToken(seq).catch((error: unknown) => this.#reportUnlessUnavailable(error));
    }
  };

  /**
   * Brings the local token cache in line with `ZKDTSMTokensRoot`: lists the children, loads new
   * nodes (or all of them with `reloadAll`) and, with `removeMissing`, drops cached tokens whose
   * node is gone.
   */
  protected async syncTokensFromStore(how: { reloadAll: boolean; removeMissing: boolean }): Promise<void> {
    const names = await this.session.getChildren(this.paths.tokensRoot);
    const present = new Set<number>();
    for (const name of names) {
      if (!name.startsWith(TOKEN_PREFIX)) continue;
      const seq = Number(name.slice(TOKEN_PREFIX.length));
      if (Number.isInteger(seq)) present.add(seq);
    }
    if (how.removeMissing) {
      for (const [seq, identifier] of [...this.#bySeq]) if (!present.has(seq)) this.cacheDelete(identifier);
      for (const seq of [...this.#unparsable]) if (!present.has(seq)) this.#unparsable.delete(seq);
    }
    const toLoad = [...present].filter(
      (seq) => how.reloadAll || (!this.#bySeq.has(seq) && !this.#unparsable.has(seq)),
    );
    for (let i = 0; i < toLoad.length; i += LOAD_CHUNK) {
      await Promise.all(toLoad.slice(i, i + LOAD_CHUNK).map((seq) => this.#loadToken(seq)));
    }
  }

  #forgetSeq(seq: number): void {
    this.#unparsable.delete(seq);
    const identifier = this.#bySeq.get(seq);
    if (identifier) this.cacheDelete(identifier);
    else this.#markStale(seq);
  }

  // Removal tickets: a read that started before a local removal must not publish afterwards.
  #openTicket(seq: number): Ticket {
    const ticket = { stale: false };
    let set = this.#tickets.get(seq);
    if (!set) {
      set = new Set();
      this.#tickets.set(seq, set);
    }
    set.add(ticket);
    return ticket;
  }

  #closeTicket(seq: number, ticket: Ticket): void {
    const set = this.#tickets.get(seq);
    if (!set) return;
    set.delete(ticket);
    if (set.size === 0) this.#tickets.delete(seq);
  }

  #markStale(seq: number): void {
    for (const ticket of this.#tickets.get(seq) ?? []) ticket.stale = true;
  }

  protected override cachePut(identifier: DelegationTokenIdentifier, info: TokenInformation): void {
    const seq = identifier.sequenceNumber;
    const previous = this.#bySeq.get(seq);
    if (previous && previous.key !== identifier.key) super.cacheDelete(previous);
    this.#bySeq.set(seq, identifier);
    super.cachePut(identifier, info);
  }

  protected override cacheDelete(identifier: DelegationTokenIdentifier): boolean {
    const seq = identifier.sequenceNumber;
    this.#markStale(seq);
    if (this.#bySeq.get(seq)?.key === identifier.key) this.#bySeq.delete(seq);
    return super.cacheDelete(identifier);
  }

  protected override cacheClear(): void {
    for (const seq of this.#bySeq.keys()) this.#markStale(seq);
    this.#bySeq.clear();
    super.cacheClear();
  }

  // ---------------------------------------------------------------------------------------------
  // Master keys

  protected override async getDelegationKey(keyId: number): Promise<DelegationKey | undefined> {
    return this.allKeys.get(keyId) ?? (await this.#loadKey(keyId));
  }

  protected override async storeDelegationKey(key: DelegationKey): Promise<void> {
    const path = this.#keyPath(key.keyId);
    try {
      await this.session.create(path, key.encode(), this.#acl);
    } catch (error) {
      if (!(error instanceof TokenStoreError && error.zkCode === ZK_NODE_EXISTS)) throw error;
      await this.session.setData(path, key.encode(), -1);
    }
    this.allKeys.set(key.keyId, key);
  }

  protected override async updateDelegationKey(key: DelegationKey): Promise<void> {
    const path = this.#keyPath(key.keyId);
    try {
      await this.session.setData(path, key.encode(), -1);
    } catch (error) {
      if (!(error instanceof TokenStoreError && error.zkCode === ZK_NO_NODE)) throw error;
      await this.session.create(path, key.encode(), this.#acl);
    }
    this.allKeys.set(key.keyId, key);
  }

  protected override async removeStoredMasterKey(key: DelegationKey): Promise<void> {
    try {
      await this.session.remove(this.#keyPath(key.keyId), -1);
    } catch (error) {
      // As Hadoop: a key that cannot be deleted now is only reported; a later roll tries again.
      if (!(error instanceof TokenStoreError && error.zkCode === ZK_NO_NODE))
        this.reportBackgroundError(error);
    }
  }

  async #loadKey(keyId: number): Promise<DelegationKey | undefined> {
    let node: { data: Buffer };
    try {
      node = await this.session.getData(this.#keyPath(keyId));
    } catch (error) {
      if (error instanceof TokenStoreError && error.zkCode === ZK_NO_NODE) return undefined;
      throw error;
    }
    let key: DelegationKey;
    try {
      key = DelegationKey.decode(node.data);
    } catch {
      return undefined;
    }
    if (key.keyId !== keyId) return undefined;
    this.allKeys.set(keyId, key);
    return key;
  }

  readonly #onKeyEvent = (type: number, path: string): void => {
    const name = path.slice(path.lastIndexOf('/') + 1);
    if (!name.startsWith(KEY_PREFIX)) return;
    const keyId = Number(name.slice(KEY_PREFIX.length));
    if (!Number.isInteger(keyId)) return;
    if (type === ZK_EVENT_NODE_DELETED) {
      if (keyId !== this.currentKey?.keyId) this.allKeys.delete(keyId);
    } else if (type === ZK_EVENT_NODE_CREATED || type === ZK_EVENT_NODE_DATA_CHANGED) {
      this.#loadKey(keyId).catch((error: unknown) => this.#reportUnlessUnavailable(error));
    }
  };

  /** Loads every key of `ZKDTSMMasterKeyRoot` and forgets keys that are gone. */
  async #syncKeys(): Promise<void> {
    const names = await this.session.getChildren(this.paths.masterKeyRoot);
    const present = new Set<number>();
    for (const name of names) {
      if (!name.startsWith(KEY_PREFIX)) continue;
      const keyId = Number(name.slice(KEY_PREFIX.length));
      if (Number.isInteger(keyId)) present.add(keyId);
    }
    for (const keyId of [...this.allKeys.keys()]) {
      if (!present.has(keyId) && keyId !== this.currentKey?.keyId) this.allKeys.delete(keyId);
    }
    await Promise.all([...present].map((keyId) => this.#loadKey(keyId)));
  }

  // ---------------------------------------------------------------------------------------------

  async #createIfMissing(path: string, data: Buffer): Promise<void> {
    try {
      await this.session.create(path, data, this.#acl);
    } catch (error) {
      if (!(error instanceof TokenStoreError && error.zkCode === ZK_NODE_EXISTS)) throw error;
    }
  }

  #reportUnlessUnavailable(error: unknown): void {
    // Losing the connection is expected and handled by the reload that follows reconnection.
    if (!(error instanceof TokenStoreUnavailableError)) this.reportBackgroundError(error);
  }

  #tokenPath(seq: number): string {
    return `${this.paths.tokensRoot}/${TOKEN_PREFIX}${seq}`;
  }

  #keyPath(keyId: number): string {
    return `${this.paths.masterKeyRoot}/${KEY_PREFIX}${keyId}`;
  }
}

function seqOfPath(path: string): number {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return name.startsWith(TOKEN_PREFIX) ? Number(name.slice(TOKEN_PREFIX.length)) : Number.NaN;
}

/** Races `promise` against `signal`: an abort rejects at once, whatever the operation does. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  promise.catch(() => undefined);
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function abortError(signal: AbortSignal): TokenCreationAbortedError {
  return new TokenCreationAbortedError(
    'token creation aborted while reserving a sequence range; nothing was issued',
    {
      cause: signal.reason,
    },
  );
}

function checkBoolean(option: string, value: unknown): boolean {
  if (typeof value !== 'boolean')
    throw new InvalidOptionError(option, `expected a boolean, got ${typeof value}`);
  return value;
}
