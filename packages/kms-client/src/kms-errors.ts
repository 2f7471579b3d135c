import { FastpathError } from '@fastpath/core';

/** What the client knows about a failed call: which call, and what the server said if it answered. */
export interface KmsErrorDetails {
  /** The client method that failed, e.g. `createKey`. */
  operation: string;
  /** HTTP status of the answer; absent when no answer arrived. */
  status?: number;
  /** The key or key version the call was about, when it had one. */
  key?: string;
  /** Simple Java class name from the `RemoteException` body, e.g. `AuthorizationException`. */
  remoteException?: string;
  /** Fully qualified Java class name from the `RemoteException` body. */
  remoteClassName?: string;
  /** The server's message from the `RemoteException` body. */
  remoteMessage?: string;
  /** The foreign error this one wraps (a socket error, a JSON syntax error). */
  cause?: unknown;
}

/**
 * Base class of every error a {@link KmsClient} call throws on purpose. `code` is stable; `status`,
 * `remoteException` and `remoteMessage` carry what the server answered (Hadoop's `RemoteException`
 * body), so a caller can branch on the code and still log the server's own words.
 *
 * @example
 * ```ts
 * try {
 *   await kms.getCurrentVersion('k1');
 * } catch (err) {
 *   if (err instanceof KmsError && err.code === 'ERR_KMS_ACCESS_DENIED') console.error(err.remoteMessage);
 *   else throw err;
 * }
 * ```
 */
export class KmsError extends FastpathError {
  /** The client method that failed, e.g. `createKey`. */
  readonly operation: string;
  /** HTTP status of the server's answer; `undefined` when none arrived. */
  readonly status: number | undefined;
  /** The key or key version the call was about, when it had one. */
  readonly key: string | undefined;
  /** Simple Java class name of the server's exception (`AuthorizationException`, `IOException`…). */
  readonly remoteException: string | undefined;
  /** Fully qualified Java class name of the server's exception. */
  readonly remoteClassName: string | undefined;
  /** The server's own message, from the `RemoteException` body. */
  readonly remoteMessage: string | undefined;

  protected constructor(code: string, summary: string, details: KmsErrorDetails, retriable = false) {
    super(code, composeMessage(summary, details), { cause: details.cause, retriable });
    this.operation = details.operation;
    this.status = details.status;
    this.key = details.key;
    this.remoteException = details.remoteException;
    this.remoteClassName = details.remoteClassName;
    this.remoteMessage = details.remoteMessage;
  }
}

/** The key or key version does not exist (the server said "not found" / "does not exist"). */
export class KmsKeyNotFoundError extends KmsError {
  constructor(details: KmsErrorDetails) {
    super('ERR_KMS_KEY_NOT_FOUND', 'key not found', details);
  }
}

/** A key of that name already exists. */
export class KmsKeyExistsError extends KmsError {
  constructor(details: KmsErrorDetails) {
    super('ERR_KMS_KEY_EXISTS', 'key already exists', details);
  }
}

/** The caller is authenticated but an ACL (operation, key or blacklist) or proxy-user rule denies the call (403). */
export class KmsAccessDeniedError extends KmsError {
  constructor(details: KmsErrorDetails) {
    super('ERR_KMS_ACCESS_DENIED', 'access denied', details);
  }
}

/**
 * The call carried no identity the server accepts: no user name or token (401), or a token where
 * the operation needs a real login (GETDELEGATIONTOKEN / RENEWDELEGATIONTOKEN: 403 without a body).
 */
export class KmsAuthenticationRequiredError extends KmsError {
  constructor(details: KmsErrorDetails) {
    super('ERR_KMS_AUTHENTICATION_REQUIRED', 'authentication required', details);
  }
}

/**
 * The server refused the credentials presented (403 `AuthenticationException`): an invalid,
 * expired or cancelled delegation token, or a renewal by someone who is not the token's renewer.
 */
export class KmsAuthenticationFailedError extends KmsError {
  constructor(details: KmsErrorDetails) {
    super('ERR_KMS_AUTHENTICATION_FAILED', 'authentication failed', details);
  }
}

/** The token to cancel is unknown, already cancelled, not the caller's, or not a valid token (404). */
export class KmsTokenCancelError extends KmsError {
  constructor(details: KmsErrorDetails) {
    super('ERR_KMS_TOKEN_CANCEL_FAILED', 'cannot cancel the delegation token', details);
  }
}

/** The server rejected the request as malformed (400, 405, 413, 431, or another 4xx not listed here). */
export class KmsBadRequestError extends KmsError {
  constructor(details: KmsErrorDetails) {
    super('ERR_KMS_BAD_REQUEST', 'bad request', details);
  }
}

/** 404 for something other than a key or a token: the URL does not lead to a KMS REST API v1. */
export class KmsNotFoundError extends KmsError {
  constructor(details: KmsErrorDetails) {
    super('ERR_KMS_NOT_FOUND', 'no KMS endpoint at this URL', details);
  }
}

/** The server failed (500 or another 5xx not listed here). Repeating the same call fails again. */
export class KmsServerError extends KmsError {
  constructor(details: KmsErrorDetails) {
    super('ERR_KMS_SERVER', 'server error', details);
  }
}

