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

  async start(context: TokenStoreContext): Promise<void> {
    this.#context = context;
  }

  async stop(): Promise<void> {}

  reset(): void {
    this.#lastSequenceNumber = 0;
    this.#lastKeyId = 0;
  }

  async allocateSequenceNumber(_signal?: AbortSignal): Promise<number> {
    this.#lastSequenceNumber = Math.max(this.#lastSequenceNumber, this.#ctx.tokens.highestSequenceNumber) + 1;
    return this.#lastSequenceNumber;
  }

  async nextKeyId(): Promise<number> {
    this.#lastKeyId = Math.max(this.#lastKeyId, this.#ctx.keys.highestKeyId) + 1;
    return this.#lastKeyId;
  }

  async storeKey(key: DelegationKey): Promise<void> {
    this.#ctx.keys.set(key);
  }

  async updateKey(key: DelegationKey): Promise<void> {
    this.#ctx.keys.set(key);
  }

  async removeKey(_key: DelegationKey): Promise<void> {}

  async findKey(keyId: number): Promise<DelegationKey | undefined> {
    return this.#ctx.keys.get(keyId);
  }

  async storeToken(prepared: PreparedToken): Promise<void> {
    this.#ctx.tokens.put(prepared.identifier, prepared.info);
  }

  async findTokenForUpdate(identifier: DelegationTokenIdentifier): Promise<TokenInformation | undefined> {
    return this.#ctx.tokens.get(identifier);
  }

  async updateToken(identifier: DelegationTokenIdentifier, info: TokenInformation): Promise<void> {
    this.#ctx.tokens.put(identifier, info);
  }

  async removeToken(identifier: DelegationTokenIdentifier): Promise<boolean> {
    return this.#ctx.tokens.delete(identifier);
  }

  async removeExpiredToken(_identifier: DelegationTokenIdentifier): Promise<void> {}

  get #ctx(): TokenStoreContext {
    if (!this.#context) throw new TokenManagerStateError('the in-memory token store has not been started');
    return this.#context;
  }
}
