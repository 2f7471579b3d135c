import { Redacted } from '@fastpath/core';
import {
  ZK_EVENT_NODE_CREATED,
  ZK_EVENT_NODE_DATA_CHANGED,
  ZK_EVENT_NODE_DELETED,
} from '@fastpath/zookeeper-client';
import type { TokenInformation } from '../../token-cache.js';
import { TokenStoreError, TokenStoreUnavailableError } from '../../token-errors.js';
import type { PreparedToken, TokenStoreContext } from '../../token-store.js';
import { DelegationKey, decodeTokenNode, type DelegationTokenIdentifier } from '@fastpath/hadoop-common';
import {
  ZK_DTSM_KEY_PREFIX,
  ZK_DTSM_TOKEN_PREFIX,
  type ZkDtsmPaths,
} from '../../zk-delegation-token-secret-manager-options.js';
import type { ZkOrphanCleanup } from './zk-orphan-cleanup.js';
import { ZK_NO_NODE, type ZkSession } from './zk-session.js';

const LOAD_CHUNK = 500;

/** A token node as read, with the version it had. */
export interface LoadedToken {
  identifier: DelegationTokenIdentifier;
  info: TokenInformation;
  version: number;
}

/** A creation of this manager between write and confirmation (see `beginPersist`). */
export interface PersistingToken {
  readonly prepared: PreparedToken;
  /** Whether the watch has reported the node created. */
  createdEvent: boolean;
}

/**
 * Keeps a manager's key and token caches in step with ZooKeeper: persistent watches on
 * `ZKDTSMMasterKeyRoot` (always) and `ZKDTSMTokensRoot` (when the token watcher is on), the
 * initial load and the reload after a reconnection, and the reads behind them. Hadoop gets the
 * same from Curator's CuratorCache. Nodes that cannot be parsed are skipped, as Hadoop does.
 */
export class ZkTokenSync {
  readonly #session: ZkSession;
  readonly #paths: ZkDtsmPaths;
  readonly #ctx: TokenStoreContext;
  readonly #orphans: ZkOrphanCleanup;
  readonly #tokenWatcherEnabled: boolean;
  readonly #unparsable = new Set<number>();
  /**
   * Tokens this manager is persisting, and whether the watch has reported their node created: a
   * token whose creation is confirmed and was reported is published from memory, without a read.
   */
  readonly #persisting = new Map<number, PersistingToken>();
  #resync: Promise<void> | undefined;
  #resyncAgain = false;
  #stopped = false;

  constructor(parts: {
    session: ZkSession;
    paths: ZkDtsmPaths;
    context: TokenStoreContext;
    orphans: ZkOrphanCleanup;
    tokenWatcherEnabled: boolean;
  }) {
    this.#session = parts.session;
    this.#paths = parts.paths;
    this.#ctx = parts.context;
    this.#orphans = parts.orphans;
    this.#tokenWatcherEnabled = parts.tokenWatcherEnabled;
  }

  stop(): void {
    this.#stopped = true;
  }

  /**
   * Sets the persistent watches (keys always, tokens when the watcher is on), then loads what they
   * cover: watching first, so nothing that changes during the load is missed.
   */
  async watchAndLoad(): Promise<void> {
    await this.#session.addPersistentWatch(this.#paths.masterKeyRoot, this.#onKeyEvent);
    if (this.#tokenWatcherEnabled) {
      await this.#session.addPersistentWatch(this.#paths.tokensRoot, this.#onTokenEvent);
    }
    await this.#syncKeys();
    if (this.#tokenWatcherEnabled) await this.syncTokens({ reloadAll: true, removeMissing: true });
  }

  /**
   * The connection came back. Watches do not survive it (a new session has none; the library
   * restores only one-shot watches on the same session) and events may have been missed: set
   * them again and reload.
   */
  resync(): void {
    if (this.#resync) {
      this.#resyncAgain = true;
      return;
    }
    this.#resync = (async () => {
      do {
        this.#resyncAgain = false;
        await this.watchAndLoad();
      } while (this.#resyncAgain && !this.#stopped);
    })()
      .catch((error: unknown) => this.report(error))
      .finally(() => {
        this.#resync = undefined;
      });
  }

