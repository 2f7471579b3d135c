import { createHash } from 'node:crypto';
import { InvalidOptionError, Redacted, checkInteger, checkNonEmptyString, checkOneOf } from '@fastpath/core';
import zookeeper from 'node-zookeeper-client';
import type { ACL } from 'node-zookeeper-client';
import { saslOwnerAcl, type ZooKeeperSaslOptions } from '@fastpath/zookeeper-client';
import type { TokenInformation } from '../../token-cache.js';
import { TokenStoreError, TokenStoreUnavailableError } from '../../token-errors.js';
import type { PreparedToken, TokenStore, TokenStoreContext } from '../../token-store.js';
import {
  encodeSharedCount,
  encodeTokenNode,
  type DelegationKey,
  type DelegationTokenIdentifier,
} from '@fastpath/hadoop-common';
import {
  DEFAULT_ZK_DELEGATION_TOKEN_SECRET_MANAGER_OPTIONS,
  zkDtsmPaths,
  type ZkDelegationTokenSecretManagerOptions,
  type ZkDtsmPaths,
} from '../../zk-delegation-token-secret-manager-options.js';
import { PersistBatcher, type PersistRequest } from './persist-batcher.js';
import { ZkOrphanCleanup } from './zk-orphan-cleanup.js';
import { ZkSequenceAllocator } from './zk-sequence-allocator.js';
import { ZK_BAD_VERSION, ZK_NODE_EXISTS, ZK_NO_NODE, ZkSession } from './zk-session.js';
import { ZkTokenSync, seqOfPath } from './zk-token-sync.js';

// One multi-operation in flight per manager: creations arriving meanwhile gather for the next
// one (group commit). Measured best on the 2-core reference machine (see the README).
const PERSIST_MAX_IN_FLIGHT = 1;

/** What the ZooKeeper store adds to its manager's options: the Router's periodic rebuild. */
export interface ZkTokenStoreOptions extends ZkDelegationTokenSecretManagerOptions {
  /**
   * Rebuild the token cache from `ZKDTSMTokensRoot` this often (ms), and after each
   * reconnection: the Router variant, whose token watcher is off. Default: never.
   */
  rebuildIntervalMs?: number;
}

/**
 * Hadoop's ZooKeeper token store (`ZKDelegationTokenSecretManager`'s storage), in Hadoop's znode
 * layout and payloads. Composed of one ZooKeeper session, the sequence allocator (CAS ranges),
 * the key/token sync (watches, loads, reloads) and the cleanup of creations whose outcome is
 * unknown; this class does the writes: stage 3's token nodes (coalesced into multi-operations),
 * renewals, cancellations, expiry and keys.
 */
export class ZkTokenStore implements TokenStore {
  readonly persistsOutsideLock = true;
  readonly oneTokenPerSequenceNumber = true;
  readonly paths: ZkDtsmPaths;
  readonly #acl: ACL[];
  readonly #session: ZkSession;
  readonly #allocator: ZkSequenceAllocator;
  readonly #batcher: PersistBatcher;
  readonly #tokenWatcherEnabled: boolean;
  readonly #persistCoalescing: boolean;
  readonly #rebuildIntervalMs: number | undefined;
  #ctx: TokenStoreContext | undefined;
  #sync: ZkTokenSync | undefined;
  #orphans: ZkOrphanCleanup | undefined;
  #started = false;
  #rebuildTimer: ReturnType<typeof setInterval> | undefined;
  #rebuilding: Promise<void> | undefined;

