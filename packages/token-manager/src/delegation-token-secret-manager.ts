import { createHash, timingSafeEqual } from 'node:crypto';
import {
  InvalidOptionError,
  MetricsRegistry,
  Mutex,
  ReadWriteLock,
  Redacted,
  checkInteger,
  checkNonEmptyString,
  checkOneOf,
  systemClock,
  type Clock,
  type LatencySummary,
} from '@fastpath/core';
import { InMemoryTokenStore } from './in-memory-token-store.js';
import { formatTime } from './internal/format-time.js';
import { randomKeyBytes } from './internal/random-key-bytes.js';
import { TokenCreation, type CreationLocking, type TokenCreationHooks } from './internal/token-creation.js';
import { TokenDecoder } from './internal/token-decoder.js';
import { TokenMetrics, type TimedStep } from './internal/token-metrics.js';
import { computeTokenPassword, resolveHmacAlgorithm } from './internal/token-password.js';
import { KeyCache } from './key-cache.js';
import {
  AccessControlError,
  DuplicateTokenError,
  InvalidTokenError,
  TokenManagerStateError,
  TokenStoreUnavailableError,
} from './token-errors.js';
import { TokenCache, type TokenInformation } from './token-cache.js';
import type { TokenStore, TokenStoreContext } from './token-store.js';
import {
  DelegationKey,
  KerberosNameRules,
  MalformedKerberosNameError,
  NoMatchingKerberosRuleError,
  Token,
  type DelegationTokenIdentifier,
} from '@fastpath/hadoop-common';

/** Options of {@link DelegationTokenSecretManager}. Intervals are milliseconds. */
export interface DelegationTokenSecretManagerOptions {
  /** Kind written into issued tokens and expected from presented ones. Default: `'kms-dt'`. */
  tokenKind?: string;
  /** How often a new master key is made (ms). Default: 86 400 000 (1 day). */
  keyUpdateIntervalMs?: number;
  /** How long a token can live at most, renewals included (ms). Default: 604 800 000 (7 days). */
  tokenMaxLifetimeMs?: number;
  /** How long a token stays valid without renewal (ms). Default: 86 400 000 (1 day). */
  tokenRenewIntervalMs?: number;
  /** How often expired tokens are removed (ms). Default: 3 600 000 (1 hour). */
  removalScanIntervalMs?: number;
  /**
   * How often the background task checks whether a key roll or a removal scan is due (ms); the
   * effective period is `min(taskIntervalMs, keyUpdateIntervalMs)`, as Hadoop's remover thread.
   * `0` runs no background task: the owner calls `rollMasterKey()` / `removeExpiredTokens()`.
   * Default: 5000.
   */
  taskIntervalMs?: number;
  /**
   * HMAC hash for passwords: a Node hash name (`'sha1'`, `'sha256'`) or a Java name
   * (`'HmacSHA1'`, `'HmacSHA256'`). Default: `'sha1'` (Hadoop's HmacSHA1).
   */
  hmacAlgorithm?: string;
  /** Length of new master keys in bytes. Default: 8 (Hadoop's 64-bit keys). */
  masterKeyLengthBytes?: number;
  /** Keep each token's tracking id (MD5 hex of its identifier). Default: `false`. */
  storeTokenTrackingId?: boolean;
  /** See {@link CreationLocking}. Default: `'staged'`. */
  creationLocking?: CreationLocking;
  /** Time source for issue, renew and expiry dates. Default: the system clock. */
  clock?: Clock;
  /** Where metrics go. Default: a private registry, readable as `manager.metrics`. */
  metrics?: MetricsRegistry;
  /** Name of this manager in lock names and messages. Default: `'token-manager'`. */
  name?: string;
  /** Fault-injection hooks of the creation path, for tests. Default: none. */
  hooks?: TokenCreationHooks;
  /**
   * Called when a background key roll or removal scan fails (Hadoop exits the process; this
   * manager reports and tries again at the next period). Default: `process.emitWarning`.
   */
  onBackgroundError?: (error: unknown) => void;
  /**
   * Where keys and tokens are kept beyond the manager's cache, and where sequence numbers come
   * from. Default: a new {@link InMemoryTokenStore}. The ZooKeeper managers bring their own.
   */
  store?: TokenStore;
  /**
   * How principals become short names (Hadoop's `hadoop.security.auth_to_local` and its
   * mechanism): a token's renewer is stored as its short name, and a canceller's short name is
   * compared with it. Default: `new KerberosNameRules()`: `DEFAULT` with the default realm of
   * krb5.conf (`KRB5_CONFIG`, else `/etc/krb5.conf`), mechanism `hadoop`, so a principal of
   * another realm is refused as Hadoop refuses it (`ERR_TOKEN_ACCESS_DENIED`, reason
   * `unmapped-principal`, the rules' error as `cause`).
   */
  kerberosNameRules?: KerberosNameRules;
}

