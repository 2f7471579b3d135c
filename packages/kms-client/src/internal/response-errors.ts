// Turns what came back (an HTTP answer that is not 2xx, or no answer at all) into one typed error.
// The KMS answers with Hadoop's RemoteException body and a status from KMSExceptionsProvider; the
// Java class name alone cannot tell "key not found" from any other IOException (both 500), so the
// message is consulted for the few cases callers need to tell apart.
import { maxHeaderSize, STATUS_CODES } from 'node:http';
import {
  KmsAbortedError,
  KmsAccessDeniedError,
  KmsAuthenticationFailedError,
  KmsAuthenticationRequiredError,
  KmsBadRequestError,
  KmsBadResponseError,
  KmsClientClosedError,
  KmsNotFoundError,
  KmsInvalidArgumentError,
  KmsKeyExistsError,
  KmsKeyNotFoundError,
  KmsServerError,
  KmsTimeoutError,
  KmsTlsError,
  KmsTokenCancelError,
  KmsUnavailableError,
  KmsUnreachableError,
} from '../kms-errors.js';
import type { KmsError, KmsErrorDetails } from '../kms-errors.js';

/** What a call was, for error messages and for choosing the mapping. */
export interface CallContext {
  operation: string;
  key?: string;
  /** Token operations answer 404 for any invalid token and 403 for refused credentials. */
  kind: 'key' | 'token';
}

/** The fields of a `{"RemoteException": {...}}` body. */
export interface RemoteException {
  exception?: string;
  javaClassName?: string;
  message?: string;
}

const MAX_REMOTE_MESSAGE = 2000;

/** The RemoteException of an error body, or `undefined` when the body is not one. */
export function parseRemoteException(body: Buffer): RemoteException | undefined {
  if (body.length === 0) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const remote = (parsed as Record<string, unknown>)['RemoteException'];
  if (typeof remote !== 'object' || remote === null) return undefined;
  const r = remote as Record<string, unknown>;
  const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
  const message = text(r['message']);
  const out: RemoteException = {};
  const exception = text(r['exception']);
  const javaClassName = text(r['javaClassName']);
  if (exception !== undefined) out.exception = exception;
  if (javaClassName !== undefined) out.javaClassName = javaClassName;
  if (message !== undefined) {
    out.message = message.length > MAX_REMOTE_MESSAGE ? `${message.slice(0, MAX_REMOTE_MESSAGE)}…` : message;
  }
  return out;
}

// "Can't find Metadata for key": Hadoop's KMS answering a rollover of a missing key (a 500).
const NOT_FOUND = /\bnot found\b|does not exist|doesn't exist|\bno such key\b|can't find metadata for key/i;
const EXISTS = /already exists/i;
const AUTHENTICATION_EXCEPTIONS = new Set(['AuthenticationException', 'InvalidToken']);

/**
 * The reason a token operation failed, from the status line: Hadoop's authentication filter (and
 * fastpath-kms, which answers as it does) sends it there with an empty body. `undefined` when the
 * status line says nothing but the status's standard text.
 */
function filterReason(call: CallContext, status: number, reason: string | undefined): string | undefined {
  if (call.kind !== 'token' || reason === undefined || reason === '' || reason === STATUS_CODES[status]) {
    return undefined;
  }
  return reason.length > MAX_REMOTE_MESSAGE ? `${reason.slice(0, MAX_REMOTE_MESSAGE)}…` : reason;
}

