import { FastpathError } from '@fastpath/core';

/**
 * MIT Kerberos (Debian's `krb5-kdc`, `krb5-admin-server`, `krb5-user`) is missing and could not
 * be installed. The message names the packages and how to install them.
 *
 * @example
 * ```ts
 * try {
 *   await startKdc({ installIfMissing: false });
 * } catch (err) {
 *   if (err instanceof KerberosNotFoundError) console.error(err.message); // says what to install
 * }
 * ```
 */
export class KerberosNotFoundError extends FastpathError {
  /** The Debian packages that are missing. */
  readonly packages: readonly string[];
  constructor(message: string, packages: readonly string[], cause?: unknown) {
    super('ERR_KERBEROS_NOT_FOUND', message, cause === undefined ? {} : { cause });
    this.packages = Object.freeze([...packages]);
  }
}

/** The KDC process exited before it served; `logTail` holds the end of its log. */
export class KdcExitedError extends FastpathError {
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly logTail: string;
  constructor(exitCode: number | null, signal: string | null, logTail: string) {
    super(
      'ERR_KDC_EXITED',
      `the KDC exited (${signal ?? `exit ${exitCode}`}) before it served; end of its log:\n${logTail}`,
    );
    this.exitCode = exitCode;
    this.signal = signal;
    this.logTail = logTail;
  }
}

/** The KDC did not serve within `startTimeoutMs`, or every port tried was taken. */
export class KdcTimeoutError extends FastpathError {
  readonly logTail: string;
  constructor(message: string, logTail: string) {
    super('ERR_KDC_TIMEOUT', logTail === '' ? message : `${message}; end of its log:\n${logTail}`, {
      retriable: true,
    });
    this.logTail = logTail;
  }
}

/**
 * A Kerberos command (`kdb5_util`, `kadmin.local`, `kinit`, `klist`) failed: an unknown or
 * duplicate principal, a wrong password, an unreachable KDC. `command` is the command line
 * without any password (passwords travel on stdin); `output` is what it printed.
 */
export class KerberosCommandError extends FastpathError {
  readonly command: string;
  readonly exitCode: number | null;
  readonly output: string;
  constructor(command: string, exitCode: number | null, output: string) {
    super('ERR_KERBEROS_COMMAND', `${command} failed (exit ${exitCode}): ${output.trim()}`);
    this.command = command;
    this.exitCode = exitCode;
    this.output = output;
  }
}

/** A call on a KDC after `stop()`. */
export class KdcStateError extends FastpathError {
  constructor(message: string) {
    super('ERR_KDC_STATE', message);
  }
}
