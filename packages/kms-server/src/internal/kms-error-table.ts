import { FastpathError } from '@fastpath/core';
import type { KmsErrorCode } from '../kms-errors.js';

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

/** One row of the catalogue: whether a retry can help, and the HTTP answer (none for start-up errors). */
export interface KmsErrorRow {
  readonly retriable: boolean;
  /** How a request failing with the code is answered; `undefined` for errors that refuse a start. */
  readonly http: KmsErrorMapping | undefined;
}

const answer = (
  status: number,
  exception: { exception: string; javaClassName: string },
): KmsErrorMapping => ({
  status,
  ...exception,
});

/**
 * The one catalogue of this server's error codes: `retriable` and the HTTP answer of each. The
 * error classes take `retriable` from here, never from the throw site, and `satisfies` makes a
 * code without a row (or a row without a code) a compile error. Statuses and exception classes
 * follow Hadoop's `KMSExceptionsProvider` where Hadoop answers with a 4xx; where Hadoop answers
 * 500 for a bad request (a missing key, an existing key, a malformed body) this server answers a
 * 4xx with the exception class Hadoop would name, so Hadoop clients rebuild the same exception.
 * `docs/errors.md` lists the same rows; tools/repo-checks compares its HTTP and retriable columns.
 *
 * @example
 * ```ts
 * KMS_ERROR_CATALOGUE.ERR_KMS_ACCESS_DENIED.http?.status; // 403
 * ```
 */
export const KMS_ERROR_CATALOGUE = Object.freeze({
  ERR_KMS_BAD_REQUEST: { retriable: false, http: answer(400, ILLEGAL_ARGUMENT) },
  ERR_KMS_INVALID_KEY_MATERIAL: { retriable: false, http: answer(400, IO) },
  ERR_KMS_UNSUPPORTED_CIPHER: {
    retriable: false,
    http: answer(400, {
      exception: 'NoSuchAlgorithmException',
      javaClassName: 'java.security.NoSuchAlgorithmException',
    }),
  },
  ERR_KMS_KEY_NOT_FOUND: { retriable: false, http: answer(404, IO) },
  ERR_KMS_KEY_EXISTS: { retriable: false, http: answer(409, IO) },
  ERR_KMS_ACCESS_DENIED: { retriable: false, http: answer(403, AUTHORIZATION) },
  ERR_KMS_AUTHENTICATION_REQUIRED: { retriable: false, http: answer(401, AUTHENTICATION) },
  ERR_KMS_AUTHENTICATION_FAILED: { retriable: false, http: answer(403, AUTHENTICATION) },
  ERR_KMS_TOKEN_CANCEL_FAILED: { retriable: false, http: answer(404, INVALID_TOKEN) },
  ERR_KMS_NOT_FOUND: {
    retriable: false,
    http: answer(404, { exception: 'NotFoundException', javaClassName: 'javax.ws.rs.NotFoundException' }),
  },
  ERR_KMS_METHOD_NOT_ALLOWED: {
    retriable: false,
    http: answer(405, { exception: 'NotAllowedException', javaClassName: 'javax.ws.rs.NotAllowedException' }),
  },
  ERR_KMS_PAYLOAD_TOO_LARGE: { retriable: false, http: answer(413, IO) },
  ERR_KMS_HEADERS_TOO_LARGE: { retriable: false, http: answer(431, IO) },
  ERR_KMS_REQUEST_TIMEOUT: { retriable: true, http: answer(408, IO) },
  ERR_KMS_SHUTTING_DOWN: { retriable: true, http: answer(503, IO) },
  ERR_KMS_CLUSTER_UNAVAILABLE: { retriable: true, http: answer(503, IO) },
  ERR_KMS_INTERNAL: {
    retriable: false,
    http: answer(500, { exception: 'RuntimeException', javaClassName: 'java.lang.RuntimeException' }),
  },
  ERR_KMS_CONFIG: { retriable: false, http: undefined },
  ERR_KMS_LISTEN: { retriable: true, http: undefined },
  ERR_KMS_KERBEROS: { retriable: false, http: undefined },
  ERR_KMS_SIGNER_SECRETS: { retriable: true, http: undefined },
  ERR_KMS_KEYSTORE_PASSWORD: { retriable: false, http: undefined },
  ERR_KMS_KEYSTORE_CORRUPT: { retriable: false, http: undefined },
  ERR_KMS_KEYSTORE_IO: { retriable: true, http: answer(500, IO) },
  ERR_KMS_KEYSTORE_EXISTS: { retriable: false, http: undefined },
  ERR_KMS_KEYSTORE_NOT_FOUND: { retriable: false, http: undefined },
  ERR_KMS_KEYSTORE_LOCKED: { retriable: true, http: undefined },
  ERR_KMS_KEYSTORE_CLOSED: { retriable: true, http: answer(503, IO) },
} as const satisfies Record<KmsErrorCode, KmsErrorRow>);