/** The error for a non-2xx answer. `reason` is the status line's reason phrase. */
export function errorFromHttpResponse(
  call: CallContext,
  status: number,
  wwwAuthenticate: string | undefined,
  body: Buffer,
  reason?: string,
): KmsError {
  const remote = parseRemoteException(body);
  const details: KmsErrorDetails = { operation: call.operation, status };
  if (call.key !== undefined) details.key = call.key;
  if (remote?.exception !== undefined) details.remoteException = remote.exception;
  if (remote?.javaClassName !== undefined) details.remoteClassName = remote.javaClassName;
  if (remote?.message !== undefined) details.remoteMessage = remote.message;
  const refusal = remote === undefined ? filterReason(call, status, reason) : undefined;
  if (refusal !== undefined) details.remoteMessage = refusal;
  const message = remote?.message ?? '';

  if (status === 401) return new KmsAuthenticationRequiredError(details);
  if (status === 403) {
    // The pseudo handler refuses a token-only login for GET/RENEW token with a bare 403 and a
    // WWW-Authenticate challenge: the call needs a user name, not other credentials.
    if (remote === undefined && wwwAuthenticate !== undefined)
      return new KmsAuthenticationRequiredError(details);
    if (remote?.exception !== undefined && AUTHENTICATION_EXCEPTIONS.has(remote.exception)) {
      return new KmsAuthenticationFailedError(details);
    }
    // A token operation refused by the filter, the reason in the status line (a wrong renewer,
    // a forged or unknown token): the credentials presented are refused.
    if (refusal !== undefined) return new KmsAuthenticationFailedError(details);
    return new KmsAccessDeniedError(details);
  }
  if (status === 404) {
    if (call.kind === 'token') return new KmsTokenCancelError(details);
    // fastpath's server answers a missing key with 404 IOException (Hadoop itself answers 500);
    // a 404 for an unknown route names another class, and often says "not found" too.
    if (remote?.exception === 'IOException') {
      return new KmsKeyNotFoundError(details);
    }
    return new KmsNotFoundError(details);
  }
  if (status === 409) return new KmsKeyExistsError(details);
  if (status === 408 || status === 502 || status === 503 || status === 504)
    return new KmsUnavailableError(details);
  if (status >= 400 && status < 600) {
    if (call.kind === 'key' && NOT_FOUND.test(message)) return new KmsKeyNotFoundError(details);
    if (call.kind === 'key' && EXISTS.test(message)) return new KmsKeyExistsError(details);
    return status < 500 ? new KmsBadRequestError(details) : new KmsServerError(details);
  }
  return new KmsBadResponseError(details, `unexpected HTTP status ${status}`);
}

const TLS =
  /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT|HOSTNAME_MISMATCH)/;

/** The state of the call's signals when it failed without an answer. */
export interface FailureContext {
  /** The caller's signal fired. */
  aborted: boolean;
  /** The per-call deadline passed. */
  timedOut: boolean;
  timeoutMs: number;
}

/** The error for a call that got no (complete) answer. */
export function errorFromTransport(call: CallContext, err: unknown, ctx: FailureContext): KmsError {
  const details: KmsErrorDetails = { operation: call.operation, cause: err };
  if (call.key !== undefined) details.key = call.key;
  if (ctx.aborted) return new KmsAbortedError(details);
  if (ctx.timedOut) return new KmsTimeoutError(details, ctx.timeoutMs);
  const code = errorCode(err);
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return new KmsTimeoutError(details, ctx.timeoutMs);
  }
  if (code === 'UND_ERR_DESTROYED' || code === 'UND_ERR_CLOSED') return new KmsClientClosedError(details);
  if (code === 'UND_ERR_INVALID_ARG') {
    return new KmsInvalidArgumentError(
      call.operation,
      'request',
      err instanceof Error ? err.message : String(err),
    );
  }
  if (code !== undefined && TLS.test(code)) return new KmsTlsError(details);
  if (code === 'UND_ERR_HEADERS_OVERFLOW') {
    // The server answered, but with headers larger than this process reads: not "unreachable",
    // and not worth a retry (a create may have been applied and would answer the same way).
    return new KmsBadResponseError(
      details,
      `the answer's headers are larger than the ${maxHeaderSize} bytes this client reads ` +
        '(a Location or Set-Cookie header this large comes from a very long key or user name; ' +
        "Node's --max-http-header-size raises the limit)",
    );
  }
  if (code !== undefined && (code.startsWith('HPE_') || code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH')) {
    return new KmsBadResponseError(details, 'not a valid HTTP answer');
  }
  // The socket-level codes, and anything else that left the call without an answer.
  return new KmsUnreachableError(details);
}

function errorCode(err: unknown): string | undefined {
  let e: unknown = err;
  // Undici and node:net sometimes wrap the socket error; the code is on the innermost one. Errors
  // may come from another realm (a vm context, a test sandbox), so no instanceof Error here.
  for (let depth = 0; depth < 4 && typeof e === 'object' && e !== null; depth++) {
    const { code, cause } = e as { code?: unknown; cause?: unknown };
    if (typeof code === 'string') return code;
    e = cause;
  }
  return undefined;
}
