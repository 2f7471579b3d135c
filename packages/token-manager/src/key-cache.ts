import type { DelegationKey } from '@fastpath/hadoop-common';

/**
 * The master keys a manager knows (Hadoop's `allKeys`) and the current one, which new tokens are
 * signed with. It does no locking: the manager's lock table says who may change it when; a store
 * that learns of keys made elsewhere (by a peer) publishes them here.
 */
export class KeyCache {
  readonly #keys = new Map<number, DelegationKey>();
  #current: DelegationKey | undefined;
  #highestKeyId = 0;

  /** The key new tokens are signed with, once the manager has started. */
  get current(): DelegationKey | undefined {
    return this.#current;
  }

  /** The highest key id ever put since the last `clear()` (0 if none). */
  get highestKeyId(): number {
    return this.#highestKeyId;
  }

  /** The known key with this id, or undefined (the store is not asked: see `TokenStore.findKey`). */
  get(keyId: number): DelegationKey | undefined {
    return this.#keys.get(keyId);
  }

  /** Puts or replaces a key (the current one too, when it has the same id). */
  set(key: DelegationKey): void {
    this.#keys.set(key.keyId, key);
    if (key.keyId > this.#highestKeyId) this.#highestKeyId = key.keyId;
    if (this.#current?.keyId === key.keyId) this.#current = key;
  }

  /** Makes `key` (already put) the current key. */
  setCurrent(key: DelegationKey): void {
    this.set(key);
    this.#current = key;
  }

  /** Forgets a key (the current key stays current even when its entry goes). */
  delete(keyId: number): boolean {
    return this.#keys.delete(keyId);
  }

  /** Forgets a key, unless it is the current one; returns whether it was dropped. */
  deleteUnlessCurrent(keyId: number): boolean {
    if (keyId === this.#current?.keyId) return false;
    return this.#keys.delete(keyId);
  }

  /** Key ids known now (a snapshot). */
  ids(): number[] {
    return [...this.#keys.keys()];
  }

  /** All known keys (a snapshot). */
  values(): DelegationKey[] {
    return [...this.#keys.values()];
  }

  /** Forgets every key, the current one and the highest key id (Hadoop's `reset`). */
  clear(): void {
    this.#keys.clear();
    this.#current = undefined;
    this.#highestKeyId = 0;
  }
}