/** Defaults of {@link DelegationTokenSecretManagerOptions} (Hadoop's defaults). */
export const DEFAULT_DELEGATION_TOKEN_SECRET_MANAGER_OPTIONS = Object.freeze({
  /** `'kms-dt'`, the KMS's token kind (`KMSDelegationToken.TOKEN_KIND_STR`). */
  tokenKind: 'kms-dt',
  /** 1 day in ms (`delegation-token.update-interval.sec`, 86400). */
  keyUpdateIntervalMs: 86_400_000,
  /** 7 days in ms (`delegation-token.max-lifetime.sec`, 604800). */
  tokenMaxLifetimeMs: 604_800_000,
  /** 1 day in ms (`delegation-token.renew-interval.sec`, 86400). */
  tokenRenewIntervalMs: 86_400_000,
  /** 1 hour in ms (`delegation-token.removal-scan-interval.sec`, 3600). */
  removalScanIntervalMs: 3_600_000,
  /** 5 s: how often the background task checks whether a key roll or removal scan is due. */
  taskIntervalMs: 5000,
  /** `'sha1'`: HMAC-SHA1 passwords, as Hadoop's `HmacSHA1`. */
  hmacAlgorithm: 'sha1',
  /** 8 bytes: Hadoop's 64-bit master keys. */
  masterKeyLengthBytes: 8,
  /** `false`: no MD5 tracking id is kept per token. */
  storeTokenTrackingId: false,
  /** `'staged'`: creation's store write runs outside the global write lock (HADOOP-20045). */
  creationLocking: 'staged',
  /** `'token-manager'`, the prefix of lock names and messages. */
  name: 'token-manager',
});

/** What {@link DelegationTokenSecretManager.createToken} needs to know about the token to issue. */
export interface CreateTokenRequest {
  /** The user the token authenticates as (full name). */
  owner: string;
  /**
   * Who may renew it; stored as its short name under `kerberosNameRules` (a principal no rule
   * maps is refused: `ERR_TOKEN_ACCESS_DENIED`, reason `unmapped-principal`). Default: `''` (nobody).
   */
  renewer?: string;
  /** The real user when `owner` is impersonated by a proxy user. Default: `''`. */
  realUser?: string;
  /** The token's service field, e.g. `'127.0.0.1:9600'`. Default: `''`. */
  service?: string;
}

/** Per-call options of {@link DelegationTokenSecretManager.createToken}. */
export interface CreateTokenOptions {
  /**
   * Gives up while waiting for the allocator or the lock, or while a sequence range is reserved;
   * the call rejects with `ERR_TOKEN_CREATION_ABORTED`. Default: none.
   */
  signal?: AbortSignal;
}

/** One line of {@link DelegationTokenSecretManager.getTopTokenRealOwners}. */
export interface TokenOwnerCount {
  /** The real owner: the identifier's `realUser` when set, else its `owner`. */
  owner: string;
  /** How many tokens of that owner are in the local cache now (expired ones until removed). */
  count: number;
}

interface ResolvedOptions {
  tokenKind: string;
  keyUpdateIntervalMs: number;
  tokenMaxLifetimeMs: number;
  tokenRenewIntervalMs: number;
  removalScanIntervalMs: number;
  taskIntervalMs: number;
  hmacAlgorithm: string;
  masterKeyLengthBytes: number;
  storeTokenTrackingId: boolean;
  creationLocking: CreationLocking;
  name: string;
}

const MAX_INTERVAL_MS = 100 * 365 * 86_400_000;

