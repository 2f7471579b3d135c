import { FastpathError } from '@fastpath/core';

/** How one error code is answered over HTTP: the status and the Java exception Hadoop names. */
export interface KmsErrorMapping {
  /** HTTP status code. */
  readonly status: number;
  /** Simple class name, the `exception` field of the `RemoteException` body. */
  readonly exception: string;
  /** Fully qualified class name, the `javaClassName` field. */
  readonly javaClassName: string;
}

const ILLEGAL_ARGUMENT = {
  exception: 'IllegalArgumentException',
  javaClassName: 'java.lang.IllegalArgumentException',
};
const IO = { exception: 'IOException', javaClassName: 'java.io.IOException' };
const AUTHORIZATION = {
  exception: 'AuthorizationException',
  javaClassName: 'org.apache.hadoop.security.authorize.AuthorizationException',
};
const AUTHENTICATION = {
  exception: 'AuthenticationException',
  javaClassName: 'org.apache.hadoop.security.authentication.client.AuthenticationException',
};
const INVALID_TOKEN = {
  exception: 'InvalidToken',
  javaClassName: 'org.apache.hadoop.security.token.SecretManager$InvalidToken',
};

/**
 * The one table from error code to HTTP answer. Statuses and exception classes follow Hadoop's
 * `KMSExceptionsProvider` where Hadoop answers with a 4xx; where Hadoop answers 500 for a bad
 * request (a missing key, an existing key, a malformed body) this server answers a 4xx with the
 * exception class Hadoop would name, so Hadoop clients rebuild the same exception.
 *
 * @example
 * ```ts
 * KMS_ERROR_TABLE.ERR_KMS_ACCESS_DENIED.status; // 403
 * ```
 */
export const KMS_ERROR_TABLE: Readonly<Record<string, KmsErrorMapping>> = Object.freeze({
  ERR_KMS_BAD_REQUEST: { status: 400, ...ILLEGAL_ARGUMENT },
  ERR_KMS_INVALID_KEY_MATERIAL: { status: 400, ...IO },
  ERR_KMS_UNSUPPORTED_CIPHER: {
    status: 400,
    exception: 'NoSuchAlgorithmException',
    javaClassName: 'java.security.NoSuchAlgorithmException',
  },
  ERR_KMS_KEY_NOT_FOUND: { status: 404, ...IO },
  ERR_KMS_KEY_EXISTS: { status: 409, ...IO },
  ERR_KMS_ACCESS_DENIED: { status: 403, ...AUTHORIZATION },
  ERR_KMS_AUTHENTICATION_REQUIRED: { status: 401, ...AUTHENTICATION },
  ERR_KMS_AUTHENTICATION_FAILED: { status: 403, ...AUTHENTICATION },
  ERR_KMS_TOKEN_CANCEL_FAILED: { status: 404, ...INVALID_TOKEN },
  ERR_KMS_NOT_FOUND: {
    status: 404,
    exception: 'NotFoundException',
    javaClassName: 'javax.ws.rs.NotFoundException',
  },
  ERR_KMS_METHOD_NOT_ALLOWED: {
    status: 405,
    exception: 'NotAllowedException',
    javaClassName: 'javax.ws.rs.NotAllowedException',
  },
  ERR_KMS_PAYLOAD_TOO_LARGE: { status: 413, ...IO },
  ERR_KMS_HEADERS_TOO_LARGE: { status: 431, ...IO },
  ERR_KMS_REQUEST_TIMEOUT: { status: 408, ...IO },
  ERR_KMS_SHUTTING_DOWN: { status: 503, ...IO },
  ERR_KMS_CLUSTER_UNAVAILABLE: { status: 503, ...IO },
  ERR_KMS_INTERNAL: {
    status: 500,
    exception: 'RuntimeException',
    javaClassName: 'java.lang.RuntimeException',
  },
  // Errors of the packages underneath, when they reach a request.
  ERR_INVALID_TOKEN: { status: 403, ...AUTHENTICATION },
  ERR_TOKEN_ACCESS_DENIED: { status: 403, ...AUTHENTICATION },
  ERR_TOKEN_STORE: { status: 500, ...IO },
  ERR_TOKEN_STORE_UNAVAILABLE: { status: 503, ...IO },
  ERR_TOKEN_CREATION_ABORTED: { status: 503, ...IO },
  ERR_TOKEN_MANAGER_STATE: { status: 503, ...IO },
  ERR_LOCK_TIMEOUT: { status: 503, ...IO },
  ERR_LOCK_ABORTED: { status: 503, ...IO },
  ERR_KMS_KEYSTORE_IO: { status: 500, ...IO },
  ERR_KMS_KEYSTORE_CLOSED: { status: 503, ...IO },
  ERR_SECURE_RANDOM_CLOSED: { status: 503, ...IO },
});

/** The Hadoop `RemoteException` JSON body. Field order is Hadoop's: message, exception, javaClassName. */
export interface RemoteExceptionBody {
  RemoteException: { message: string; exception: string; javaClassName: string };
}

/** What to send for an error: status, body, and whether the client may retry. */
export interface ErrorAnswer {
  status: number;
  body: RemoteExceptionBody;
  retriable: boolean;
}

/**
 * Maps any thrown value to its HTTP answer through {@link KMS_ERROR_TABLE}. Unknown errors answer
 * 500 with a generic message: their text may hold internals and is only logged.
 */
export function errorAnswer(error: unknown): ErrorAnswer {
  const code = error instanceof FastpathError ? error.code : undefined;
  const mapping = code === undefined ? undefined : KMS_ERROR_TABLE[code];
  if (mapping === undefined || !(error instanceof FastpathError)) {
    const internal = KMS_ERROR_TABLE.ERR_KMS_INTERNAL as KmsErrorMapping;
    return {
      status: internal.status,
      body: remoteException(internal, 'Internal server error'),
      retriable: false,
    };
  }
  return {
    status: mapping.status,
    body: remoteException(mapping, error.message),
    retriable: error.retriable,
  };
}

/** The body for `mapping` and `message` (its first line, as Hadoop's `getOneLineMessage`). */
export function remoteException(mapping: KmsErrorMapping, message: string): RemoteExceptionBody {
  const newline = message.indexOf('\n');
  return {
    RemoteException: {
      message: newline === -1 ? message : message.slice(0, newline),
      exception: mapping.exception,
      javaClassName: mapping.javaClassName,
    },
  };
}
