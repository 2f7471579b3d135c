import { createHash, createHmac, getHashes, timingSafeEqual } from 'node:crypto';
import {
  InvalidOptionError,
  LockAbortedError,
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
import { formatTime } from './internal/format-time.js';
import { kerberosShortName } from './internal/kerberos-short-name.js';
import { randomKeyBytes } from './internal/random-key-bytes.js';
import { TokenMetrics, type TimedStep } from './internal/token-metrics.js';
import {
  AccessControlError,
  DuplicateTokenError,
  InvalidTokenError,
  TokenCreationAbortedError,
  TokenManagerStateError,
  TokenStoreUnavailableError,
} from './token-errors.js';
import { DelegationKey, DelegationTokenIdentifier, Token, WireFormatError } from '@fastpath/hadoop-common';

/**
 * How token creation is locked.
 * - `'staged'` (HADOOP-20045): allocate the sequence number under a dedicated allocator mutex,
 *   fill the identifier and compute the password under a short global write lock with no I/O, then
 *   persist outside the global lock. Verification never waits on a creator's store I/O.
 * - `'global'`: the behaviour before the fix, the global write lock held across all three stages.
 *   Kept so tests can show it blocking and benchmarks can compare both in one run.
 */
export type CreationLocking = 'staged' | 'global';

/**
 * Fault-injection points of the creation path, for tests: each may return a promise, and the
 * creation waits for it while holding whatever the stage holds. Not for production use.
 */
export interface TokenCreationHooks {
  /**
   * Runs in stage 1 just before a sequence range is reserved in the store (ZooKeeper managers
   * only), holding the allocator mutex (`'staged'`) or the global write lock (`'global'`).
   */
  beforeRefill?: () => void | Promise<void>;
  /** Runs in stage 1 once `sequenceNumber` is chosen, still holding what allocation holds. */
  onAllocate?: (sequenceNumber: number) => void | Promise<void>;
  /**
   * Runs right before the prepared token is written to its store: outside the global lock for the
   * ZooKeeper managers in `'staged'` mode; inside it in `'global'` mode and for the in-memory
   * manager (whose store is the lock-protected cache).
   */
  beforePersist?: (sequenceNumber: number) => void | Promise<void>;
}

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
}

/** Defaults of {@link DelegationTokenSecretManagerOptions} (Hadoop's defaults). */
export const DEFAULT_DELEGATION_TOKEN_SECRET_MANAGER_OPTIONS = Object.freeze({
  tokenKind: 'kms-dt',
  keyUpdateIntervalMs: 86_400_000,
  tokenMaxLifetimeMs: 604_800_000,
  tokenRenewIntervalMs: 86_400_000,
  removalScanIntervalMs: 3_600_000,
  taskIntervalMs: 5000,
  hmacAlgorithm: 'sha1',
  masterKeyLengthBytes: 8,
  storeTokenTrackingId: false,
  creationLocking: 'staged' as CreationLocking,
  name: 'token-manager',
});

/** What a manager keeps per token (Hadoop's `DelegationTokenInformation`). */
export interface TokenInformation {
  /** Time until which the token is valid unless renewed, epoch ms. */
  readonly renewDate: number;
  /** The password (HMAC of the identifier bytes). */
  readonly password: Redacted<Buffer>;
  /** MD5 hex of the identifier bytes when tracking ids are kept, else `null`. */
  readonly trackingId: string | null;
}

