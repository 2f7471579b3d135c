import { FastpathError } from '@fastpath/core';

/**
 * Why a token was refused as invalid. Hadoop raises one `InvalidToken` for all of these; the
 * reason lets a server log or count them apart without parsing the message.
 */
export type InvalidTokenReason =
  | 'malformed'
  | 'not-found'
  | 'expired'
  | 'password-mismatch'
  | 'renew-expired'
  | 'unknown-master-key'
  | 'unknown-token'
  | 'no-owner'
  | 'cancel-not-found';

/**
 * The token cannot be used: unknown, expired, tampered with, or already cancelled. Hadoop's
 * `SecretManager.InvalidToken`, with Hadoop's message texts. Code `ERR_INVALID_TOKEN`, never
 * retriable.
 *
 * @example
 * ```ts
 * try {
 *   await manager.verify(tokenString);
 * } catch (err) {
 *   if (err instanceof InvalidTokenError) return reply(403, err.message);
 *   throw err;
 * }
 * ```
 */
export class InvalidTokenError extends FastpathError {
  /** Which check refused the token; the message is Hadoop's text for it. */
  readonly reason: InvalidTokenReason;
  constructor(reason: InvalidTokenReason, message: string, options: { cause?: unknown } = {}) {
    super('ERR_INVALID_TOKEN', message, options);
    this.reason = reason;
  }
}

/** Why a caller was refused an operation on a token. */
export type AccessDeniedReason =
  | 'no-renewer'
  | 'renewer-mismatch'
  | 'wrong-password'
  | 'cancel-not-authorized'
  /** A renewer or canceller that no Kerberos name rule maps to a short name (`cause` says why). */
  | 'unmapped-principal';

/**
 * The caller may not renew or cancel this token. Hadoop's `AccessControlException`, with Hadoop's
 * message texts. Code `ERR_TOKEN_ACCESS_DENIED`, never retriable.
 *
 * @example
 * ```ts
 * await manager.renewToken(token, 'mallory').catch((err) => {
 *   if (err instanceof AccessControlError) console.log(err.reason); // 'renewer-mismatch'
 * });
 * ```
 */
export class AccessControlError extends FastpathError {
  /** Which rule refused the caller; the message is Hadoop's text for it. */
  readonly reason: AccessDeniedReason;
  constructor(reason: AccessDeniedReason, message: string, cause?: unknown) {
    super('ERR_TOKEN_ACCESS_DENIED', message, cause === undefined ? {} : { cause });
    this.reason = reason;
  }
}

/**
 * The token store (ZooKeeper) refused or failed an operation. Code `ERR_TOKEN_STORE`; `retriable`
 * says whether repeating the call can help. `zkCode` is ZooKeeper's error code when there is one
 * (e.g. -110 for a node that already exists).
 *
 * @example
 * ```ts
 * await manager.createToken({ owner: 'alice' }).catch((err) => {
 *   if (err instanceof TokenStoreError && err.retriable) return retryLater();
 *   throw err;
 * });
 * ```
 */
export class TokenStoreError extends FastpathError {
  /**
   * The code and `retriable` of this class's errors. A subclass states its own here rather than
   * passing them to the constructor, so that no throw site picks either.
   */
  protected static readonly family: {
    /** The `code` every error of the class carries. */
    readonly code: string;
    /** The `retriable` every error of the class carries. */
    readonly retriable: boolean;
  } = {
    code: 'ERR_TOKEN_STORE',
    retriable: false,
  };
  /**
   * ZooKeeper's numeric error code (e.g. -101 no node, -103 bad version, -110 node exists, -4
   * connection loss); undefined when the failure came without one (not connected, no answer in
   * time, an exhausted shared counter, a store not started).
   */
  readonly zkCode: number | undefined;
  constructor(message: string, options: { cause?: unknown; zkCode?: number } = {}) {
    const { code, retriable } = new.target.family;
    super(code, message, { cause: options.cause, retriable });
    this.zkCode = options.zkCode;
  }
}

/**
 * The token store cannot be reached now: the ZooKeeper connection is down, the session expired,
 * or an operation got no answer in time. Code `ERR_TOKEN_STORE_UNAVAILABLE`, always retriable.
 * When `outcomeUnknown` is true the request may still have been applied (ZooKeeper had it when
 * the connection went); the manager cleans up after a creation in that state by itself.
 *
 * @example
 * ```ts
 * for (let attempt = 0; ; attempt++) {
 *   try {
 *     return await manager.createToken({ owner: 'alice' });
 *   } catch (err) {
 *     if (!(err instanceof TokenStoreUnavailableError) || attempt === 3) throw err;
 *   }
 * }
 * ```
 */
export class TokenStoreUnavailableError extends TokenStoreError {
  protected static override readonly family = {
    /** `ERR_TOKEN_STORE_UNAVAILABLE`. */
    code: 'ERR_TOKEN_STORE_UNAVAILABLE',
    /** Always `true`: the store may be reachable again on a later attempt. */
    retriable: true,
  };
  /**
   * `true` when a write was sent and the connection went (or no answer came) before ZooKeeper
   * confirmed it, so it may have been applied; `false` for reads and for requests never sent.
   */
  readonly outcomeUnknown: boolean;
  constructor(message: string, options: { cause?: unknown; zkCode?: number; outcomeUnknown?: boolean } = {}) {
    super(message, options);
    this.outcomeUnknown = options.outcomeUnknown ?? false;
  }
}

/**
 * A token creation gave up before it issued anything: its `AbortSignal` fired while it waited
 * for the allocator or while a sequence range was being reserved. No sequence number outside a
 * reserved range was handed out. Code `ERR_TOKEN_CREATION_ABORTED`, retriable.
 *
 * @example
 * ```ts
 * const token = await manager.createToken({ owner: 'alice' }, { signal: AbortSignal.timeout(2000) });
 * ```
 */
export class TokenCreationAbortedError extends FastpathError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('ERR_TOKEN_CREATION_ABORTED', message, { ...options, retriable: true });
  }
}

/**
 * A call that needs the manager in another state: creating before `start()`, starting twice,
 * adding keys or persisted tokens while running. Code `ERR_TOKEN_MANAGER_STATE`.
 *
 * @example
 * ```ts
 * const manager = new DelegationTokenSecretManager();
 * await manager.createToken({ owner: 'a' }); // throws ERR_TOKEN_MANAGER_STATE: call start() first
 * ```
 */
export class TokenManagerStateError extends FastpathError {
  constructor(message: string) {
    super('ERR_TOKEN_MANAGER_STATE', message);
  }
}

/**
 * `addPersistedToken` got a token that is already loaded. Hadoop's "Same delegation token being
 * added twice". Code `ERR_TOKEN_DUPLICATE`.
 *
 * @example
 * ```ts
 * await manager.addPersistedToken(identifier, renewDate); // twice: ERR_TOKEN_DUPLICATE
 * ```
 */
export class DuplicateTokenError extends FastpathError {
  constructor(message: string) {
    super('ERR_TOKEN_DUPLICATE', message);
  }
}
