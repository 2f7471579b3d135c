import { FastpathError } from '@fastpath/core';
import { errorRow } from './internal/kms-error-table.js';

/**
 * A setting in `kms-site.xml`, `kms-acls.xml`, the command line or the options has a value the
 * server cannot use, or a configuration file cannot be read. The server refuses to start;
 * `property` names the setting (or the file, for a file that is not valid XML). Code
 * `ERR_KMS_CONFIG`.
 *
 * @example
 * ```ts
 * try {
 *   await createKmsServer({ configDir: '/etc/kms' });
 * } catch (err) {
 *   if (err instanceof KmsConfigError) console.error(`fix ${err.property}: ${err.message}`);
 * }
 * ```
 */
export class KmsConfigError extends FastpathError {
  /** The property (or file) at fault. */
  readonly property: string;
  constructor(property: string, message: string, options: { cause?: unknown } = {}) {
    super('ERR_KMS_CONFIG', message, {
      cause: options.cause,
      retriable: errorRow('ERR_KMS_CONFIG').retriable,
    });
    this.property = property;
  }
}

/**
 * The server cannot listen where its settings say: the port is in use (`EADDRINUSE`), needs
 * privileges (`EACCES`) or the address is not on this machine (`EADDRNOTAVAIL`). The message says
 * what to change. `retriable`: the same start can succeed once the port is free. Code
 * `ERR_KMS_LISTEN`.
 *
 * @example
 * ```ts
 * await kms.listen().catch((err) => {
 *   if (err instanceof KmsListenError) console.error(`${err.host}:${err.port}: ${err.message}`);
 * });
 * ```
 */
export class KmsListenError extends FastpathError {
  /** The address that could not be bound (`hadoop.kms.http.host`). */
  readonly host: string;
  /** The port that could not be bound (`hadoop.kms.http.port`). */
  readonly port: number;
  constructor(host: string, port: number, message: string, options: { cause?: unknown } = {}) {
    super('ERR_KMS_LISTEN', message, {
      cause: options.cause,
      retriable: errorRow('ERR_KMS_LISTEN').retriable,
    });
    this.host = host;
    this.port = port;
  }
}

/**
 * Kerberos mode cannot start: the keytab cannot be read or is not a keytab, the principal is not
 * in it (or is not an `HTTP/` service principal), its realm is unknown (no realm given and no
 * `default_realm` in krb5.conf), or the `kerberos` package is not installed. The settings may be
 * well formed: what is wrong is the machine's Kerberos set-up, so the CLI exits 1. `property`
 * names the setting to look at. Code `ERR_KMS_KERBEROS`.
 *
 * @example
 * ```ts
 * await createKmsServer({ site: { 'hadoop.kms.authentication.type': 'kerberos' } }).catch((err) => {
 *   if (err instanceof KmsKerberosError) console.error(err.message); // one line
 * });
 * ```
 */
export class KmsKerberosError extends FastpathError {
  /** The setting to look at. */
  readonly property: string;
  constructor(property: string, message: string, options: { cause?: unknown } = {}) {
    super('ERR_KMS_KERBEROS', message, {
      cause: options.cause,
      retriable: errorRow('ERR_KMS_KERBEROS').retriable,
    });
    this.property = property;
  }
}

/**
 * The cookie signer secrets shared through ZooKeeper (`signer.secret.provider=zookeeper`) cannot
 * be had at start: ZooKeeper does not answer within its bounds, or the secrets' znode holds data
 * this server cannot read (written by a newer version, or not Hadoop's layout). A server that
 * loses ZooKeeper later keeps its secrets and serves on; only the start is refused. `znode` names
 * the path. Code `ERR_KMS_SIGNER_SECRETS`, retriable (ZooKeeper may come back).
 *
 * @example
 * ```ts
 * await createKmsServer({ site }).catch((err) => {
 *   if (err instanceof KmsSignerSecretsError) console.error(err.message); // one line
 * });
 * ```
 */
export class KmsSignerSecretsError extends FastpathError {
  /** The znode of the secrets. */
  readonly znode: string;
  constructor(znode: string, message: string, options: { cause?: unknown } = {}) {
    super('ERR_KMS_SIGNER_SECRETS', message, {
      cause: options.cause,
      retriable: errorRow('ERR_KMS_SIGNER_SECRETS').retriable,
    });
    this.znode = znode;
  }
}

