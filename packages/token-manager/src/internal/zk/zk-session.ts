import { Redacted } from '@fastpath/core';
import {
  addPersistentRecursiveWatch,
  closeZooKeeperClient,
  connectZooKeeper,
  watchReconnectStall,
  ZooKeeperConnectTimeoutError,
  ZooKeeperSaslError,
  type PersistentWatchListener,
  type ZooKeeperSaslOptions,
} from '@fastpath/zookeeper-client';
import zookeeper from 'node-zookeeper-client';
import type { ACL, Client, Stat } from 'node-zookeeper-client';
import { TokenStoreError, TokenStoreUnavailableError } from '../../token-errors.js';

/** ZooKeeper error codes the manager branches on. */
export const ZK_NO_NODE = -101;
export const ZK_NODE_EXISTS = -110;
export const ZK_BAD_VERSION = -103;
const ZK_CONNECTION_LOSS = -4;
const ZK_OPERATION_TIMEOUT = -7;
const ZK_SESSION_EXPIRED = -112;

/** How a connection came back: the same session (watches kept) or a new one (all state lost). */
export type ConnectionChange = 'reconnected' | 'new-session';

export interface ZkSessionOptions {
  connectionString: string;
  sessionTimeoutMs: number;
  /** Bound for one connection attempt. */
  connectionTimeoutMs: number;
  /** Bound for one operation; an operation past it means the connection is dead. */
  operationTimeoutMs: number;
  /** Further attempts after the first when starting. */
  connectRetries: number;
  /** `digest` credentials (`user:password`) added to every connection. */
  digestAuth: string | undefined;
  /** SASL every connection authenticates with before its first request; `undefined`: none. */
  sasl: ZooKeeperSaslOptions | undefined;
  /** Called with every operation's name and latency. */
  onOperation(operation: string, ms: number): void;
  /** Called after the connection came back (not for the first connection). */
  onConnectionChange(change: ConnectionChange): void;
  /** Called on every heartbeat while connected (for periodic housekeeping). */
  onHeartbeat(): void;
}

export interface ZkMultiCreate {
  path: string;
  data: Buffer;
}

interface Pending {
  settled: boolean;
  mutation: boolean;
  label: string;
  reject(error: Error): void;
}

type Callback<T> = (error: unknown, result?: T) => void;

/**
 * One logical ZooKeeper connection that survives session loss: a node-zookeeper-client `Client`
 * wrapped so that
 * - every operation is a promise bounded by `operationTimeoutMs`, failing with a typed error
 *   (`TokenStoreUnavailableError`, retriable, when the connection is the problem);
 * - while disconnected, operations fail at once instead of queueing without bound (the library
 *   would hold them until the connection returns, if ever);
 * - a server that stops answering (paused, partitioned) is noticed by a heartbeat and by
 *   operation timeouts, as the Java client's read timeout does: the client is dropped and a new
 *   session is made;
 * - a session that expired is replaced by a new one, and the owner is told so it can reload.
 */
export class ZkSession {
  readonly #o: ZkSessionOptions;
  #client: Client | undefined;
  #sessionId: string | undefined;
  #connected = false;
  #closed = false;
  #reconnecting: Promise<void> | undefined;
  readonly #inflight = new Set<Pending>();
  #heartbeat: ReturnType<typeof setInterval> | undefined;
  #stopStallWatch: (() => void) | undefined;

  constructor(options: ZkSessionOptions) {
    this.#o = options;
  }

  get connected(): boolean {
    return this.#connected;
  }

