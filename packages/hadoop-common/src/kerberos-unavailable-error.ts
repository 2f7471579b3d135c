import { FastpathError } from '@fastpath/core';

/** Why the `kerberos` package could not be used. */
export type KerberosUnavailableReason =
  /** The package is not installed (an install without optional dependencies, or its build failed and npm dropped it). */
  | 'missing'
  /** The package is there but its native part was never built (`build/Release/kerberos.node`). */
  | 'not-built'
  /** The native part is there but does not load (e.g. MIT's GSS-API library is missing). */
  | 'load-failed';

/**
 * Kerberos is configured but the optional `kerberos` package (mongodb-js, 7.x) cannot be used.
 * Code `ERR_KERBEROS_UNAVAILABLE`, never retriable: the same install fails the same way. The
 * message says what to install; `reason` says which case it is, `cause` keeps Node's error.
 *
 * @example
 * ```ts
 * try {
 *   await loadKerberos();
 * } catch (err) {
 *   if (err instanceof KerberosUnavailableError) console.error(err.message); // what to install
 * }
 * ```
 */
export class KerberosUnavailableError extends FastpathError {
  /** Which way the load failed: `missing`, `not-built` or `load-failed`. */
  readonly reason: KerberosUnavailableReason;
  constructor(reason: KerberosUnavailableReason, message: string, cause: unknown) {
    super('ERR_KERBEROS_UNAVAILABLE', message, { cause });
    this.reason = reason;
  }
}