/**
 * Hadoop's delegation token secret manager (`AbstractDelegationTokenSecretManager`): issues,
 * verifies, renews and cancels delegation tokens whose password is an HMAC of the identifier
 * bytes under a rolling master key, with Hadoop's defaults, rules and messages.
 *
 * It is composed of a token cache, a key cache, a {@link TokenStore} (in memory by default; the
 * ZooKeeper managers in `@fastpath/token-manager/zookeeper` bring theirs), the creation path
 * (allocate, prepare, persist; `creationLocking` sets its locking, HADOOP-20045) and a decoder.
 * Locking follows Hadoop's table (HADOOP-18851): verification and password retrieval share a
 * fair read lock; renewal, cancellation, key rolls and the collection phase of expiry take the
 * write lock.
 *
 * @example
 * ```ts
 * const manager = new DelegationTokenSecretManager({ tokenKind: 'kms-dt' });
 * await manager.start();
 * const token = await manager.createToken({ owner: 'alice', renewer: 'yarn' });
 * const identifier = await manager.verify(token.toUrlString()); // identifier.owner === 'alice'
 * const expiresAt = await manager.renewToken(token, 'yarn');
 * await manager.cancelToken(token, 'alice');
 * await manager.stop();
 * ```
 */
export class DelegationTokenSecretManager implements AsyncDisposable {
  /** The metrics registry this manager records into. */
  readonly metrics: MetricsRegistry;
  readonly #options: ResolvedOptions;
  readonly #clock: Clock;
  readonly #tokenMetrics: TokenMetrics;
  /** The global lock of Hadoop's lock table. */
  readonly #lock: ReadWriteLock;
  readonly #store: TokenStore;
  readonly #tokens: TokenCache;
  readonly #keys = new KeyCache();
  readonly #creation: TokenCreation;
  readonly #decoder: TokenDecoder;
  readonly #storeContext: TokenStoreContext;
  readonly #onBackgroundError: (error: unknown) => void;
  readonly #names: KerberosNameRules;
  #running = false;
  #timer: ReturnType<typeof setInterval> | undefined;
  #taskBusy = false;
  #lastKeyUpdateMs = 0;
  #lastCleanupMs = 0;

