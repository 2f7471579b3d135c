import { LockAbortedError, Redacted, type Clock, type Mutex, type ReadWriteLock } from '@fastpath/core';
import type { KeyCache } from '../key-cache.js';
import { TokenCreationAbortedError, TokenManagerStateError } from '../token-errors.js';
import type { PreparedToken, TokenStore } from '../token-store.js';
import { DelegationTokenIdentifier } from '@fastpath/hadoop-common';
import type { TimedStep } from './token-metrics.js';
import { computeTokenPassword } from './token-password.js';

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

/** The fields of a token to issue, checked. */
export interface TokenFields {
  owner: string;
  renewer: string;
  realUser: string;
}

/** What the creation path works with; all of it belongs to the manager. */
export interface TokenCreationParts {
  /** The manager's name, for messages. */
  readonly name: string;
  readonly locking: CreationLocking;
  readonly tokenKind: string;
  readonly tokenMaxLifetimeMs: number;
  readonly tokenRenewIntervalMs: number;
  readonly hmacAlgorithm: string;
  readonly clock: Clock;
  /** The global lock of Hadoop's lock table. */
  readonly lock: ReadWriteLock;
  /** The dedicated lock of stage 1 in `'staged'` mode. */
  readonly allocatorLock: Mutex;
  readonly store: TokenStore;
  readonly keys: KeyCache;
  readonly hooks: TokenCreationHooks;
  trackingId(identifier: DelegationTokenIdentifier): string | null;
  timeStep(step: TimedStep, ms: number): void;
}

/**
 * The creation path of HADOOP-20045, whole: three stages, and the `'global'` switch that runs
 * them all under the write lock as before the fix.
 *
 *   1. allocate: the next sequence number from the store, under the allocator mutex; a store
 *      reserving ranges does its I/O here, never under the global lock.
 *   2. prepare: under a short global write lock with no I/O, the identifier (issue date, max
 *      date, current master key, sequence number) and its HMAC password.
 *   3. persist: the store writes the token and confirms, outside the global lock; nothing is in
 *      the cache before that. A store without I/O of its own (in memory) stores inside stage 2.
 */
export class TokenCreation {
  readonly #p: TokenCreationParts;

  constructor(parts: TokenCreationParts) {
    this.#p = parts;
  }

  /** Runs the three stages for `fields`; resolves once the store confirmed the token. */
  async create(fields: TokenFields, signal: AbortSignal | undefined): Promise<PreparedToken> {
    if (this.#p.locking === 'global') {
      return withAbort(() =>
        this.#p.lock.runWrite(() => this.#stages(fields, signal, true), signal ? { signal } : undefined),
      );
    }
    return this.#stages(fields, signal, false);
  }

  /**
   * With `underGlobalLock` the caller holds the write lock across all three stages (`'global'`);
   * otherwise stage 1 takes the allocator mutex, stage 2 the write lock, and stage 3 neither.
   */
  async #stages(
    fields: TokenFields,
    signal: AbortSignal | undefined,
    underGlobalLock: boolean,
  ): Promise<PreparedToken> {
    const { lock, allocatorLock, store, hooks } = this.#p;
    const lockOptions = signal ? { signal } : undefined;

    // Stage 1: allocate.
    const allocate = (): Promise<number> => this.#allocate(signal);
    const sequenceNumber = await this.#timed('allocate', () =>
      underGlobalLock ? allocate() : withAbort(() => allocatorLock.runExclusive(allocate, lockOptions)),
    );

    // Stage 2: prepare (and, for a store that is only the lock-protected cache, store).
    const prepareAndMaybeStore = async (): Promise<PreparedToken> => {
      const prepared = this.#prepare(sequenceNumber, fields);
      if (!store.persistsOutsideLock) {
        await hooks.beforePersist?.(sequenceNumber);
        await store.storeToken(prepared);
      }
      return prepared;
    };
    const prepared = await this.#timed('prepare', () =>
      underGlobalLock
        ? prepareAndMaybeStore()
        : withAbort(() => lock.runWrite(prepareAndMaybeStore, lockOptions)),
    );

    // Stage 3: persist, until the store confirms.
    if (store.persistsOutsideLock) {
      await this.#timed('persist', async () => {
        await hooks.beforePersist?.(sequenceNumber);
        await store.storeToken(prepared);
      });
    }
    return prepared;
  }

  async #allocate(signal: AbortSignal | undefined): Promise<number> {
    if (signal?.aborted)
      throw new TokenCreationAbortedError('token creation aborted before allocation', {
        cause: signal.reason,
      });
    const sequenceNumber = await this.#p.store.allocateSequenceNumber(signal);
    await this.#p.hooks.onAllocate?.(sequenceNumber);
    return sequenceNumber;
  }

  /** Stage 2, under the write lock: no I/O here. */
  #prepare(sequenceNumber: number, fields: TokenFields): PreparedToken {
    const p = this.#p;
    const key = p.keys.current;
    if (!key) throw new TokenManagerStateError(`${p.name} has no current master key`);
    const now = p.clock.now();
    const identifier = new DelegationTokenIdentifier(p.tokenKind, {
      owner: fields.owner,
      renewer: fields.renewer,
      realUser: fields.realUser,
      issueDate: now,
      maxDate: now + p.tokenMaxLifetimeMs,
      sequenceNumber,
      masterKeyId: key.keyId,
    });
    const password = computeTokenPassword(p.hmacAlgorithm, identifier.bytes, key);
    return {
      identifier,
      info: {
        renewDate: now + p.tokenRenewIntervalMs,
        password: new Redacted(password),
        trackingId: p.trackingId(identifier),
      },
    };
  }

  async #timed<T>(step: TimedStep, fn: () => Promise<T>): Promise<T> {
    const startedMs = performance.now();
    try {
      return await fn();
    } finally {
      this.#p.timeStep(step, performance.now() - startedMs);
    }
  }
}

/** Turns a lock wait given up on by the caller's signal into the creation's own error. */
export async function withAbort<T>(fn: () => Promise<T>): Promise<T> {
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