/** What {@link DelegationTokenSecretManager.createToken} needs to know about the token to issue. */
export interface CreateTokenRequest {
  /** The user the token authenticates as (full name). */
  owner: string;
  /** Who may renew it; stored as its Kerberos short name. Default: `''` (nobody). */
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

/** A token that went through stages 1 and 2 and waits to be persisted. */
export interface PreparedToken {
  readonly identifier: DelegationTokenIdentifier;
  readonly info: TokenInformation;
}

/** One line of {@link DelegationTokenSecretManager.getTopTokenRealOwners}. */
export interface TokenOwnerCount {
  owner: string;
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

interface CacheEntry {
  identifier: DelegationTokenIdentifier;
  info: TokenInformation;
}

const JAVA_HMAC_NAMES: Record<string, string> = {
  hmacsha1: 'sha1',
  hmacsha256: 'sha256',
  hmacsha512: 'sha512',
};
const MAX_INTERVAL_MS = 100 * 365 * 86_400_000;
/** How many decoded token strings a manager remembers (a few MB at most). */
const DECODED_STRINGS_MAX = 4096;

/**
 * Hadoop's delegation token secret manager (`AbstractDelegationTokenSecretManager`), in memory:
 * issues, verifies, renews and cancels delegation tokens whose password is an HMAC of the
 * identifier bytes under a rolling master key, with Hadoop's defaults, rules and messages.
 *
 * Locking follows Hadoop's table (HADOOP-18851): verification and password retrieval share a
 * fair read lock; renewal, cancellation, key rolls and the collection phase of expiry take the
 * write lock. Creation runs in three stages (allocate, prepare, persist) whose locking is set by
 * `creationLocking` (HADOOP-20045). Subclasses plug in their store through the protected storage
 * methods; the ZooKeeper managers live in `@fastpath/token-manager/zookeeper`.
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
  protected readonly options: ResolvedOptions;
  protected readonly clock: Clock;
  protected readonly hooks: TokenCreationHooks;
  protected readonly tokenMetrics: TokenMetrics;
  /** The global lock of Hadoop's lock table. */
  protected readonly lock: ReadWriteLock;
  /** The dedicated lock of stage 1 in `'staged'` mode. */
  protected readonly allocatorLock: Mutex;

  /** Master keys by id (Hadoop's `allKeys`). */
  protected readonly allKeys = new Map<number, DelegationKey>();
  /** The key new tokens are signed with. */
  protected currentKey: DelegationKey | undefined;
  /** Highest master-key id handed out by this manager (Hadoop's `currentId`). */
  protected currentKeyIdValue = 0;
  /** Highest sequence number handed out (Hadoop's `delegationTokenSequenceNumber`). */
  protected sequenceNumberValue = 0;

  readonly #tokens = new Map<string, CacheEntry>();
  // Clients send the same token string on every request; decoding it (URL-safe base64, the
  // identifier's varints, and re-encoding its canonical bytes) costs more than the rest of a
  // cached verification, so decoded strings are remembered. Token and identifier are immutable,
  // and only well-formed tokens of this manager's kind get in, so a hit answers exactly as a decode.
  readonly #decodedStrings = new Map<string, { token: Token; identifier: DelegationTokenIdentifier }>();
  readonly #ownerStats = new Map<string, number>();
  readonly #onBackgroundError: (error: unknown) => void;
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
    this.options = {
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
    this.clock = options.clock ?? systemClock;
    if (typeof this.clock.now !== 'function')
      throw new InvalidOptionError('clock', 'must have a now() method');
    this.hooks = { ...(options.hooks ?? {}) };
    this.metrics = options.metrics ?? new MetricsRegistry();
    this.tokenMetrics = new TokenMetrics(this.metrics);
    this.lock = new ReadWriteLock({ name: `${this.options.name}-global`, metrics: this.metrics });
    this.allocatorLock = new Mutex({ name: `${this.options.name}-allocator`, metrics: this.metrics });
    this.#onBackgroundError =
      options.onBackgroundError ??
      ((error) => process.emitWarning(`${this.options.name}: background task failed: ${String(error)}`));
  }

  /** Token kind issued and accepted. */
  get tokenKind(): string {
    return this.options.tokenKind;
  }

  /** How creation is locked. */
  get creationLocking(): CreationLocking {
    return this.options.creationLocking;
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
    return this.currentKey?.keyId ?? 0;
  }