  constructor(options: DelegationTokenSecretManagerOptions = {}) {
    const d = DEFAULT_DELEGATION_TOKEN_SECRET_MANAGER_OPTIONS;
    const interval = (name: keyof typeof d, min = 1): number =>
      checkInteger(
        name,
        options[name as keyof DelegationTokenSecretManagerOptions] ?? d[name],
        min,
        MAX_INTERVAL_MS,
      );
    const o: ResolvedOptions = {
      tokenKind: checkNonEmptyString('tokenKind', options.tokenKind ?? d.tokenKind),
      keyUpdateIntervalMs: interval('keyUpdateIntervalMs'),
      tokenMaxLifetimeMs: interval('tokenMaxLifetimeMs'),
      tokenRenewIntervalMs: interval('tokenRenewIntervalMs'),
      removalScanIntervalMs: interval('removalScanIntervalMs'),
      taskIntervalMs: interval('taskIntervalMs', 0),
      hmacAlgorithm: resolveHmacAlgorithm(options.hmacAlgorithm ?? d.hmacAlgorithm),
      masterKeyLengthBytes: checkInteger(
        'masterKeyLengthBytes',
        options.masterKeyLengthBytes ?? d.masterKeyLengthBytes,
        1,
        1024,
      ),
      storeTokenTrackingId: checkBoolean(
        'storeTokenTrackingId',
        options.storeTokenTrackingId ?? d.storeTokenTrackingId,
      ),
      creationLocking: checkOneOf('creationLocking', options.creationLocking ?? d.creationLocking, [
        'staged',
        'global',
      ]),
      name: checkNonEmptyString('name', options.name ?? d.name),
    };
    this.#options = o;
    this.#clock = options.clock ?? systemClock;
    if (typeof this.#clock.now !== 'function')
      throw new InvalidOptionError('clock', 'must have a now() method');
    const store = options.store ?? new InMemoryTokenStore();
    if (typeof store !== 'object' || store === null || typeof store.storeToken !== 'function')
      throw new InvalidOptionError('store', 'expected a TokenStore');
    this.#store = store;
    const names = options.kerberosNameRules ?? new KerberosNameRules();
    if (!(names instanceof KerberosNameRules))
      throw new InvalidOptionError('kerberosNameRules', 'expected a KerberosNameRules');
    this.#names = names;
    this.#tokens = new TokenCache({ oneTokenPerSequenceNumber: store.oneTokenPerSequenceNumber });
    const hooks = { ...(options.hooks ?? {}) };
    this.metrics = options.metrics ?? new MetricsRegistry();
    this.#tokenMetrics = new TokenMetrics(this.metrics);
    this.#lock = new ReadWriteLock({ name: `${o.name}-global`, metrics: this.metrics });
    this.#onBackgroundError =
      options.onBackgroundError ??
      ((error) => process.emitWarning(`${o.name}: background task failed: ${String(error)}`));
    this.#decoder = new TokenDecoder(o.tokenKind);
    this.#creation = new TokenCreation({
      name: o.name,
      locking: o.creationLocking,
      tokenKind: o.tokenKind,
      tokenMaxLifetimeMs: o.tokenMaxLifetimeMs,
      tokenRenewIntervalMs: o.tokenRenewIntervalMs,
      hmacAlgorithm: o.hmacAlgorithm,
      clock: this.#clock,
      lock: this.#lock,
      allocatorLock: new Mutex({ name: `${o.name}-allocator`, metrics: this.metrics }),
      store,
      keys: this.#keys,
      hooks,
      trackingId: (identifier) => this.#trackingId(identifier),
      timeStep: (step, ms) => this.#tokenMetrics.step(step, ms),
    });
    const metrics = this.#tokenMetrics;
    this.#storeContext = {
      tokenKind: o.tokenKind,
      clock: this.#clock,
      tokens: this.#tokens,
      keys: this.#keys,
      metrics: {
        operation: (name, ms) => metrics.zookeeper(name, ms),
        persistBatch: (size) => metrics.persistBatch(size),
        cacheMiss: () => metrics.cacheMiss(),
      },
      beforeRefill: () => hooks.beforeRefill?.(),
      trackingId: (identifier) => this.#trackingId(identifier),
      reportBackgroundError: (error) => this.#onBackgroundError(error),
    };
  }

  /** Token kind issued and accepted. */
  get tokenKind(): string {
    return this.#options.tokenKind;
  }

  /** How creation is locked. */
  get creationLocking(): CreationLocking {
    return this.#options.creationLocking;
  }

  /** Whether `start()` ran and `stop()` did not. */
  get running(): boolean {
    return this.#running;
  }

  /** Number of tokens in the local cache. */
  get tokenCount(): number {
    return this.#tokens.size;
  }

  /** Id of the key new tokens are signed with (0 before start). */
  get currentKeyId(): number {
    return this.#keys.current?.keyId ?? 0;
  }

  /**
   * Prepares the store, makes the first master key and starts the background task (Hadoop's
   * `startThreads`).
   */
  async start(): Promise<void> {
    if (this.#running) throw new TokenManagerStateError(`${this.#options.name} is already running`);
    await this.#store.start(this.#storeContext);
    try {
      await this.#lock.runWrite(() => this.#installNewCurrentKey());
    } catch (error) {
      await this.#store.stop();
      throw error;
    }
    this.#running = true;
    const now = this.#clock.now();
    this.#lastKeyUpdateMs = now;
    this.#lastCleanupMs = now;
    const period = Math.min(this.#options.taskIntervalMs, this.#options.keyUpdateIntervalMs);
    if (this.#options.taskIntervalMs > 0) {
      this.#timer = setInterval(() => void this.#runDueTasks(), period);
      this.#timer.unref();
    }
  }

  /** Stops the background task and releases the store (Hadoop's `stopThreads`). Idempotent. */
  async stop(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    if (!this.#running) return;
    this.#running = false;
    await this.#store.stop();
  }

  /** Same as {@link stop}, for `await using`; safe after `stop()`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }

  // ---------------------------------------------------------------------------------------------
  // Creation: the three stages live in TokenCreation.

  /**
   * Issues a token: allocates a sequence number, fills the identifier (issue date now, max date
   * now + max lifetime, current master key) and computes its password, then persists it. Resolves
   * only after the store confirmed the token; a failed persist rejects and leaves no trace.
   *
   * @example
   * ```ts
   * const token = await manager.createToken({ owner: 'alice', renewer: 'yarn', service: 'kms:9600' });
   * reply.send({ Token: { urlString: token.toUrlString() } });
   * ```
   */
  async createToken(request: CreateTokenRequest, options: CreateTokenOptions = {}): Promise<Token> {
    const fields = checkRequest(request, this.#names);
    this.#assertRunning();
    try {
      const prepared = await this.#creation.create(fields, options.signal);
      this.#tokenMetrics.created();
      return new Token({
        identifier: prepared.identifier.bytes,
        password: prepared.info.password,
        kind: this.#options.tokenKind,
        service: fields.service,
      });
    } catch (error) {
      this.#tokenMetrics.failed('create');
      throw error;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Verification (read lock).

  /**
   * The stored password of a live token (Hadoop's `retrievePassword`). Rejects with
   * `ERR_INVALID_TOKEN` when the token is unknown or not renewed in time.
   */
  async retrievePassword(identifier: DelegationTokenIdentifier): Promise<Redacted<Buffer>> {
    const info = await this.#findTokenInfo(identifier);
    return this.#checkToken(identifier, info).password;
  }

  /**
   * Checks that `password` is the password of the live token `identifier` (Hadoop's
   * `verifyToken`), comparing in constant time.
   *
   * @example
   * ```ts
   * await manager.verifyToken(identifier, token.password); // throws InvalidTokenError if not
   * ```
   */
  async verifyToken(
    identifier: DelegationTokenIdentifier,
    password: Uint8Array | Redacted<Buffer>,
  ): Promise<void> {
    await this.#verifyDecoded(identifier, password);
  }

  /**
   * Decodes a token (object or URL string) and verifies it; resolves with its identifier, whose
   * `owner` (and `realUser`) is who the caller is.
   *
   * @example
   * ```ts
   * const { owner } = await manager.verify(request.headers['x-hadoop-delegation-token']);
   * ```
   */
  verify(token: Token | string): Promise<DelegationTokenIdentifier> {
    let decoded: { token: Token; identifier: DelegationTokenIdentifier };
    try {
      decoded = this.decodeToken(token);
    } catch (error) {
      this.#tokenMetrics.failed('verify');
      return Promise.reject(error);
    }
    // Not async: an async function returning this promise would add two microtask turns.
    return this.#verifyDecoded(decoded.identifier, decoded.token.password);
  }

  // The verification itself, one async step above the lookup: every request of a KMS runs it, and
  // each async layer between the caller and the read lock costs a promise and microtask turns
  // (verify → verifyToken → retrievePassword → lookup was four).
  async #verifyDecoded(
    identifier: DelegationTokenIdentifier,
    password: Uint8Array | Redacted<Buffer>,
  ): Promise<DelegationTokenIdentifier> {
    const startedMs = performance.now();
    try {
      const stored = this.#checkToken(identifier, await this.#findTokenInfo(identifier)).password;
      if (!constantTimeEqual(stored.unwrap(), password instanceof Redacted ? password.unwrap() : password)) {
        throw new InvalidTokenError(
          'password-mismatch',
          `token (${String(identifier)}) is invalid, password doesn't match`,
        );
      }
      this.#tokenMetrics.verified();
      return identifier;
    } catch (error) {
      this.#tokenMetrics.failed('verify');
      throw error;
    } finally {
      this.#tokenMetrics.step('verify', performance.now() - startedMs);
    }
  }

  /** Reads the identifier of a token of this manager's kind (`ERR_INVALID_TOKEN` if it cannot). */
  decodeToken(token: Token | string): {
    /** The token itself (parsed from the URL string when a string was given). */
    token: Token;
    /** Its identifier, decoded as this manager's kind; not yet checked against the cache or store. */
    identifier: DelegationTokenIdentifier;
  } {
    return this.#decoder.decode(token);
  }

  async #findTokenInfo(identifier: DelegationTokenIdentifier): Promise<TokenInformation | undefined> {
    const cached = await this.#lock.runRead(() => this.#tokens.get(identifier));
    if (cached !== undefined && cached.renewDate >= this.#clock.now()) return cached;
    if (this.#store.fetchToken === undefined) return cached;
    // Unknown or expired here: the store may know better (created or renewed by a peer since).
    // The read runs outside the lock: a slow store must not hold up writers (and, through the
    // fair lock, every reader queued behind them).
    try {
      return (await this.#store.fetchToken(identifier)) ?? cached;
    } catch (error) {
      // The store cannot be asked now: a token cached as expired is judged on what is known.
      if (cached !== undefined && error instanceof TokenStoreUnavailableError) return cached;
      throw error;
    }
  }

  #checkToken(identifier: DelegationTokenIdentifier, info: TokenInformation | undefined): TokenInformation {
    if (info === undefined) {
      throw new InvalidTokenError(
        'not-found',
        `Token for real user: ${identifier.realUser}, can't be found in cache`,
      );
    }
    const now = this.#clock.now();
    if (info.renewDate < now) {
      throw new InvalidTokenError(
        'expired',
        `Token ${identifier.realUser} has expired, current time: ${formatTime(now)} expected renewal time: ${formatTime(info.renewDate)}`,
      );
    }
    return info;
  }

  // ---------------------------------------------------------------------------------------------
  // Renewal and cancellation (write lock).

  /**
   * Extends a token's validity to `min(maxDate, now + renewInterval)` and resolves with that
   * time (epoch ms). Only the token's renewer (short name) may renew.
   *
   * @example
   * ```ts
   * const expiresAt = await manager.renewToken(token, 'yarn');
   * ```
   */
  async renewToken(token: Token | string, renewer: string): Promise<number> {
    try {
      const { token: t, identifier: id } = this.decodeToken(token);
      const renewDate = await this.#lock.runWrite(async () => {
        const now = this.#clock.now();
        if (id.maxDate < now) {
          throw new InvalidTokenError(
            'renew-expired',
            `${renewer} tried to renew an expired token (${String(id)}) max expiration date: ${formatTime(id.maxDate)} currentTime: ${formatTime(now)}`,
          );
        }
        if (id.renewer === '') {
          throw new AccessControlError(
            'no-renewer',
            `${renewer} tried to renew a token (${String(id)}) without a renewer`,
          );
        }
        if (id.renewer !== renewer) {
          throw new AccessControlError(
            'renewer-mismatch',
            `${renewer} tries to renew a token (${String(id)}) with non-matching renewer ${id.renewer}`,
          );
        }
        const key = await this.#store.findKey(id.masterKeyId);
        if (!key) {
          throw new InvalidTokenError(
            'unknown-master-key',
            `Unable to find master key for keyId=${id.masterKeyId} from cache. Failed to renew an unexpired token (${String(id)}) with sequenceNumber=${id.sequenceNumber}`,
          );
        }
        const password = computeTokenPassword(this.#options.hmacAlgorithm, id.bytes, key);
        if (!constantTimeEqual(password, t.password.unwrap())) {
          throw new AccessControlError(
            'wrong-password',
            `${renewer} is trying to renew a token (${String(id)}) with wrong password`,
          );
        }
        const renewTime = Math.min(id.maxDate, now + this.#options.tokenRenewIntervalMs);
        const existing = await this.#store.findTokenForUpdate(id);
        if (existing === undefined) {
          throw new InvalidTokenError('unknown-token', `Renewal request for unknown token (${String(id)})`);
        }
        await this.#store.updateToken(id, {
          renewDate: renewTime,
          password: new Redacted(password),
          trackingId: this.#trackingId(id),
        });
        return renewTime;
      });
      this.#tokenMetrics.renewed();
      return renewDate;
    } catch (error) {
      this.#tokenMetrics.failed('renew');
      throw error;
    }
  }

  /**
   * Cancels a token. Allowed for its owner (full name) and for its renewer (the canceller's
   * Kerberos short name). Resolves with the cancelled token's identifier.
   *
   * @example
   * ```ts
   * await manager.cancelToken(token, 'alice');
   * ```
   */
  async cancelToken(token: Token | string, canceller: string): Promise<DelegationTokenIdentifier> {
    try {
      const { identifier: id } = this.decodeToken(token);
      await this.#lock.runWrite(async () => {
        if (id.owner === '') throw new InvalidTokenError('no-owner', 'Token with no owner');
        // As Hadoop: the canceller's short name first (a principal no rule maps is refused), then
        // the owner (full name) or the renewer (short name) may cancel.
        const cancellerShortName = shortName(this.#names, 'canceller', canceller);
        const byRenewer = id.renewer !== '' && cancellerShortName === id.renewer;
        if (canceller !== id.owner && !byRenewer) {
          throw new AccessControlError(
            'cancel-not-authorized',
            `${canceller} is not authorized to cancel the token (${String(id)})`,
          );
        }
        if (!(await this.#store.removeToken(id))) {
          throw new InvalidTokenError('cancel-not-found', `Token not found (${String(id)})`);
        }
      });
      this.#tokenMetrics.cancelled();
      return id;
    } catch (error) {
      this.#tokenMetrics.failed('cancel');
      throw error;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Master keys and expiry.

  /**
   * Retires the current master key (it stays usable for renewal until now + max lifetime), drops
   * expired keys, and makes a new current key. Tokens issued before keep verifying.
   */
  async rollMasterKey(): Promise<void> {
    this.#assertRunning();
    await this.#lock.runWrite(async () => {
      await this.#removeExpiredKeys();
      const current = this.#keys.current;
      if (current) {
        // The retiring key stays current until the new one is stored (a token must never name a
        // key its peers cannot find); KeyCache replaces the current key of the same id.
        const retired = current.withExpiry(this.#clock.now() + this.#options.tokenMaxLifetimeMs);
        await this.#store.updateKey(retired);
      }
      await this.#installNewCurrentKey();
    });
    this.#lastKeyUpdateMs = this.#clock.now();
  }

  /**
   * Removes tokens not renewed in time: collected and dropped from the cache under the write
   * lock, then removed from the store outside it. Resolves with the removed identifiers.
   */
  async removeExpiredTokens(): Promise<DelegationTokenIdentifier[]> {
    const now = this.#clock.now();
    const expired = await this.#lock.runWrite(() => {
      const out: DelegationTokenIdentifier[] = [];
      for (const { identifier, info } of this.#tokens.entries()) {
        if (info.renewDate < now) {
          out.push(identifier);
          this.#tokens.delete(identifier);
        }
      }
      return out;
    });
    for (const identifier of expired) {
      try {
        await this.#store.removeExpiredToken(identifier);
      } catch (error) {
        this.#tokenMetrics.failed('expire');
        this.#onBackgroundError(error);
      }
    }
    this.#lastCleanupMs = now;
    return expired;
  }

  /**
   * What the local cache holds for a token right now, without locking or reading the store: for
   * diagnostics and tests.
   */
  cachedTokenInfo(identifier: DelegationTokenIdentifier): TokenInformation | undefined {
    return this.#tokens.get(identifier);
  }

  /** All master keys known (copies of the map's values). */
  async getAllKeys(): Promise<DelegationKey[]> {
    return this.#lock.runRead(() => this.#keys.values());
  }

  /** The tracking id of a cached token, or `null`. */
  async getTokenTrackingId(identifier: DelegationTokenIdentifier): Promise<string | null> {
    return this.#lock.runRead(() => this.#tokens.get(identifier)?.trackingId ?? null);
  }

  /** Adds a key loaded from storage; only before `start()` (Hadoop's `addKey`). */
  async addKey(key: DelegationKey): Promise<void> {
    if (this.#running) throw new TokenManagerStateError("can't add a key while the manager is running");
    await this.#lock.runWrite(() => {
      this.#keys.set(key);
    });
  }

  /**
   * Adds a token loaded from storage; only before `start()` (Hadoop's
   * `addPersistedDelegationToken`). The password is recomputed with the token's master key (a
   * token whose key is unknown is loaded as expired).
   */
  async addPersistedToken(identifier: DelegationTokenIdentifier, renewDate: number): Promise<void> {
    if (this.#running)
      throw new TokenManagerStateError("can't add a persisted token while the manager is running");
    await this.#lock.runWrite(() => {
      const key = this.#keys.get(identifier.masterKeyId);
      const password = key
        ? computeTokenPassword(this.#options.hmacAlgorithm, identifier.bytes, key)
        : Buffer.alloc(0);
      if (this.#tokens.has(identifier)) {
        throw new DuplicateTokenError(`Same delegation token being added twice: (${String(identifier)})`);
      }
      this.#tokens.put(identifier, {
        renewDate: key ? renewDate : 0,
        password: new Redacted(password),
        trackingId: this.#trackingId(identifier),
      });
    });
  }

  /** Forgets all keys, tokens and counters (Hadoop's `reset`). */
  async reset(): Promise<void> {
    await this.#lock.runWrite(() => {
      this.#store.reset();
      this.#keys.clear();
      this.#tokens.clear();
    });
  }

  /** Number of cached tokens per real owner (realUser when set, else owner). */
  getTokenOwnerStats(): ReadonlyMap<string, number> {
    return this.#tokens.ownerCounts();
  }

  /** The `n` real owners holding the most cached tokens, most first. */
  getTopTokenRealOwners(n: number): TokenOwnerCount[] {
    return [...this.#tokens.ownerCounts()]
      .map(([owner, count]) => ({ owner, count }))
      .sort((a, b) => b.count - a.count || (a.owner < b.owner ? -1 : 1))
      .slice(0, Math.max(0, n));
  }

  /** Exact latency percentiles of the creation stages and of verification since start or reset. */
  latency(): Record<TimedStep, LatencySummary> {
    return this.#tokenMetrics.summaries();
  }

  /** Clears the in-process latency recorders (not the Prometheus series). */
  resetLatency(): void {
    this.#tokenMetrics.resetLatency();
  }

  // ---------------------------------------------------------------------------------------------

  /** Makes and stores a new current key; the caller holds the write lock. */
  async #installNewCurrentKey(): Promise<void> {
    const keyId = await this.#store.nextKeyId();
    const key = new DelegationKey({
      keyId,
      expiryDate: this.#clock.now() + this.#options.keyUpdateIntervalMs + this.#options.tokenMaxLifetimeMs,
      key: randomKeyBytes(this.#options.masterKeyLengthBytes),
    });
    // Stored before it becomes current: a token must never name a key its peers cannot find.
    await this.#store.storeKey(key);
    this.#keys.setCurrent(key);
  }

  async #removeExpiredKeys(): Promise<void> {
    const now = this.#clock.now();
    for (const key of this.#keys.values()) {
      if (key.expiryDate < now) {
        this.#keys.delete(key.keyId);
        if (key.keyId !== this.#keys.current?.keyId) await this.#store.removeKey(key);
      }
    }
  }

  async #runDueTasks(): Promise<void> {
    if (this.#taskBusy || !this.#running) return;
    this.#taskBusy = true;
    try {
      const now = this.#clock.now();
      if (this.#lastKeyUpdateMs + this.#options.keyUpdateIntervalMs < now) await this.rollMasterKey();
      if (this.#lastCleanupMs + this.#options.removalScanIntervalMs < now) await this.removeExpiredTokens();
    } catch (error) {
      this.#onBackgroundError(error);
    } finally {
      this.#taskBusy = false;
    }
  }

  #assertRunning(): void {
    if (!this.#running)
      throw new TokenManagerStateError(`${this.#options.name} is not running: call start() first`);
  }

  #trackingId(identifier: DelegationTokenIdentifier): string | null {
    return this.#options.storeTokenTrackingId
      ? createHash('md5').update(identifier.bytes).digest('hex')
      : null;
  }
}

function checkRequest(request: CreateTokenRequest, names: KerberosNameRules): Required<CreateTokenRequest> {
  if (typeof request !== 'object' || request === null) {
    throw new InvalidOptionError('request', 'expected { owner, renewer?, realUser?, service? }');
  }
  const text = (name: keyof CreateTokenRequest, value: unknown): string => {
    if (value === undefined) return '';
    if (typeof value !== 'string')
      throw new InvalidOptionError(name, `expected a string, got ${typeof value}`);
    return value;
  };
  return {
    owner: text('owner', request.owner),
    renewer: shortRenewer(names, text('renewer', request.renewer)),
    realUser: text('realUser', request.realUser),
    service: text('service', request.service),
  };
}

/** Hadoop's identifier stores its renewer as a short name; an empty renewer stays empty. */
function shortRenewer(names: KerberosNameRules, renewer: string): string {
  return renewer === '' ? '' : shortName(names, 'renewer', renewer);
}

/**
 * A principal's short name. One that no rule maps (or that is malformed) is a refused caller:
 * Hadoop fails the call there with the rules' own message, and a refusal is what a caller
 * (kms-server: 403) can answer; broken rules themselves stay a server fault.
 */
function shortName(names: KerberosNameRules, role: 'renewer' | 'canceller', principal: string): string {
  try {
    return names.shortName(principal);
  } catch (error) {
    if (error instanceof NoMatchingKerberosRuleError || error instanceof MalformedKerberosNameError) {
      throw new AccessControlError('unmapped-principal', `${role}: ${error.message}`, error);
    }
    throw error;
  }
}

/** Equal-length buffers compared in constant time; a length difference is not secret. */
function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

function checkBoolean(option: string, value: unknown): boolean {
  if (typeof value !== 'boolean')
    throw new InvalidOptionError(option, `expected a boolean, got ${typeof value}`);
  return value;
}