/** Codes of the packages underneath that can reach a request. Their `retriable` is their own. */
export type ForeignErrorCode =
  | 'ERR_INVALID_TOKEN'
  | 'ERR_TOKEN_ACCESS_DENIED'
  | 'ERR_TOKEN_STORE'
  | 'ERR_TOKEN_STORE_UNAVAILABLE'
  | 'ERR_TOKEN_CREATION_ABORTED'
  | 'ERR_TOKEN_MANAGER_STATE'
  | 'ERR_LOCK_TIMEOUT'
  | 'ERR_LOCK_ABORTED'
  | 'ERR_SECURE_RANDOM_CLOSED'
  | 'ERR_WIRE_FORMAT';

/** How errors of the packages underneath are answered (`docs/errors.md`, their "HTTP (kms-server)" column). */
export const FOREIGN_ERROR_ANSWERS = Object.freeze({
  ERR_INVALID_TOKEN: answer(403, AUTHENTICATION),
  ERR_TOKEN_ACCESS_DENIED: answer(403, AUTHENTICATION),
  ERR_TOKEN_STORE: answer(500, IO),
  ERR_TOKEN_STORE_UNAVAILABLE: answer(503, IO),
  ERR_TOKEN_CREATION_ABORTED: answer(503, IO),
  ERR_TOKEN_MANAGER_STATE: answer(503, IO),
  ERR_LOCK_TIMEOUT: answer(503, IO),
  ERR_LOCK_ABORTED: answer(503, IO),
  ERR_SECURE_RANDOM_CLOSED: answer(503, IO),
  // A presented token whose bytes do not decode is a refused credential, as Hadoop answers it.
  ERR_WIRE_FORMAT: answer(403, AUTHENTICATION),
} as const satisfies Record<ForeignErrorCode, KmsErrorMapping>);

const ANSWERS: ReadonlyMap<string, KmsErrorMapping> = new Map<string, KmsErrorMapping>([
  ...Object.entries(KMS_ERROR_CATALOGUE).flatMap(([code, row]): Array<[string, KmsErrorMapping]> =>
    row.http === undefined ? [] : [[code, row.http]],
  ),
  ...Object.entries(FOREIGN_ERROR_ANSWERS),
]);

/** The HTTP answer of a code, or `undefined` when requests never fail with it. */
export function answerOf(code: string): KmsErrorMapping | undefined {
  return ANSWERS.get(code);
}

/** The row of one of this server's codes. */
export function errorRow(code: KmsErrorCode): KmsErrorRow {
  return KMS_ERROR_CATALOGUE[code];
}

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
 * Maps any thrown value to its HTTP answer through {@link KMS_ERROR_CATALOGUE}. Unknown errors answer
 * 500 with a generic message: their text may hold internals and is only logged.
 */
export function errorAnswer(error: unknown): ErrorAnswer {
  const mapping = error instanceof FastpathError ? answerOf(error.code) : undefined;
  if (mapping === undefined || !(error instanceof FastpathError)) {
    const internal = KMS_ERROR_CATALOGUE.ERR_KMS_INTERNAL.http;
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