  constructor(options: ZkTokenStoreOptions) {
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
    const ms = (name: keyof typeof d & keyof ZkTokenStoreOptions): number =>
      checkInteger(name, options[name] ?? d[name], 1, 3_600_000);
    const sessionTimeoutMs = ms('sessionTimeoutMs');
    const connectionTimeoutMs = ms('connectionTimeoutMs');
    const operationTimeoutMs = ms('operationTimeoutMs');
    const connectRetries = checkInteger(
      'connectRetries',
      options.connectRetries ?? d.connectRetries,
      0,
      1000,
    );
    const authType = checkOneOf('authType', options.authType ?? d.authType, ['none', 'digest', 'sasl']);
    let digestAuth: string | undefined;
    let sasl: ZooKeeperSaslOptions | undefined;
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
    } else if (authType === 'sasl') {
      const given = options.sasl;
      if (typeof given !== 'object' || given === null) {
        throw new InvalidOptionError('sasl', 'authType "sasl" needs { mechanism, principal }');
      }
      const { principal, ...saslOptions } = given;
      if (typeof saslOptions.mechanism?.start !== 'function') {
        throw new InvalidOptionError('sasl.mechanism', 'expected an object with a start(server) method');
      }
      // Hadoop's SASLOwnerACLProvider: the one ACL of every znode the store creates.
      this.#acl = saslOwnerAcl(checkNonEmptyString('sasl.principal', principal));
      sasl = saslOptions;
    } else {
      this.#acl = (zookeeper.ACL as unknown as { OPEN_ACL_UNSAFE: ACL[] }).OPEN_ACL_UNSAFE;
    }
    const seqNumBatchSize = checkInteger(
      'seqNumBatchSize',
      options.seqNumBatchSize ?? d.seqNumBatchSize,
      1,
      1_000_000,
    );
    this.#tokenWatcherEnabled = checkBoolean(
      'tokenWatcherEnabled',
      options.tokenWatcherEnabled ?? d.tokenWatcherEnabled,
    );
    this.#persistCoalescing = checkBoolean(
      'persistCoalescing',
      options.persistCoalescing ?? d.persistCoalescing,
    );
    const maxBatch = checkInteger(
      'persistMaxBatchSize',
      options.persistMaxBatchSize ?? d.persistMaxBatchSize,
      1,
      1000,
    );
    this.#rebuildIntervalMs =
      options.rebuildIntervalMs === undefined
        ? undefined
        : checkInteger('tokenSyncIntervalMs', options.rebuildIntervalMs, 1, 86_400_000);
    this.#session = new ZkSession({
      connectionString,
      sessionTimeoutMs,
      connectionTimeoutMs,
      operationTimeoutMs,
      connectRetries,
      digestAuth,
      sasl,
      onOperation: (operation, elapsedMs) => this.#ctx?.metrics.operation(operation, elapsedMs),
      onConnectionChange: () => this.#onConnectionChange(),
      onHeartbeat: () => this.#orphans?.schedule(),
    });
    this.#allocator = new ZkSequenceAllocator(this.#session, this.paths, seqNumBatchSize);
    this.#batcher = new PersistBatcher((batch) => this.#writeBatch(batch), maxBatch, PERSIST_MAX_IN_FLIGHT);
  }

  /** The ACL put on every znode this store creates. */
  get acl(): readonly ACL[] {
    return this.#acl;
  }

  /** Whether the ZooKeeper session is connected now. */
  get connected(): boolean {
    return this.#session.connected;
  }

  /** The sequence range numbers are handed from: `(current, max]` is still unused. */
  get sequenceRange(): { current: number; max: number } {
    return this.#allocator.range;
  }

  /** Failed creations whose node may still appear; they are never cached. */
  get pendingOrphanCleanups(): number {
    return this.#orphans?.size ?? 0;
  }

  // ---------------------------------------------------------------------------------------------
  // Lifecycle

  async start(context: TokenStoreContext): Promise<void> {
    this.#ctx = context;
    const orphans: ZkOrphanCleanup = new ZkOrphanCleanup({
      session: this.#session,
      tokenPath: (seq: number): string => sync.tokenPath(seq),
      onRemoved: (seq: number): void => sync.forget(seq),
      report: (error: unknown): void => context.reportBackgroundError(error),
    });
    const sync: ZkTokenSync = new ZkTokenSync({
      session: this.#session,
      paths: this.paths,
      context,
      orphans,
      tokenWatcherEnabled: this.#tokenWatcherEnabled,
    });
    this.#orphans = orphans;
    this.#sync = sync;
    await this.#session.start();
    this.#started = true;
    try {
      await this.#session.mkdirp(this.paths.root, this.#acl);
      for (const counter of [this.paths.seqNumRoot, this.paths.keyIdRoot]) {
        await this.#createIfMissing(counter, encodeSharedCount(0));
      }
      for (const dir of [this.paths.masterKeyRoot, this.paths.tokensRoot])
        await this.#createIfMissing(dir, Buffer.alloc(0));
      await sync.watchAndLoad();
      await this.#allocator.reserveRange(undefined);
      if (this.#rebuildIntervalMs !== undefined) {
        await sync.syncTokens({ reloadAll: true, removeMissing: false });
        this.#rebuildTimer = setInterval(() => {
          this.rebuildTokenCache().catch((error: unknown) => sync.report(error));
        }, this.#rebuildIntervalMs);
        this.#rebuildTimer.unref();
      }
    } catch (error) {
      await this.stop();
      throw error;
    }
  }

  async stop(): Promise<void> {
    if (this.#rebuildTimer !== undefined) clearInterval(this.#rebuildTimer);
    this.#rebuildTimer = undefined;
    if (!this.#started) return;
    this.#started = false;
    this.#sync?.stop();
    await this.#session.close();
  }

  reset(): void {}

  /**
   * Rebuilds the local token cache from ZooKeeper now: loads every token node and drops cached
   * tokens whose node is gone (the Router's scheduled task).
   */
  rebuildTokenCache(): Promise<void> {
    if (!this.#rebuilding) {
      this.#rebuilding = this.#syncPart.syncTokens({ reloadAll: true, removeMissing: true }).finally(() => {
        this.#rebuilding = undefined;
      });
    }
    return this.#rebuilding;
  }

  /**
   * The connection came back: reload what the watches cover, clean up after creations that
   * failed with an unknown outcome, and (Router) rebuild the token cache.
   */
  #onConnectionChange(): void {
    const sync = this.#sync;
    if (!sync) return;
    sync.resync();
    this.#orphans?.schedule();
    if (this.#rebuildIntervalMs !== undefined)
      this.rebuildTokenCache().catch((error: unknown) => sync.report(error));
  }

  // ---------------------------------------------------------------------------------------------
  // Stage 1: sequence numbers and key ids

  allocateSequenceNumber(signal: AbortSignal | undefined): Promise<number> {
    return this.#allocator.allocate(signal, () => this.#context.beforeRefill());
  }

  nextKeyId(): Promise<number> {
    return this.#allocator.nextKeyId();
  }

  // ---------------------------------------------------------------------------------------------
  // Stage 3: persistence

  async storeToken(prepared: PreparedToken): Promise<void> {
    const sync = this.#syncPart;
    const seq = prepared.identifier.sequenceNumber;
    const request: PersistRequest = {
      path: sync.tokenPath(seq),
      data: encodeTokenNode({
        identifier: prepared.identifier.bytes,
        renewDate: prepared.info.renewDate,
        password: prepared.info.password.unwrap(),
      }),
    };
    const tokens = this.#context.tokens;
    const entry = sync.beginPersist(prepared);
    const ticket = tokens.openTicket(seq);
    try {
      try {
        if (this.#persistCoalescing) await this.#batcher.submit(request);
        else await this.#writeBatch([request]);
      } catch (error) {
        // The reported node is not this creation's (someone else's, or an orphan): let the
        // ordinary path judge it.
        if (entry.createdEvent) sync.loadToken(seq).catch((e: unknown) => sync.report(e));
        throw persistFailure(prepared.identifier, error);
      }
      // Confirmed, and the watch saw the node appear before the confirmation (ZooKeeper sends the
      // event first): publish unless the token was removed meanwhile.
      if (entry.createdEvent && !ticket.stale && !this.#orphans?.has(seq))
        tokens.put(prepared.identifier, prepared.info);
    } finally {
      sync.endPersist(seq);
      tokens.closeTicket(seq, ticket);
    }
  }

  async #writeBatch(batch: readonly PersistRequest[]): Promise<void> {
    this.#context.metrics.persistBatch(batch.length);
    try {
      if (batch.length === 1) await this.#session.create(batch[0]!.path, batch[0]!.data, this.#acl);
      else await this.#session.createAll(batch, this.#acl);
    } catch (error) {
      if (error instanceof TokenStoreUnavailableError && error.outcomeUnknown) {
        // ZooKeeper may still apply the write: remember the nodes, and delete them once it can be
        // done, so that a creation reported failed never becomes a valid token.
        const orphans = this.#orphans;
        for (const request of batch) {
          const seq = seqOfPath(request.path);
          orphans?.add(seq, request.data);
          this.#syncPart.forget(seq);
        }
        orphans?.schedule();
      }
      throw error;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Tokens: cache-miss path, renewal, cancellation, expiry

  async fetchToken(identifier: DelegationTokenIdentifier): Promise<TokenInformation | undefined> {
    this.#context.metrics.cacheMiss();
    const loaded = await this.#syncPart.loadToken(identifier.sequenceNumber);
    // The node must hold this very identifier: the same number with other fields is another token.
    return loaded && loaded.identifier.key === identifier.key ? loaded.info : undefined;
  }

  async findTokenForUpdate(identifier: DelegationTokenIdentifier): Promise<TokenInformation | undefined> {
    return this.#context.tokens.get(identifier) ?? (await this.fetchToken(identifier));
  }

  async updateToken(identifier: DelegationTokenIdentifier, info: TokenInformation): Promise<void> {
    const tokens = this.#context.tokens;
    const seq = identifier.sequenceNumber;
    const path = this.#syncPart.tokenPath(seq);
    const data = encodeTokenNode({
      identifier: identifier.bytes,
      renewDate: info.renewDate,
      password: info.password.unwrap(),
    });
    const ticket = tokens.openTicket(seq);
    try {
      try {
        await this.#session.setData(path, data, -1);
      } catch (error) {
        if (!(error instanceof TokenStoreError && error.zkCode === ZK_NO_NODE)) throw error;
        await this.#session.create(path, data, this.#acl);
      }
      if (!ticket.stale) tokens.put(identifier, info);
    } finally {
      tokens.closeTicket(seq, ticket);
    }
  }

  async removeToken(identifier: DelegationTokenIdentifier): Promise<boolean> {
    const tokens = this.#context.tokens;
    const sync = this.#syncPart;
    // ZooKeeper is the truth: a token a peer already cancelled is "not found" here too.
    const loaded = await sync.readTokenNode(identifier.sequenceNumber);
    if (!loaded || loaded.identifier.key !== identifier.key) {
      tokens.delete(identifier);
      return false;
    }
    try {
      await this.#session.remove(sync.tokenPath(identifier.sequenceNumber), -1);
    } catch (error) {
      if (!(error instanceof TokenStoreError && error.zkCode === ZK_NO_NODE)) throw error;
      tokens.delete(identifier);
      return false;
    }
    tokens.delete(identifier);
    return true;
  }

  async removeExpiredToken(identifier: DelegationTokenIdentifier): Promise<void> {
    const sync = this.#syncPart;
    const loaded = await sync.readTokenNode(identifier.sequenceNumber);
    if (!loaded || loaded.identifier.key !== identifier.key) return;
    // A peer may have renewed it: only a node that is expired in ZooKeeper too is deleted, and
    // only if it did not change since it was read.
    if (loaded.info.renewDate >= this.#context.clock.now()) return;
    try {
      await this.#session.remove(sync.tokenPath(identifier.sequenceNumber), loaded.version);
    } catch (error) {
      if (!(
        error instanceof TokenStoreError &&
        (error.zkCode === ZK_NO_NODE || error.zkCode === ZK_BAD_VERSION)
      )) {
        throw error;
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Master keys

  findKey(keyId: number): Promise<DelegationKey | undefined> {
    return this.#syncPart.findKey(keyId);
  }

  async storeKey(key: DelegationKey): Promise<void> {
    const path = this.#syncPart.keyPath(key.keyId);
    try {
      await this.#session.create(path, key.encode(), this.#acl);
    } catch (error) {
      if (!(error instanceof TokenStoreError && error.zkCode === ZK_NODE_EXISTS)) throw error;
      await this.#session.setData(path, key.encode(), -1);
    }
    this.#context.keys.set(key);
  }

  async updateKey(key: DelegationKey): Promise<void> {
    const path = this.#syncPart.keyPath(key.keyId);
    try {
      await this.#session.setData(path, key.encode(), -1);
    } catch (error) {
      if (!(error instanceof TokenStoreError && error.zkCode === ZK_NO_NODE)) throw error;
      await this.#session.create(path, key.encode(), this.#acl);
    }
    this.#context.keys.set(key);
  }

  async removeKey(key: DelegationKey): Promise<void> {
    try {
      await this.#session.remove(this.#syncPart.keyPath(key.keyId), -1);
    } catch (error) {
      // As Hadoop: a key that cannot be deleted now is only reported; a later roll tries again.
      if (!(error instanceof TokenStoreError && error.zkCode === ZK_NO_NODE))
        this.#context.reportBackgroundError(error);
    }
  }

  // ---------------------------------------------------------------------------------------------

  async #createIfMissing(path: string, data: Buffer): Promise<void> {
    try {
      await this.#session.create(path, data, this.#acl);
    } catch (error) {
      if (!(error instanceof TokenStoreError && error.zkCode === ZK_NODE_EXISTS)) throw error;
    }
  }

  get #context(): TokenStoreContext {
    if (!this.#ctx) throw new TokenStoreError('the ZooKeeper token store has not been started');
    return this.#ctx;
  }

  get #syncPart(): ZkTokenSync {
    if (!this.#sync) throw new TokenStoreError('the ZooKeeper token store has not been started');
    return this.#sync;
  }
}

function persistFailure(identifier: DelegationTokenIdentifier, error: unknown): unknown {
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

function checkBoolean(option: string, value: unknown): boolean {
  if (typeof value !== 'boolean')
    throw new InvalidOptionError(option, `expected a boolean, got ${typeof value}`);
  return value;
}