  /** Connects the first session; rejects with `TokenStoreUnavailableError` if no attempt succeeds. */
  async start(): Promise<void> {
    for (let attempt = 0; attempt <= this.#o.connectRetries && !this.#closed; attempt++) {
      // A refused SASL exchange fails the start at once, naming the reason (ZooKeeperSaslError).
      const client = await this.#connectOnce(true);
      if (client) {
        this.#install(client);
        this.#heartbeat = setInterval(
          () => this.#beat(),
          Math.max(50, Math.floor(this.#o.sessionTimeoutMs / 3)),
        );
        this.#heartbeat.unref();
        return;
      }
    }
    throw new TokenStoreUnavailableError(
      `could not connect to ZooKeeper at ${this.#o.connectionString} (${this.#o.connectRetries + 1} attempts of ${this.#o.connectionTimeoutMs} ms)`,
    );
  }

  /** Ends the session and stops reconnecting. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#connected = false;
    if (this.#heartbeat !== undefined) clearInterval(this.#heartbeat);
    const client = this.#client;
    this.#client = undefined;
    this.#stopStallWatch?.();
    this.#failInflight('the ZooKeeper connection was closed');
    if (client) await closeZooKeeperClient(client, { timeoutMs: 2000 });
  }

  // -------------------------------------------------------------------------------------------
  // Operations

  getData(path: string): Promise<{ data: Buffer; stat: Stat }> {
    return this.#call('getData', path, false, (client, cb: Callback<{ data: Buffer; stat: Stat }>) =>
      client.getData(path, (error, data, stat) => cb(error, { data: data ?? Buffer.alloc(0), stat })),
    );
  }

  getChildren(path: string): Promise<string[]> {
    return this.#call('getChildren', path, false, (client, cb: Callback<string[]>) =>
      client.getChildren(path, (error, children) => cb(error, children)),
    );
  }

  exists(path: string): Promise<Stat | null> {
    return this.#call('exists', path, false, (client, cb: Callback<Stat | null>) =>
      client.exists(path, (error, stat) => cb(error, stat ?? null)),
    );
  }

  create(path: string, data: Buffer, acl: ACL[]): Promise<void> {
    return this.#call('create', path, true, (client, cb: Callback<void>) =>
      client.create(path, data, acl, zookeeper.CreateMode.PERSISTENT, (error) => cb(error)),
    );
  }

  setData(path: string, data: Buffer, version: number): Promise<Stat> {
    return this.#call('setData', path, true, (client, cb: Callback<Stat>) =>
      client.setData(path, data, version, (error, stat) => cb(error, stat)),
    );
  }

  remove(path: string, version: number): Promise<void> {
    return this.#call('delete', path, true, (client, cb: Callback<void>) =>
      client.remove(path, version, (error) => cb(error)),
    );
  }

  getACL(path: string): Promise<ACL[]> {
    return this.#call('getACL', path, false, (client, cb: Callback<ACL[]>) =>
      client.getACL(path, (error, acls) => cb(error, acls)),
    );
  }

  /** Creates every node in one atomic multi-operation: all or none. */
  createAll(nodes: readonly ZkMultiCreate[], acl: ACL[]): Promise<void> {
    const label = nodes.length === 0 ? '(none)' : `${nodes[0]?.path} and ${nodes.length - 1} more`;
    return this.#call('multi', label, true, (client, cb: Callback<void>) => {
      const tx = client.transaction();
      for (const node of nodes) tx.create(node.path, node.data, acl, zookeeper.CreateMode.PERSISTENT);
      tx.commit((error) => cb(error));
    });
  }

  /** Deletes every node in one atomic multi-operation: all or none. */
  removeAll(paths: readonly string[]): Promise<void> {
    const label = paths.length === 0 ? '(none)' : `${paths[0]} and ${paths.length - 1} more`;
    return this.#call('multi', label, true, (client, cb: Callback<void>) => {
      const tx = client.transaction();
      for (const path of paths) tx.remove(path, -1);
      tx.commit((error) => cb(error));
    });
  }

  /**
   * Sets a persistent recursive watch on `path` (ZooKeeper 3.6+): `listener` gets every create,
   * change and delete at or below it until the session or connection is lost.
   */
  addPersistentWatch(path: string, listener: PersistentWatchListener): Promise<void> {
    return this.#call('addWatch', path, false, (client, cb: Callback<void>) =>
      addPersistentRecursiveWatch(
        client,
        path,
        (type, eventPath) => {
          if (this.#client === client) listener(type, eventPath);
        },
        (error) => cb(error),
      ),
    );
  }

  /** Creates `path` and its missing parents with `acl` (an existing node is fine). */
  mkdirp(path: string, acl: ACL[]): Promise<void> {
    return this.#call('mkdirp', path, true, (client, cb: Callback<void>) =>
      client.mkdirp(path, acl, zookeeper.CreateMode.PERSISTENT, (error) => cb(error)),
    );
  }

  // -------------------------------------------------------------------------------------------

  #call<T>(
    operation: string,
    path: string,
    mutation: boolean,
    invoke: (client: Client, cb: Callback<T>) => void,
  ): Promise<T> {
    const client = this.#client;
    if (!this.#connected || client === undefined) {
      return Promise.reject(
        new TokenStoreUnavailableError(`ZooKeeper is not connected (${operation} ${path} not sent)`, {
          outcomeUnknown: false,
        }),
      );
    }
    const startedMs = performance.now();
    return new Promise<T>((resolve, reject) => {
      const pending: Pending = { settled: false, mutation, label: `${operation} ${path}`, reject };
      const timer = setTimeout(() => {
        if (pending.settled) return;
        // No answer in time: as the Java client's read timeout, treat the connection as dead.
        const reason = `no answer from ZooKeeper within ${this.#o.operationTimeoutMs} ms`;
        this.#abandon(client, reason);
        pending.reject(
          new TokenStoreUnavailableError(`${reason}; ${pending.label} did not complete`, {
            outcomeUnknown: mutation,
          }),
        );
      }, this.#o.operationTimeoutMs);
      const settle = (): boolean => {
        if (pending.settled) return false;
        pending.settled = true;
        clearTimeout(timer);
        this.#inflight.delete(pending);
        this.#o.onOperation(operation, performance.now() - startedMs);
        return true;
      };
      this.#inflight.add(pending);
      pending.reject = (error) => {
        if (settle()) reject(error);
      };
      try {
        invoke(client, (error, result) => {
          if (!settle()) return;
          if (error) reject(toStoreError(error, operation, path, mutation));
          else resolve(result as T);
        });
      } catch (error) {
        if (settle()) reject(toStoreError(error, operation, path, mutation));
      }
    });
  }

  /**
   * One bounded connection attempt (the library's own can wait for ever); `undefined` if it
   * failed. A failed SASL exchange is thrown when `saslFailureThrows` (at start), and otherwise
   * counts as a failed attempt (a reconnection tries again: the KDC may be back).
   */
  async #connectOnce(saslFailureThrows = false): Promise<Client | undefined> {
    let client: Client;
    try {
      client = await connectZooKeeper(this.#o.connectionString, {
        timeoutMs: this.#o.connectionTimeoutMs,
        retries: 0,
        sessionTimeoutMs: this.#o.sessionTimeoutMs,
        spinDelayMs: 100,
        operationRetries: 0,
        authInfo:
          this.#o.digestAuth === undefined
            ? []
            : [{ scheme: 'digest', auth: new Redacted(Buffer.from(this.#o.digestAuth, 'utf8')) }],
        ...(this.#o.sasl === undefined ? {} : { sasl: this.#o.sasl }),
      });
    } catch (error) {
      if (error instanceof ZooKeeperConnectTimeoutError) return undefined;
      if (error instanceof ZooKeeperSaslError && !saslFailureThrows) return undefined;
      throw error;
    }
    if (!this.#closed) return client;
    await closeZooKeeperClient(client, { timeoutMs: 0 });
    return undefined;
  }

  #install(client: Client): void {
    this.#client = client;
    this.#sessionId = client.getSessionId().toString('hex');
    this.#connected = true;
    // The library reconnects by itself, but can hang for ever when it reaches a server that is
    // still starting. Once the session timeout has passed without a reconnection the server has
    // given the session up anyway: start over with a new client then.
    const stopStallWatch = watchReconnectStall(client, this.#o.sessionTimeoutMs, () => {
      if (this.#client === client && !this.#connected)
        this.#abandon(client, 'the ZooKeeper connection did not come back in time');
    });
    client.on('disconnected', () => {
      if (this.#client !== client) return;
      this.#connected = false;
    });
    client.on('connected', () => {
      if (this.#client !== client || this.#closed) return;
      this.#connected = true;
      const sameSession = client.getSessionId().toString('hex') === this.#sessionId;
      this.#o.onConnectionChange(sameSession ? 'reconnected' : 'new-session');
    });
    client.on('expired', () => this.#abandon(client, 'the ZooKeeper session expired'));
    // A reconnection whose SASL exchange failed leaves the client closed for good: start over.
    client.on('authenticationFailed', () =>
      this.#abandon(client, 'SASL authentication to ZooKeeper failed on a reconnection'),
    );
    this.#stopStallWatch = stopStallWatch;
  }

  /** Drops `client` (if it is still the current one) and starts making a new session. */
  #abandon(client: Client, reason: string): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    this.#connected = false;
    this.#stopStallWatch?.();
    this.#failInflight(reason);
    void closeZooKeeperClient(client, { timeoutMs: 0 });
    if (!this.#closed) this.#reconnect();
  }

  #reconnect(): void {
    if (this.#reconnecting) return;
    this.#reconnecting = (async () => {
      let delayMs = 50;
      while (!this.#closed) {
        const client = await this.#connectOnce();
        if (client) {
          if (this.#closed) {
            await closeZooKeeperClient(client, { timeoutMs: 0 });
            return;
          }
          this.#install(client);
          this.#o.onConnectionChange('new-session');
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, delayMs).unref());
        delayMs = Math.min(1000, delayMs * 2);
      }
    })().finally(() => {
      this.#reconnecting = undefined;
    });
  }

  #failInflight(reason: string): void {
    for (const pending of [...this.#inflight]) {
      pending.reject(
        new TokenStoreUnavailableError(`${reason}; ${pending.label} did not complete`, {
          outcomeUnknown: pending.mutation,
        }),
      );
    }
  }

  #beat(): void {
    if (!this.#connected || this.#closed) return;
    this.exists('/').catch(() => undefined);
    this.#o.onHeartbeat();
  }
}

function toStoreError(error: unknown, operation: string, path: string, mutation: boolean): TokenStoreError {
  const e = error as { getCode?: () => number; getName?: () => string; code?: unknown; name?: unknown };
  const code =
    typeof e.getCode === 'function' ? e.getCode() : typeof e.code === 'number' ? e.code : undefined;
  const name =
    typeof e.getName === 'function' ? e.getName() : typeof e.name === 'string' ? e.name : String(error);
  const message = `ZooKeeper ${operation} ${path} failed: ${name}${code === undefined ? '' : ` (${code})`}`;
  if (code === ZK_CONNECTION_LOSS || code === ZK_SESSION_EXPIRED || code === ZK_OPERATION_TIMEOUT) {
    return new TokenStoreUnavailableError(message, { cause: error, zkCode: code, outcomeUnknown: mutation });
  }
  return new TokenStoreError(message, { cause: error, ...(code === undefined ? {} : { zkCode: code }) });
}