/** The codes of {@link KeystoreError}. */
export type KeystoreErrorCode =
  | 'ERR_KMS_KEYSTORE_PASSWORD'
  | 'ERR_KMS_KEYSTORE_CORRUPT'
  | 'ERR_KMS_KEYSTORE_IO'
  | 'ERR_KMS_KEYSTORE_EXISTS'
  | 'ERR_KMS_KEYSTORE_NOT_FOUND'
  | 'ERR_KMS_KEYSTORE_LOCKED'
  | 'ERR_KMS_KEYSTORE_CLOSED';

/**
 * The keystore file cannot be opened or written:
 * - `ERR_KMS_KEYSTORE_PASSWORD`: the password does not open it (wrong password, or a changed header);
 * - `ERR_KMS_KEYSTORE_CORRUPT`: the password is right but the content fails authentication
 *   (tampered or damaged), or the file is not a keystore at all;
 * - `ERR_KMS_KEYSTORE_IO`: reading, writing or syncing failed;
 * - `ERR_KMS_KEYSTORE_EXISTS` / `ERR_KMS_KEYSTORE_NOT_FOUND`: `keystore create` on an existing
 *   file, `keystore rekey` (or a start that may not create one) without a file;
 * - `ERR_KMS_KEYSTORE_LOCKED`: another live process has the keystore open;
 * - `ERR_KMS_KEYSTORE_CLOSED`: a write after `close()`.
 *
 * `IO`, `LOCKED` and `CLOSED` are `retriable`: the same call can succeed later (another server).
 *
 * The message never contains the password or key material.
 *
 * @example
 * ```ts
 * await openFileKeyStore({ file, password }).catch((err) => {
 *   if (err instanceof KeystoreError && err.code === 'ERR_KMS_KEYSTORE_PASSWORD') askAgain();
 * });
 * ```
 */
export class KeystoreError extends FastpathError {
  /** The keystore file concerned. */
  readonly file: string;
  constructor(code: KeystoreErrorCode, file: string, message: string, options: { cause?: unknown } = {}) {
    super(code, message, { cause: options.cause, retriable: errorRow(code).retriable });
    this.file = file;
  }
}

/**
 * A request the KMS refuses. The HTTP status and the Hadoop exception class of the
 * `RemoteException` body, and `retriable`, come from the one catalogue (`KMS_ERROR_CATALOGUE`),
 * never from the throw site. The message is what Hadoop's KMS says in the same case, where it says something.
 *
 * @example
 * ```ts
 * throw new KmsRequestError('ERR_KMS_BAD_REQUEST', "Parameter 'name' cannot be empty");
 * ```
 */
export class KmsRequestError extends FastpathError {
  constructor(code: KmsRequestErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(code, message, { cause: options.cause, retriable: errorRow(code).retriable });
  }
}

/** The codes of {@link KmsRequestError}; each has one row in `KMS_ERROR_CATALOGUE`. */
export type KmsRequestErrorCode =
  | 'ERR_KMS_BAD_REQUEST'
  | 'ERR_KMS_INVALID_KEY_MATERIAL'
  | 'ERR_KMS_UNSUPPORTED_CIPHER'
  | 'ERR_KMS_KEY_NOT_FOUND'
  | 'ERR_KMS_KEY_EXISTS'
  | 'ERR_KMS_ACCESS_DENIED'
  | 'ERR_KMS_AUTHENTICATION_REQUIRED'
  | 'ERR_KMS_AUTHENTICATION_FAILED'
  | 'ERR_KMS_TOKEN_CANCEL_FAILED'
  | 'ERR_KMS_NOT_FOUND'
  | 'ERR_KMS_METHOD_NOT_ALLOWED'
  | 'ERR_KMS_PAYLOAD_TOO_LARGE'
  | 'ERR_KMS_HEADERS_TOO_LARGE'
  | 'ERR_KMS_REQUEST_TIMEOUT'
  | 'ERR_KMS_SHUTTING_DOWN'
  | 'ERR_KMS_CLUSTER_UNAVAILABLE'
  | 'ERR_KMS_INTERNAL';

/** Every code this server's own errors carry; each has one row in `KMS_ERROR_CATALOGUE`. */
export type KmsErrorCode =
  | KmsRequestErrorCode
  | KeystoreErrorCode
  | 'ERR_KMS_CONFIG'
  | 'ERR_KMS_LISTEN'
  | 'ERR_KMS_KERBEROS'
  | 'ERR_KMS_SIGNER_SECRETS';