  /**
   * Brings the local token cache in line with `ZKDTSMTokensRoot`: lists the children, loads new
   * nodes (or all of them with `reloadAll`) and, with `removeMissing`, drops cached tokens whose
   * node is gone.
   */
  async syncTokens(how: { reloadAll: boolean; removeMissing: boolean }): Promise<void> {
    const present = await this.#numberedChildren(this.#paths.tokensRoot, ZK_DTSM_TOKEN_PREFIX);
    const tokens = this.#ctx.tokens;
    if (how.removeMissing) {
      for (const seq of tokens.sequenceNumbers()) if (!present.has(seq)) tokens.deleteSequenceNumber(seq);
      for (const seq of [...this.#unparsable]) if (!present.has(seq)) this.#unparsable.delete(seq);
    }
    const toLoad = [...present].filter(
      (seq) => how.reloadAll || (tokens.bySequenceNumber(seq) === undefined && !this.#unparsable.has(seq)),
    );
    for (let i = 0; i < toLoad.length; i += LOAD_CHUNK) {
      await Promise.all(toLoad.slice(i, i + LOAD_CHUNK).map((seq) => this.loadToken(seq)));
    }
  }

  /**
   * Reads `DT_<seq>` and publishes it into the cache unless the token was removed locally
   * meanwhile or its creation failed.
   */
  async loadToken(seq: number): Promise<LoadedToken | undefined> {
    if (this.#orphans.has(seq)) return undefined;
    const tokens = this.#ctx.tokens;
    const ticket = tokens.openTicket(seq);
    try {
      let node: { data: Buffer; stat: { version: number } };
      try {
        node = await this.#session.getData(this.tokenPath(seq));
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
      if (!ticket.stale && !this.#orphans.has(seq)) tokens.put(loaded.identifier, loaded.info);
      return loaded;
    } finally {
      tokens.closeTicket(seq, ticket);
    }
  }

  /** Reads `DT_<seq>` without touching the cache; `undefined` when absent or unreadable. */
  async readTokenNode(seq: number): Promise<LoadedToken | undefined> {
    let node: { data: Buffer; stat: { version: number } };
    try {
      node = await this.#session.getData(this.tokenPath(seq));
    } catch (error) {
      if (error instanceof TokenStoreError && error.zkCode === ZK_NO_NODE) return undefined;
      throw error;
    }
    return this.#decodeToken(seq, node.data, node.stat.version);
  }

  /** Forgets whatever is cached for `seq` (a node deleted, or a creation that failed). */
  forget(seq: number): void {
    this.#unparsable.delete(seq);
    this.#ctx.tokens.deleteSequenceNumber(seq);
  }

  /** Registers a creation of this manager whose node is being written. */
  beginPersist(prepared: PreparedToken): PersistingToken {
    const entry = { prepared, createdEvent: false };
    this.#persisting.set(prepared.identifier.sequenceNumber, entry);
    return entry;
  }

  endPersist(seq: number): void {
    this.#persisting.delete(seq);
  }

  /** A master key from the cache, else from `DK_<keyId>` (published into the cache when found). */
  async findKey(keyId: number): Promise<DelegationKey | undefined> {
    return this.#ctx.keys.get(keyId) ?? (await this.#loadKey(keyId));
  }

  tokenPath(seq: number): string {
    return `${this.#paths.tokensRoot}/${ZK_DTSM_TOKEN_PREFIX}${seq}`;
  }

  keyPath(keyId: number): string {
    return `${this.#paths.masterKeyRoot}/${ZK_DTSM_KEY_PREFIX}${keyId}`;
  }

  /** Reports a background failure, unless it is a lost connection (the reload after it repairs). */
  report(error: unknown): void {
    if (!(error instanceof TokenStoreUnavailableError)) this.#ctx.reportBackgroundError(error);
  }

  /** The numbers of the children of `path` named `<prefix><integer>`. */
  async #numberedChildren(path: string, prefix: string): Promise<Set<number>> {
    const present = new Set<number>();
    for (const name of await this.#session.getChildren(path)) {
      const n = numberOfNode(name, prefix);
      if (Number.isInteger(n)) present.add(n);
    }
    return present;
  }

  #decodeToken(seq: number, data: Buffer, version: number): LoadedToken | undefined {
    try {
      const decoded = decodeTokenNode(this.#ctx.tokenKind, data);
      if (decoded.identifier.sequenceNumber !== seq) return undefined;
      return {
        identifier: decoded.identifier,
        info: {
          renewDate: decoded.renewDate,
          password: new Redacted(decoded.password),
          trackingId: this.#ctx.trackingId(decoded.identifier),
        },
        version,
      };
    } catch {
      return undefined;
    }
  }

  readonly #onTokenEvent = (type: number, path: string): void => {
    const seq = seqOfPath(path);
    if (Number.isNaN(seq)) return;
    if (type === ZK_EVENT_NODE_DELETED) {
      this.forget(seq);
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
      this.loadToken(seq).catch((error: unknown) => this.report(error));
    }
  };

  async #loadKey(keyId: number): Promise<DelegationKey | undefined> {
    let node: { data: Buffer };
    try {
      node = await this.#session.getData(this.keyPath(keyId));
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
    this.#ctx.keys.set(key);
    return key;
  }

  readonly #onKeyEvent = (type: number, path: string): void => {
    const keyId = numberOfNode(path, ZK_DTSM_KEY_PREFIX);
    if (!Number.isInteger(keyId)) return;
    if (type === ZK_EVENT_NODE_DELETED) {
      this.#ctx.keys.deleteUnlessCurrent(keyId);
    } else if (type === ZK_EVENT_NODE_CREATED || type === ZK_EVENT_NODE_DATA_CHANGED) {
      this.#loadKey(keyId).catch((error: unknown) => this.report(error));
    }
  };

  /** Loads every key of `ZKDTSMMasterKeyRoot` and forgets keys that are gone. */
  async #syncKeys(): Promise<void> {
    const present = await this.#numberedChildren(this.#paths.masterKeyRoot, ZK_DTSM_KEY_PREFIX);
    for (const keyId of this.#ctx.keys.ids())
      if (!present.has(keyId)) this.#ctx.keys.deleteUnlessCurrent(keyId);
    await Promise.all([...present].map((keyId) => this.#loadKey(keyId)));
  }
}

/** The sequence number of a token node path, or NaN. */
export function seqOfPath(path: string): number {
  return numberOfNode(path, ZK_DTSM_TOKEN_PREFIX);
}

/** The number in the last name of `path` after `prefix` (`.../DT_12` → 12), or NaN. */
function numberOfNode(path: string, prefix: string): number {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return name.startsWith(prefix) ? Number(name.slice(prefix.length)) : Number.NaN;
}
