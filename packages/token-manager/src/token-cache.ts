import type { Redacted } from '@fastpath/core';
import type { DelegationTokenIdentifier } from '@fastpath/hadoop-common';

/** What a manager keeps per token (Hadoop's `DelegationTokenInformation`). */
export interface TokenInformation {
  /** Time until which the token is valid unless renewed, epoch ms. */
  readonly renewDate: number;
  /** The password (HMAC of the identifier bytes). */
  readonly password: Redacted<Buffer>;
  /** MD5 hex of the identifier bytes when tracking ids are kept, else `null`. */
  readonly trackingId: string | null;
}

/** One cached token. */
export interface CachedToken {
  /** The token's identifier; the cache is keyed by all of its fields. */
  readonly identifier: DelegationTokenIdentifier;
  /** Renew date, password and tracking id as the manager keeps them now. */
  readonly info: TokenInformation;
}

/**
 * A read of the store that started before a local removal: `stale` turns true when the token
 * with its sequence number is removed from the cache meanwhile, so the read must not publish.
 */
export interface CacheTicket {
  /** `false` when opened; turns `true` (and stays so) once the sequence number's token is removed. */
  readonly stale: boolean;
}

/** Options of {@link TokenCache}. */
export interface TokenCacheOptions {
  /**
   * Keep at most one token per sequence number: putting a token drops a cached token with the
   * same number and other fields (a store whose node per number is the truth). Default: `false`
   * (Hadoop's map, keyed by every field of the identifier).
   */
  oneTokenPerSequenceNumber?: boolean;
}

/**
 * The local token cache of a manager (Hadoop's `currentTokens`), with the per-owner counts kept
 * in step and an index by sequence number. It does no locking: the manager's lock table says
 * who may change it when. A store that reads tokens from elsewhere publishes them here; tickets
 * let such a read notice that the token was removed while it was in flight.
 */
export class TokenCache {
  readonly #oneTokenPerSequenceNumber: boolean;
  readonly #tokens = new Map<string, CachedToken>();
  readonly #bySequenceNumber = new Map<number, DelegationTokenIdentifier>();
  readonly #ownerCounts = new Map<string, number>();
  readonly #tickets = new Map<number, Set<{ stale: boolean }>>();
  #highestSequenceNumber = 0;

  constructor(options: TokenCacheOptions = {}) {
    this.#oneTokenPerSequenceNumber = options.oneTokenPerSequenceNumber ?? false;
  }

  /** Number of cached tokens. */
  get size(): number {
    return this.#tokens.size;
  }

  /** The highest sequence number ever put since the last `clear()` (0 if none). */
  get highestSequenceNumber(): number {
    return this.#highestSequenceNumber;
  }

  /** The cached information of exactly this identifier (every field equal), or undefined. */
  get(identifier: DelegationTokenIdentifier): TokenInformation | undefined {
    return this.#tokens.get(identifier.key)?.info;
  }

  /** Whether exactly this identifier (every field equal) is cached; expired tokens count until removed. */
  has(identifier: DelegationTokenIdentifier): boolean {
    return this.#tokens.has(identifier.key);
  }

  /** The cached identifier holding `sequenceNumber`, if any. */
  bySequenceNumber(sequenceNumber: number): DelegationTokenIdentifier | undefined {
    return this.#bySequenceNumber.get(sequenceNumber);
  }

  /** Puts or replaces a token; counts its real owner when it is new. */
  put(identifier: DelegationTokenIdentifier, info: TokenInformation): void {
    const seq = identifier.sequenceNumber;
    if (this.#oneTokenPerSequenceNumber) {
      const previous = this.#bySequenceNumber.get(seq);
      if (previous && previous.key !== identifier.key) this.#remove(previous);
    }
    const isNew = !this.#tokens.has(identifier.key);
    this.#tokens.set(identifier.key, { identifier, info });
    this.#bySequenceNumber.set(seq, identifier);
    if (seq > this.#highestSequenceNumber) this.#highestSequenceNumber = seq;
    if (isNew) {
      const owner = realOwner(identifier);
      this.#ownerCounts.set(owner, (this.#ownerCounts.get(owner) ?? 0) + 1);
    }
  }

  /** Drops a token (and makes open tickets of its number stale); returns whether it was there. */
  delete(identifier: DelegationTokenIdentifier): boolean {
    this.markStale(identifier.sequenceNumber);
    return this.#remove(identifier);
  }

  /** Drops whatever token holds `sequenceNumber`, or makes its tickets stale when none is cached. */
  deleteSequenceNumber(sequenceNumber: number): void {
    const identifier = this.#bySequenceNumber.get(sequenceNumber);
    if (identifier) this.delete(identifier);
    else this.markStale(sequenceNumber);
  }

  /** Forgets every token and the highest sequence number. */
  clear(): void {
    for (const seq of this.#bySequenceNumber.keys()) this.markStale(seq);
    this.#tokens.clear();
    this.#bySequenceNumber.clear();
    this.#ownerCounts.clear();
    this.#highestSequenceNumber = 0;
  }

  /** A snapshot of the cached tokens. */
  entries(): CachedToken[] {
    return [...this.#tokens.values()];
  }

  /** Sequence numbers of the cached tokens (a snapshot). */
  sequenceNumbers(): number[] {
    return [...this.#bySequenceNumber.keys()];
  }

  /** Number of cached tokens per real owner (realUser when set, else owner), a copy. */
  ownerCounts(): Map<string, number> {
    return new Map(this.#ownerCounts);
  }

  /** Starts a read of `sequenceNumber` from a store; close it with `closeTicket` when done. */
  openTicket(sequenceNumber: number): CacheTicket {
    const ticket = { stale: false };
    let set = this.#tickets.get(sequenceNumber);
    if (!set) {
      set = new Set();
      this.#tickets.set(sequenceNumber, set);
    }
    set.add(ticket);
    return ticket;
  }

  /**
   * Ends a read opened with {@link openTicket}: the ticket no longer turns stale. Safe to call
   * twice or for a ticket already dropped by {@link clear}.
   */
  closeTicket(sequenceNumber: number, ticket: CacheTicket): void {
    const set = this.#tickets.get(sequenceNumber);
    if (!set) return;
    set.delete(ticket);
    if (set.size === 0) this.#tickets.delete(sequenceNumber);
  }

  /** Makes every open ticket of `sequenceNumber` stale. */
  markStale(sequenceNumber: number): void {
    for (const ticket of this.#tickets.get(sequenceNumber) ?? []) ticket.stale = true;
  }

  #remove(identifier: DelegationTokenIdentifier): boolean {
    if (!this.#tokens.delete(identifier.key)) return false;
    const seq = identifier.sequenceNumber;
    if (this.#bySequenceNumber.get(seq)?.key === identifier.key) this.#bySequenceNumber.delete(seq);
    const owner = realOwner(identifier);
    const count = (this.#ownerCounts.get(owner) ?? 0) - 1;
    if (count > 0) this.#ownerCounts.set(owner, count);
    else this.#ownerCounts.delete(owner);
    return true;
  }
}

function realOwner(identifier: DelegationTokenIdentifier): string {
  return identifier.realUser !== '' ? identifier.realUser : identifier.owner;
}