/**
 * The server or a proxy in front of it is overloaded, shutting down or restarting, or gave up
 * waiting for the request (408, 502, 503, 504). Retriable.
 */
export class KmsUnavailableError extends KmsError {
  constructor(details: KmsErrorDetails) {
    super('ERR_KMS_UNAVAILABLE', 'server unavailable', details, true);
  }
}

/**
 * No answer: the connection was refused, reset or could not be opened in `connectTimeoutMs`.
 * Retriable; a non-idempotent call (create, roll, generate, get token) may have been applied if
 * the connection broke after the request was sent.
 */
export class KmsUnreachableError extends KmsError {
  constructor(details: KmsErrorDetails) {
    super('ERR_KMS_UNREACHABLE', 'server unreachable', details, true);
  }
}

/** No complete answer within the call's `timeoutMs`. Retriable, with the caveat of {@link KmsUnreachableError}. */
export class KmsTimeoutError extends KmsError {
  /** The deadline that passed, in milliseconds. */
  readonly timeoutMs: number;
  constructor(details: KmsErrorDetails, timeoutMs: number) {
    super('ERR_KMS_TIMEOUT', `no answer within ${timeoutMs} ms`, details, true);
    this.timeoutMs = timeoutMs;
  }
}

/** The TLS handshake failed: the server's certificate is not trusted (see the `ca` option) or does not match. */
export class KmsTlsError extends KmsError {
  constructor(details: KmsErrorDetails) {
    super('ERR_KMS_TLS', 'TLS handshake failed', details);
  }
}

/** The answer is not what the KMS protocol says: not JSON, a wrong shape, invalid Base64, or too large. */
export class KmsBadResponseError extends KmsError {
  constructor(details: KmsErrorDetails, reason: string) {
    super('ERR_KMS_BAD_RESPONSE', `unexpected answer: ${reason}`, details);
  }
}

/** The caller's `AbortSignal` fired before the call completed. */
export class KmsAbortedError extends KmsError {
  constructor(details: KmsErrorDetails) {
    super('ERR_KMS_ABORTED', 'aborted by the caller', details);
  }
}

/** The client was closed; it takes no more calls. */
export class KmsClientClosedError extends KmsError {
  constructor(details: KmsErrorDetails) {
    super('ERR_KMS_CLIENT_CLOSED', 'the client is closed', details);
  }
}

/**
 * The client could not log in to the KMS with Kerberos: no ticket in the cache (`KRB5CCNAME`)
 * and no keytab, a KDC that refuses, a server that does not answer the SPNEGO exchange as
 * Hadoop's does, a server that does not prove its identity (mutual authentication), or the
 * `kerberos` package missing. The message says which; it never holds a ticket or a key.
 */
export class KmsKerberosLoginError extends KmsError {
  /** What failed, in words (never a ticket or a key). */
  readonly reason: string;
  constructor(details: KmsErrorDetails & { reason: string }) {
    // The reason already says what the cause says: the message does not repeat it.
    const { cause, ...rest } = details;
    super('ERR_KMS_KERBEROS_LOGIN', `Kerberos log-in failed: ${details.reason}`, rest);
    this.reason = details.reason;
    if (cause !== undefined)
      Object.defineProperty(this, 'cause', { value: cause, configurable: true, writable: true });
  }
}

/** A method argument cannot be sent (an empty key name, `numKeys` below 1, a batch mixing keys). */
export class KmsInvalidArgumentError extends KmsError {
  /** The argument at fault. */
  readonly argument: string;
  constructor(operation: string, argument: string, reason: string) {
    super('ERR_KMS_INVALID_ARGUMENT', `invalid argument "${argument}": ${reason}`, { operation });
    this.argument = argument;
  }
}

/** A string given as a delegation token is not a Hadoop token URL string. Never contains the string. */
export class KmsMalformedTokenError extends KmsError {
  /** What is wrong with the string (never the string itself). */
  readonly reason: string;
  constructor(operation: string, reason: string) {
    super('ERR_KMS_TOKEN_MALFORMED', `not a delegation token URL string: ${reason}`, { operation });
    this.reason = reason;
  }
}

function composeMessage(summary: string, d: KmsErrorDetails): string {
  let text = `${d.operation}${d.key === undefined ? '' : ` "${d.key}"`} failed: ${summary}`;
  if (d.remoteMessage !== undefined && d.remoteMessage !== '') text += `: ${d.remoteMessage}`;
  const context = [
    d.status === undefined ? undefined : `HTTP ${d.status}`,
    d.remoteException,
    d.cause === undefined || d.status !== undefined ? undefined : causeText(d.cause),
  ].filter((part) => part !== undefined);
  return context.length === 0 ? text : `${text} (${context.join(', ')})`;
}

function causeText(cause: unknown): string | undefined {
  // Not instanceof Error: socket errors may come from another realm.
  if (typeof cause !== 'object' || cause === null) return undefined;
  const { code, message } = cause as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' && message !== '' ? message : undefined;
  if (typeof code !== 'string') return text;
  return text === undefined ? code : `${code}: ${text}`;
}
