import type { Clock } from '@fastpath/core';
import type { KeyCache } from './key-cache.js';
import type { TokenCache, TokenInformation } from './token-cache.js';
import type { DelegationKey, DelegationTokenIdentifier } from '@fastpath/hadoop-common';

/** A token that went through stages 1 and 2 of creation and waits to be persisted. */
export interface PreparedToken {
  /** The filled identifier (sequence number, dates, master key id) the password was computed over. */
  readonly identifier: DelegationTokenIdentifier;
  /** Its renew date, password and tracking id: what the store writes beside the identifier. */
  readonly info: TokenInformation;
}

/** Where a store reports what it does, for the manager's metrics. */
export interface TokenStoreMetrics {
  /** One request to the backing service (e.g. a ZooKeeper `create`) and how long it took. */
  operation(name: string, ms: number): void;
  /** Tokens written together in one request. */
  persistBatch(size: number): void;
  /** A lookup that missed the local cache and read the store. */
  cacheMiss(): void;
}

/** What a manager hands its store when it starts. */
export interface TokenStoreContext {
  /** Kind of the tokens, for decoding what the store holds. */
  readonly tokenKind: string;
  /** The manager's time source: what the store compares renew dates and key expiries with. */
  readonly clock: Clock;
  /** The manager's token cache: the store publishes tokens it loads here. */
  readonly tokens: TokenCache;
  /** The manager's master keys: the store publishes keys it loads here. */
  readonly keys: KeyCache;
  /** Where the store reports its requests, batch sizes and cache misses, into the manager's metrics. */
  readonly metrics: TokenStoreMetrics;
  /** Runs in stage 1 right before a sequence range is reserved (a creation hook, for tests). */
  beforeRefill(): void | Promise<void>;
  /** The tracking id the manager keeps for `identifier` (`null` when it keeps none). */
  trackingId(identifier: DelegationTokenIdentifier): string | null;
  /** Reports a failure of background work (synchronisation, cleanup). */
  reportBackgroundError(error: unknown): void;
}

/**
 * Where a {@link DelegationTokenSecretManager} keeps master keys and tokens beyond its cache, and
 * where its sequence numbers and key ids come from: Hadoop's storage hooks as one interface. The
 * manager calls each method under the lock its lock table names (see the README); a store adds
 * no locking of its own around the manager's state.
 *
 * Implementations: the in-memory store (the default, {@link InMemoryTokenStore}), and the
 * ZooKeeper and Router-ZooKeeper stores behind `@fastpath/token-manager/zookeeper`.
 */
export interface TokenStore {
  /**
   * Whether stage 3 (`storeToken`) writes outside the global write lock (a store with its own
   * I/O). `false`: `storeToken` runs inside stage 2's lock section, as Hadoop's in-memory store.
   */
  readonly persistsOutsideLock: boolean;
  /** Whether the store holds one token per sequence number (the cache then keeps one too). */
  readonly oneTokenPerSequenceNumber: boolean;
  /** Connects and loads, before the first key is made. */
  start(context: TokenStoreContext): Promise<void>;
  /** Releases what `start` took. Idempotent. */
  stop(): Promise<void>;
  /** Forgets counters (Hadoop's `reset`); the manager clears its caches itself. */
  reset(): void;

  /** Stage 1: the next sequence number (Hadoop's `incrementDelegationTokenSeqNum`). */
  allocateSequenceNumber(signal: AbortSignal | undefined): Promise<number>;
  /** The next master-key id (Hadoop's `incrementCurrentKeyId`); under the write lock. */
  nextKeyId(): Promise<number>;

  /** Stores a new master key before it becomes current, and puts it in the key cache. */
  storeKey(key: DelegationKey): Promise<void>;
  /** Re-stores a key whose expiry changed, and puts it in the key cache. */
  updateKey(key: DelegationKey): Promise<void>;
  /** Removes an expired key from the store (failures are reported, not thrown). */
  removeKey(key: DelegationKey): Promise<void>;
  /** A master key by id: the key cache, else the store (Hadoop's `getDelegationKey`). */
  findKey(keyId: number): Promise<DelegationKey | undefined>;

  /**
   * Stores a created token; resolves once the store confirmed it. Nothing may reach the cache
   * before that (a store may publish it after confirmation).
   */
  storeToken(prepared: PreparedToken): Promise<void>;
  /** The token renewal works on: the cache, else the store. */
  findTokenForUpdate(identifier: DelegationTokenIdentifier): Promise<TokenInformation | undefined>;
  /** Stores a renewed token and puts it in the cache. */
  updateToken(identifier: DelegationTokenIdentifier, info: TokenInformation): Promise<void>;
  /** Cancellation: removes the token from store and cache; resolves `false` when it is unknown. */
  removeToken(identifier: DelegationTokenIdentifier): Promise<boolean>;
  /** Removes a token the expiry scan dropped from the cache; outside the lock. */
  removeExpiredToken(identifier: DelegationTokenIdentifier): Promise<void>;
  /**
   * Verification's cache miss: the token as the store has it (published into the cache when
   * found). Absent for a store that is only the cache.
   */
  fetchToken?(identifier: DelegationTokenIdentifier): Promise<TokenInformation | undefined>;
}
