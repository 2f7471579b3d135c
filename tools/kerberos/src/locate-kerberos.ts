import { DebianInstallError, ensureDebianPackages, type DebianRequirement } from '@fastpath/jvm-fixture';
import { KerberosNotFoundError } from './kerberos-fixture-errors.js';

/** MIT Kerberos's programs as Debian installs them, and the package of each. */
export const KERBEROS_PROGRAMS = Object.freeze({
  krb5kdc: Object.freeze({ file: '/usr/sbin/krb5kdc', debianPackage: 'krb5-kdc' }),
  kdb5Util: Object.freeze({ file: '/usr/sbin/kdb5_util', debianPackage: 'krb5-kdc' }),
  kadminLocal: Object.freeze({ file: '/usr/sbin/kadmin.local', debianPackage: 'krb5-admin-server' }),
  kinit: Object.freeze({ file: '/usr/bin/kinit', debianPackage: 'krb5-user' }),
  klist: Object.freeze({ file: '/usr/bin/klist', debianPackage: 'krb5-user' }),
} satisfies Record<string, DebianRequirement & { file: string }>);

/** Paths of the programs the fixture runs. */
export type KerberosPrograms = { readonly [K in keyof typeof KERBEROS_PROGRAMS]: string };

/**
 * Makes sure MIT Kerberos's KDC, kadmin.local and client programs are installed (installing
 * Debian's packages when allowed) and returns their paths.
 *
 * @throws KerberosNotFoundError naming the packages to install
 */
export async function locateKerberos(options: { installIfMissing: boolean }): Promise<KerberosPrograms> {
  try {
    await ensureDebianPackages(Object.values(KERBEROS_PROGRAMS), {
      installIfMissing: options.installIfMissing,
      purpose: 'the KDC fixture (MIT Kerberos)',
    });
  } catch (err) {
    if (err instanceof DebianInstallError) throw new KerberosNotFoundError(err.message, err.packages, err);
    throw err;
  }
  return Object.freeze(
    Object.fromEntries(Object.entries(KERBEROS_PROGRAMS).map(([name, { file }]) => [name, file])),
  ) as KerberosPrograms;
}