  /**
   * Prepares the store, makes the first master key and starts the background task (Hadoop's
   * `startThreads`).
   */
  async start(): Promise<void> {
    if (this.#running) throw new TokenManagerStateError(`${this.options.name} is already running`);
    await this.startStorage();
    try {
      await this.lock.runWrite(() => this.#installNewCurrentKey());
    } catch (error) {
      await this.stopStorage();
      throw error;
    }
    this.#running = true;
    const now = this.clock.now();
    this.#lastKeyUpdateMs = now;
    this.#lastCleanupMs = now;
    const period = Math.min(this.options.taskIntervalMs, this.options.keyUpdateIntervalMs);
    if (this.options.taskIntervalMs > 0) {
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
    await this.stopStorage();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }

  // ---------------------------------------------------------------------------------------------
  // Creation: three stages, one switch.

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
    const fields = this.#checkRequest(request);
    if (!this.#running)
      throw new TokenManagerStateError(`${this.options.name} is not running: call start() first`);
    const signal = options.signal;
    try {
      const prepared =
        this.options.creationLocking === 'global'
          ? await this.#withAbort(() =>
              this.lock.runWrite(
                () => this.#createStages(fields, signal, true),
                signal ? { signal } : undefined,
              ),
            )
          : await this.#createStages(fields, signal, false);
      this.tokenMetrics.created();
      return new Token({
        identifier: prepared.identifier.bytes,
        password: prepared.info.password,
        kind: this.options.tokenKind,
        service: fields.service,
      });
    } catch (error) {
      this.tokenMetrics.failed('create');
      throw error;
    }
  }

  /**
   * The three stages. With `underGlobalLock` the caller holds the write lock across all of them
   * (`'global'`); otherwise stage 1 takes the allocator mutex, stage 2 the write lock, and stage 3
   * runs outside both (`'staged'`).
   */
  async #createStages(
    fields: Required<CreateTokenRequest>,
    signal: AbortSignal | undefined,
    underGlobalLock: boolean,
  ): Promise<PreparedToken> {
    const lockOptions = signal ? { signal } : undefined;
    const allocate = (): Promise<number> => this.#allocate(signal);
    const sequenceNumber = await this.#timed('allocate', () =>
      underGlobalLock
        ? allocate()
        : this.#withAbort(() => this.allocatorLock.runExclusive(allocate, lockOptions)),
    );
    const prepareAndMaybeStore = async (): Promise<PreparedToken> => {
      const prepared = this.#prepare(sequenceNumber, fields);
      if (!this.persistsOutsideLock) {
        // The base store is the lock-protected cache: it keeps Hadoop's storeToken-under-lock.
        await this.hooks.beforePersist?.(sequenceNumber);
        await this.storeToken(prepared.identifier, prepared.info);
      }
      return prepared;
    };
    const prepared = await this.#timed('prepare', () =>
      underGlobalLock
        ? prepareAndMaybeStore()
        : this.#withAbort(() => this.lock.runWrite(prepareAndMaybeStore, lockOptions)),
    );
    if (this.persistsOutsideLock) {
      await this.#timed('persist', async () => {
        await this.hooks.beforePersist?.(sequenceNumber);
        await this.persistCreatedToken(prepared);
      });
    }
    return prepared;
  }

  async #allocate(signal: AbortSignal | undefined): Promise<number> {
    if (signal?.aborted)
      throw new TokenCreationAbortedError('token creation aborted before allocation', {
        cause: signal.reason,
      });
    const sequenceNumber = await this.allocateSequenceNumber(signal);
    await this.hooks.onAllocate?.(sequenceNumber);
    return sequenceNumber;
  }

  /** Stage 2, under the write lock: no I/O here. */
  #prepare(sequenceNumber: number, fields: Required<CreateTokenRequest>): PreparedToken {
    const key = this.currentKey;
    if (!key) throw new TokenManagerStateError(`${this.options.name} has no current master key`);
    const now = this.clock.now();
    const identifier = new DelegationTokenIdentifier(this.options.tokenKind, {
      owner: fields.owner,
      renewer: fields.renewer,
      realUser: fields.realUser,
      issueDate: now,
      maxDate: now + this.options.tokenMaxLifetimeMs,
      sequenceNumber,
      masterKeyId: key.keyId,
    });
    const password = this.computePassword(identifier.bytes, key);
    return {
      identifier,
      info: {
        renewDate: now + this.options.tokenRenewIntervalMs,
        password: new Redacted(password),
        trackingId: this.#trackingId(identifier),
      },
    };
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
    const startedMs = performance.now();
    try {
      const stored = await this.retrievePassword(identifier);
      if (!constantTimeEqual(stored.unwrap(), password instanceof Redacted ? password.unwrap() : password)) {
        throw new InvalidTokenError(
          'password-mismatch',
          `token (${identifier}) is invalid, password doesn't match`,
        );
      }
      this.tokenMetrics.verified();
    } catch (error) {
      this.tokenMetrics.failed('verify');
      throw error;
    } finally {
      this.tokenMetrics.step('verify', performance.now() - startedMs);
    }
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
  async verify(token: Token | string): Promise<DelegationTokenIdentifier> {
    let decoded: { token: Token; identifier: DelegationTokenIdentifier };
    try {
      decoded = this.decodeToken(token);
    } catch (error) {
      this.tokenMetrics.failed('verify');
      throw error;
    }
    await this.verifyToken(decoded.identifier, decoded.token.password);
    return decoded.identifier;
  }

  /** Reads the identifier of a token of this manager's kind (`ERR_INVALID_TOKEN` if it cannot). */
  decodeToken(token: Token | string): { token: Token; identifier: DelegationTokenIdentifier } {
    if (typeof token === 'string') {
      const known = this.#decodedStrings.get(token);
      if (known !== undefined) return known;
    }
    try {
      const t = typeof token === 'string' ? Token.fromUrlString(token) : token;
      if (!(t instanceof Token)) throw new WireFormatError('not a token');
      if (t.kind !== this.options.tokenKind) {
        throw new WireFormatError(`token kind "${t.kind}" is not "${this.options.tokenKind}"`);
      }
      const decoded = Object.freeze({
        token: t,
        identifier: DelegationTokenIdentifier.decode(this.options.tokenKind, t.identifier),
      });
      if (typeof token === 'string') {
        // Bounded: when full, the oldest entry goes (insertion order), so a flood of distinct
        // strings costs a decode each, as without the cache, and never grows memory.
        if (this.#decodedStrings.size >= DECODED_STRINGS_MAX) {
          this.#decodedStrings.delete(this.#decodedStrings.keys().next().value as string);
        }
        this.#decodedStrings.set(token, decoded);
      }
      return decoded;
    } catch (error) {
      if (error instanceof WireFormatError) {
        throw new InvalidTokenError('malformed', `malformed delegation token: ${error.message}`, {
          cause: error,
        });
      }
      throw error;
    }
  }

  async #findTokenInfo(identifier: DelegationTokenIdentifier): Promise<TokenInformation | undefined> {
    const cached = await this.lock.runRead(() => this.#tokens.get(identifier.key)?.info);
    if (cached !== undefined && cached.renewDate >= this.clock.now()) return cached;
    // Unknown or expired here: the store may know better (created or renewed by a peer since).
    // The read runs outside the lock: a slow store must not hold up writers (and, through the
    // fair lock, every reader queued behind them).
    try {
      return (await this.fetchTokenInfo(identifier)) ?? cached;
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
    const now = this.clock.now();
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
      const renewDate = await this.lock.runWrite(async () => {
        const now = this.clock.now();
        if (id.maxDate < now) {
          throw new InvalidTokenError(
            'renew-expired',
            `${renewer} tried to renew an expired token (${id}) max expiration date: ${formatTime(id.maxDate)} currentTime: ${formatTime(now)}`,
          );
        }
        if (id.renewer === '') {
          throw new AccessControlError(
            'no-renewer',
            `${renewer} tried to renew a token (${id}) without a renewer`,
          );
        }
        if (id.renewer !== renewer) {
          throw new AccessControlError(
            'renewer-mismatch',
            `${renewer} tries to renew a token (${id}) with non-matching renewer ${id.renewer}`,
          );
        }
        const key = await this.getDelegationKey(id.masterKeyId);
        if (!key) {
          throw new InvalidTokenError(
            'unknown-master-key',
            `Unable to find master key for keyId=${id.masterKeyId} from cache. Failed to renew an unexpired token (${id}) with sequenceNumber=${id.sequenceNumber}`,
          );
        }
        const password = this.computePassword(id.bytes, key);
        if (!constantTimeEqual(password, t.password.unwrap())) {
          throw new AccessControlError(
            'wrong-password',
            `${renewer} is trying to renew a token (${id}) with wrong password`,
          );
        }
        const renewTime = Math.min(id.maxDate, now + this.options.tokenRenewIntervalMs);
        const existing = await this.getTokenInfoForUpdate(id);
        if (existing === undefined) {
          throw new InvalidTokenError('unknown-token', `Renewal request for unknown token (${id})`);
        }
        await this.updateToken(id, {
          renewDate: renewTime,
          password: new Redacted(password),
          trackingId: this.#trackingId(id),
        });
        return renewTime;
      });
      this.tokenMetrics.renewed();
      return renewDate;
    } catch (error) {
      this.tokenMetrics.failed('renew');
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
      await this.lock.runWrite(async () => {
        if (id.owner === '') throw new InvalidTokenError('no-owner', 'Token with no owner');
        const byRenewer = id.renewer !== '' && kerberosShortName(canceller) === id.renewer;
        if (canceller !== id.owner && !byRenewer) {
          throw new AccessControlError(
            'cancel-not-authorized',
            `${canceller} is not authorized to cancel the token (${id})`,
          );
        }
        if (!(await this.removeTokenForCancel(id))) {
          throw new InvalidTokenError('cancel-not-found', `Token not found (${id})`);
        }
      });
      this.tokenMetrics.cancelled();
      return id;
    } catch (error) {
      this.tokenMetrics.failed('cancel');
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
    await this.lock.runWrite(async () => {
      await this.#removeExpiredKeys();
      const current = this.currentKey;
      if (current) {
        const retired = current.withExpiry(this.clock.now() + this.options.tokenMaxLifetimeMs);
        this.currentKey = retired;
        await this.updateDelegationKey(retired);
      }
      await this.#installNewCurrentKey();
    });
    this.#lastKeyUpdateMs = this.clock.now();
  }

  /**
   * Removes tokens not renewed in time: collected and dropped from the cache under the write
   * lock, then removed from the store outside it. Resolves with the removed identifiers.
   */
  async removeExpiredTokens(): Promise<DelegationTokenIdentifier[]> {
    const now = this.clock.now();
    const expired = await this.lock.runWrite(() => {
      const out: DelegationTokenIdentifier[] = [];
      for (const { identifier, info } of this.getCandidateTokensForCleanup()) {
        if (info.renewDate < now) {
          out.push(identifier);
          this.cacheDelete(identifier);
        }
      }
      return out;
    });
    for (const identifier of expired) {
      try {
        await this.logExpireToken(identifier);
        await this.removeExpiredStoredToken(identifier);
      } catch (error) {
        this.tokenMetrics.failed('expire');
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
    return this.#tokens.get(identifier.key)?.info;
  }

  /** All master keys known (copies of the map's values). */
  async getAllKeys(): Promise<DelegationKey[]> {
    return this.lock.runRead(() => [...this.allKeys.values()]);
  }

  /** The tracking id of a cached token, or `null`. */
  async getTokenTrackingId(identifier: DelegationTokenIdentifier): Promise<string | null> {
    return this.lock.runRead(() => this.#tokens.get(identifier.key)?.info.trackingId ?? null);
  }

  /** Adds a key loaded from storage; only before `start()` (Hadoop's `addKey`). */
  async addKey(key: DelegationKey): Promise<void> {
    if (this.#running) throw new TokenManagerStateError("can't add a key while the manager is running");
    await this.lock.runWrite(() => {
      if (key.keyId > this.currentKeyIdValue) this.currentKeyIdValue = key.keyId;
      this.allKeys.set(key.keyId, key);
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
    await this.lock.runWrite(() => {
      const key = this.allKeys.get(identifier.masterKeyId);
      const password = key ? this.computePassword(identifier.bytes, key) : Buffer.alloc(0);
      if (identifier.sequenceNumber > this.sequenceNumberValue)
        this.sequenceNumberValue = identifier.sequenceNumber;
      if (this.#tokens.has(identifier.key)) {
        throw new DuplicateTokenError(`Same delegation token being added twice: (${identifier})`);
      }
      this.cachePut(identifier, {
        renewDate: key ? renewDate : 0,
        password: new Redacted(password),
        trackingId: this.#trackingId(identifier),
      });
    });
  }

  /** Forgets all keys, tokens and counters (Hadoop's `reset`). */
  async reset(): Promise<void> {
    await this.lock.runWrite(() => {
      this.currentKeyIdValue = 0;
      this.allKeys.clear();
      this.sequenceNumberValue = 0;
      this.currentKey = undefined;
      this.cacheClear();
    });
  }

  /** Number of cached tokens per real owner (realUser when set, else owner). */
  getTokenOwnerStats(): ReadonlyMap<string, number> {
    return new Map(this.#ownerStats);
  }

  /** The `n` real owners holding the most cached tokens, most first. */
  getTopTokenRealOwners(n: number): TokenOwnerCount[] {
    return [...this.#ownerStats]
      .map(([owner, count]) => ({ owner, count }))
      .sort((a, b) => b.count - a.count || (a.owner < b.owner ? -1 : 1))
      .slice(0, Math.max(0, n));
  }

  /** Exact latency percentiles of the creation stages and of verification since start or reset. */
  latency(): Record<TimedStep, LatencySummary> {
    return this.tokenMetrics.summaries();
  }

  /** Clears the in-process latency recorders (not the Prometheus series). */
  resetLatency(): void {
    this.tokenMetrics.resetLatency();
  }

  /** Reports a failure of background work (key rolls, scans, store synchronisation). */
  protected reportBackgroundError(error: unknown): void {
    this.#onBackgroundError(error);
  }

  /** HMAC of `bytes` under `key` with the configured algorithm (Hadoop's `createPassword`). */
  protected computePassword(bytes: Uint8Array, key: DelegationKey): Buffer {
    if (key.key === null) throw new TokenManagerStateError(`master key ${key.keyId} has no material`);
    return createHmac(this.options.hmacAlgorithm, key.key.unwrap()).update(bytes).digest();
  }

  // ---------------------------------------------------------------------------------------------
  // Storage: what a subclass overrides. The base store is the in-memory cache itself.

  /** Prepares the store before the first key is made (connect, load). */
  protected async startStorage(): Promise<void> {}

  /** Releases the store. */
  protected async stopStorage(): Promise<void> {}

  /**
   * Whether stage 3 writes to an external store outside the global lock (`persistCreatedToken`).
   * `false` (the base): the token is stored by `storeToken` inside stage 2's lock section.
   */
  protected get persistsOutsideLock(): boolean {
    return false;
  }

  /**
   * Stage 3 for external stores: resolves once the store has confirmed the token. Must not
   * publish the token into the local cache before that.
   */
  protected async persistCreatedToken(prepared: PreparedToken): Promise<void> {
    throw new TokenManagerStateError(
      `${this.constructor.name} does not persist outside the lock (${prepared.identifier.sequenceNumber})`,
    );
  }

  /** Stage 1: the next sequence number (Hadoop's `incrementDelegationTokenSeqNum`). */
  protected async allocateSequenceNumber(_signal?: AbortSignal): Promise<number> {
    return ++this.sequenceNumberValue;
  }

  /** The next master-key id (Hadoop's `incrementCurrentKeyId`); called under the write lock. */
  protected async incrementCurrentKeyId(): Promise<number> {
    return ++this.currentKeyIdValue;
  }

  /** A master key by id (Hadoop's `getDelegationKey`). */
  protected async getDelegationKey(keyId: number): Promise<DelegationKey | undefined> {
    return this.allKeys.get(keyId);
  }

  /** Stores a new master key (Hadoop's `storeDelegationKey`). */
  protected async storeDelegationKey(key: DelegationKey): Promise<void> {
    this.allKeys.set(key.keyId, key);
    await this.storeNewMasterKey(key);
  }

  /** Re-stores a key whose expiry changed (Hadoop's `updateDelegationKey`). */
  protected async updateDelegationKey(key: DelegationKey): Promise<void> {
    this.allKeys.set(key.keyId, key);
  }

  /** Stores a created token (Hadoop's `storeToken`): cache, owner stats, `storeNewToken` hook. */
  protected async storeToken(identifier: DelegationTokenIdentifier, info: TokenInformation): Promise<void> {
    this.cachePut(identifier, info);
    try {
      await this.storeNewToken(identifier, info.renewDate);
    } catch (error) {
      // A creation is reported only once stored: undo the cache entry so nothing half-made stays.
      this.cacheDelete(identifier);
      throw error;
    }
  }

  /** Stores a renewed token (Hadoop's `updateToken`): cache and `updateStoredToken` hook. */
  protected async updateToken(identifier: DelegationTokenIdentifier, info: TokenInformation): Promise<void> {
    this.cachePut(identifier, info);
    await this.updateStoredToken(identifier, info.renewDate);
  }

  /** The token info renewal works on (Hadoop's `getTokenInfo` under the write lock). */
  protected async getTokenInfoForUpdate(
    identifier: DelegationTokenIdentifier,
  ): Promise<TokenInformation | undefined> {
    return this.#tokens.get(identifier.key)?.info;
  }

  /**
   * Cancellation's removal: drops the token and calls `removeStoredToken`. Resolves `false` when
   * the token is unknown.
   */
  protected async removeTokenForCancel(identifier: DelegationTokenIdentifier): Promise<boolean> {
    if (!this.cacheDelete(identifier)) return false;
    await this.removeStoredToken(identifier);
    return true;
  }

  /** The cache-miss path of verification: read the token from the store. Base: no store. */
  protected async fetchTokenInfo(
    _identifier: DelegationTokenIdentifier,
  ): Promise<TokenInformation | undefined> {
    return undefined;
  }

  /** Tokens the expiry scan looks at (Hadoop's `getCandidateTokensForCleanup`). */
  protected getCandidateTokensForCleanup(): Iterable<CacheEntry> {
    return [...this.#tokens.values()];
  }

  /** Removes an expired token from the store (Hadoop's `removeExpiredStoredToken`). */
  protected async removeExpiredStoredToken(identifier: DelegationTokenIdentifier): Promise<void> {
    await this.removeStoredToken(identifier);
  }

  // Hadoop's storage hooks, all no-ops here.
  protected async storeNewMasterKey(_key: DelegationKey): Promise<void> {}
  protected async removeStoredMasterKey(_key: DelegationKey): Promise<void> {}
  protected async storeNewToken(_identifier: DelegationTokenIdentifier, _renewDate: number): Promise<void> {}
  protected async updateStoredToken(
    _identifier: DelegationTokenIdentifier,
    _renewDate: number,
  ): Promise<void> {}
  protected async removeStoredToken(_identifier: DelegationTokenIdentifier): Promise<void> {}
  protected async logUpdateMasterKey(_key: DelegationKey): Promise<void> {}
  protected async logExpireToken(_identifier: DelegationTokenIdentifier): Promise<void> {}

  // ---------------------------------------------------------------------------------------------
  // The local cache, with owner statistics kept in step.

  protected cacheGet(identifier: DelegationTokenIdentifier): TokenInformation | undefined {
    return this.#tokens.get(identifier.key)?.info;
  }

  /** Puts or replaces a token; counts its real owner when it is new. */
  protected cachePut(identifier: DelegationTokenIdentifier, info: TokenInformation): void {
    const isNew = !this.#tokens.has(identifier.key);
    this.#tokens.set(identifier.key, { identifier, info });
    if (isNew) {
      const owner = realOwner(identifier);
      this.#ownerStats.set(owner, (this.#ownerStats.get(owner) ?? 0) + 1);
    }
  }

  /** Drops a token; resolves whether it was there. */
  protected cacheDelete(identifier: DelegationTokenIdentifier): boolean {
    if (!this.#tokens.delete(identifier.key)) return false;
    const owner = realOwner(identifier);
    const count = (this.#ownerStats.get(owner) ?? 0) - 1;
    if (count > 0) this.#ownerStats.set(owner, count);
    else this.#ownerStats.delete(owner);
    return true;
  }

  protected cacheEntries(): IterableIterator<CacheEntry> {
    return this.#tokens.values();
  }

  protected cacheClear(): void {
    this.#tokens.clear();
    this.#ownerStats.clear();
  }

  // ---------------------------------------------------------------------------------------------

  /** Makes and stores a new current key; the caller holds the write lock. */
  async #installNewCurrentKey(): Promise<void> {
    const keyId = await this.incrementCurrentKeyId();
    const key = new DelegationKey({
      keyId,
      expiryDate: this.clock.now() + this.options.keyUpdateIntervalMs + this.options.tokenMaxLifetimeMs,
      key: randomKeyBytes(this.options.masterKeyLengthBytes),
    });
    await this.logUpdateMasterKey(key);
    // Stored before it becomes current: a token must never name a key its peers cannot find.
    await this.storeDelegationKey(key);
    this.currentKey = key;
  }

  async #removeExpiredKeys(): Promise<void> {
    const now = this.clock.now();
    for (const key of [...this.allKeys.values()]) {
      if (key.expiryDate < now) {
        this.allKeys.delete(key.keyId);
        if (key.keyId !== this.currentKey?.keyId) await this.removeStoredMasterKey(key);
      }
    }
  }

  async #runDueTasks(): Promise<void> {
    if (this.#taskBusy || !this.#running) return;
    this.#taskBusy = true;
    try {
      const now = this.clock.now();
      if (this.#lastKeyUpdateMs + this.options.keyUpdateIntervalMs < now) await this.rollMasterKey();
      if (this.#lastCleanupMs + this.options.removalScanIntervalMs < now) await this.removeExpiredTokens();
    } catch (error) {
      this.#onBackgroundError(error);
    } finally {
      this.#taskBusy = false;
    }
  }

  #assertRunning(): void {
    if (!this.#running)
      throw new TokenManagerStateError(`${this.options.name} is not running: call start() first`);
  }

  #checkRequest(request: CreateTokenRequest): Required<CreateTokenRequest> {
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
      renewer: kerberosShortName(text('renewer', request.renewer)),
      realUser: text('realUser', request.realUser),
      service: text('service', request.service),
    };
  }

  #trackingId(identifier: DelegationTokenIdentifier): string | null {
    return this.options.storeTokenTrackingId
      ? createHash('md5').update(identifier.bytes).digest('hex')
      : null;
  }

  async #timed<T>(step: TimedStep, fn: () => Promise<T>): Promise<T> {
    const startedMs = performance.now();
    try {
      return await fn();
    } finally {
      this.tokenMetrics.step(step, performance.now() - startedMs);
    }
  }

  /** Turns a lock wait given up on by the caller's signal into the creation's own error. */
  async #withAbort<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      if (error instanceof LockAbortedError) {
        throw new TokenCreationAbortedError(`token creation aborted while waiting for lock "${error.lock}"`, {
          cause: error,
        });
      }
      throw error;
    }
  }
}

function realOwner(identifier: DelegationTokenIdentifier): string {
  return identifier.realUser !== '' ? identifier.realUser : identifier.owner;
}

/** Equal-length buffers compared in constant time; a length difference is not secret. */
function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

function resolveHmacAlgorithm(value: unknown): string {
  const name = checkNonEmptyString('hmacAlgorithm', value);
  const resolved = JAVA_HMAC_NAMES[name.toLowerCase()] ?? name.toLowerCase();
  if (!getHashes().includes(resolved)) {
    throw new InvalidOptionError('hmacAlgorithm', `unknown hash "${name}"`);
  }
  return resolved;
}

function checkBoolean(option: string, value: unknown): boolean {
  if (typeof value !== 'boolean')
    throw new InvalidOptionError(option, `expected a boolean, got ${typeof value}`);
  return value;
}
