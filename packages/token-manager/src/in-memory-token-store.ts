import { TokenManagerStateError } from './token-errors.js';
import type { TokenInformation } from './token-cache.js';
import type { PreparedToken, TokenStore, TokenStoreContext } from './token-store.js';
import type { DelegationKey, DelegationTokenIdentifier } from '@fastpath/hadoop-common';

/**
 * The store of Hadoop's in-memory secret manager: the manager's caches are all there is.
 * Sequence numbers and key ids count up from the highest the caches have seen (tokens and keys
 * loaded with `addPersistedToken` / `addKey` included). The default store of
 * {@link DelegationTokenSecretManager}.
 *
 * @example
 * ```ts
 * const manager = new DelegationTokenSecretManager({ store: new InMemoryTokenStore() });
 * ```
 */
export class InMemoryTokenStore implements TokenStore {
  readonly persistsOutsideLock = false;
  readonly oneTokenPerSequenceNumber = false;
  #context: TokenStoreContext | undefined;
  #lastSequenceNumber = 0;
  #lastKeyId = 0;

  // The store keeps nothing of its own: each operation is done when it returns, and answers with
  // a settled promise because the TokenStore interface is asynchronous.
  start(context: TokenStoreContext): Promise<void> {
    this.#context = context;
    return Promise.resolve();
  }

  async stop(): Promise<void> {}

  reset(): void {
    this.#lastSequenceNumber = 0;
    this.#lastKeyId = 0;
  }

  allocateSequenceNumber(_signal?: AbortSignal): Promise<number> {
    this.#lastSequenceNumber = Math.max(this.#lastSequenceNumber, this.#ctx.tokens.highestSequenceNumber) + 1;
    return Promise.resolve(this.#lastSequenceNumber);
  }

  nextKeyId(): Promise<number> {
    this.#lastKeyId = Math.max(this.#lastKeyId, this.#ctx.keys.highestKeyId) + 1;
    return Promise.resolve(this.#lastKeyId);
  }

  storeKey(key: DelegationKey): Promise<void> {
    this.#ctx.keys.set(key);
    return Promise.resolve();
  }

  updateKey(key: DelegationKey): Promise<void> {
    this.#ctx.keys.set(key);
    return Promise.resolve();
  }

  async removeKey(_key: DelegationKey): Promise<void> {}

  findKey(keyId: number): Promise<DelegationKey | undefined> {
    return Promise.resolve(this.#ctx.keys.get(keyId));
  }

  storeToken(prepared: PreparedToken): Promise<void> {
    this.#ctx.tokens.put(prepared.identifier, prepared.info);
    return Promise.resolve();
  }

  findTokenForUpdate(identifier: DelegationTokenIdentifier): Promise<TokenInformation | undefined> {
    return Promise.resolve(this.#ctx.tokens.get(identifier));
  }

  updateToken(identifier: DelegationTokenIdentifier, info: TokenInformation): Promise<void> {
    this.#ctx.tokens.put(identifier, info);
    return Promise.resolve();
  }

  removeToken(identifier: DelegationTokenIdentifier): Promise<boolean> {
    return Promise.resolve(this.#ctx.tokens.delete(identifier));
  }

  async removeExpiredToken(_identifier: DelegationTokenIdentifier): Promise<void> {}

  get #ctx(): TokenStoreContext {
    if (!this.#context) throw new TokenManagerStateError('the in-memory token store has not been started');
    return this.#context;
  }
}
