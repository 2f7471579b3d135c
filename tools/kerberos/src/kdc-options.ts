import { checkInteger, InvalidOptionError } from '@fastpath/core';

/** Options of `startKdc`. */
export interface KdcOptions {
  /** The realm: upper-case letters, digits, `.` and `-`. Default `EXAMPLE.COM` (as Hadoop's MiniKdc). */
  realm?: string;
  /**
   * Allowed clock difference, in seconds, written as `clockskew` into the realm's krb5.conf: a
   * ticket is still accepted this long after it ended. Default 1, so that a short ticket's
   * expiry shows within seconds (MIT's own default is 300).
   */
  clockSkewSeconds?: number;
  /** The longest ticket the KDC issues (`max_life` of the realm), in seconds. Default 86400. */
  maxTicketLifetimeSeconds?: number;
  /** Bound of the start (realm creation and the KDC serving), in milliseconds. Default 30000. */
  startTimeoutMs?: number;
  /** Bound of each Kerberos command (`kadmin.local`, `kinit`, …), in milliseconds. Default 30000. */
  commandTimeoutMs?: number;
  /**
   * Install Debian's `krb5-kdc`, `krb5-admin-server` and `krb5-user` when one is missing, the
   * process runs as root and `apt-get` is on the PATH. Default `true`.
   */
  installIfMissing?: boolean;
}

/** Defaults of {@link KdcOptions}. */
export const DEFAULT_KDC_OPTIONS = Object.freeze({
  realm: 'EXAMPLE.COM',
  clockSkewSeconds: 1,
  maxTicketLifetimeSeconds: 86_400,
  startTimeoutMs: 30_000,
  commandTimeoutMs: 30_000,
  installIfMissing: true,
});

export type ResolvedKdcOptions = Readonly<Required<KdcOptions>>;

/** Checks every field before anything is created; the error names the field. */
export function resolveKdcOptions(options: KdcOptions = {}): ResolvedKdcOptions {
  const realm = options.realm ?? DEFAULT_KDC_OPTIONS.realm;
  if (typeof realm !== 'string' || !/^[A-Z0-9]([A-Z0-9.-]{0,62}[A-Z0-9])?$/.test(realm)) {
    throw new InvalidOptionError(
      'realm',
      `expected upper-case letters, digits, "." and "-" (e.g. EXAMPLE.COM), got ${JSON.stringify(realm)}`,
    );
  }
  const installIfMissing = options.installIfMissing ?? DEFAULT_KDC_OPTIONS.installIfMissing;
  if (typeof installIfMissing !== 'boolean') {
    throw new InvalidOptionError('installIfMissing', `expected a boolean, got ${typeof installIfMissing}`);
  }
  return Object.freeze({
    realm,
    clockSkewSeconds: checkInteger(
      'clockSkewSeconds',
      options.clockSkewSeconds ?? DEFAULT_KDC_OPTIONS.clockSkewSeconds,
      0,
      3600,
    ),
    maxTicketLifetimeSeconds: checkInteger(
      'maxTicketLifetimeSeconds',
      options.maxTicketLifetimeSeconds ?? DEFAULT_KDC_OPTIONS.maxTicketLifetimeSeconds,
      1,
      31 * 86_400,
    ),
    startTimeoutMs: checkInteger(
      'startTimeoutMs',
      options.startTimeoutMs ?? DEFAULT_KDC_OPTIONS.startTimeoutMs,
      1,
    ),
    commandTimeoutMs: checkInteger(
      'commandTimeoutMs',
      options.commandTimeoutMs ?? DEFAULT_KDC_OPTIONS.commandTimeoutMs,
      1,
    ),
    installIfMissing,
  });
}
