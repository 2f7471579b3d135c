import { krb5DefaultRealm } from '@fastpath/hadoop-common';
import { KmsKerberosError } from '../../kms-errors.js';
import { KeytabFormatError, keytabPrincipals } from './keytab-principals.js';

/**
 * Kerberos (SASL) to ZooKeeper, for the signer secrets' `auth.type=sasl` or the token store's
 * `zkAuthType=sasl`: who the client logs in as, from which keytab, and whom it expects.
 */
export interface ZkSaslSettings {
  /** The keytab the client logs in from, absolute (`…kerberos.keytab`). */
  readonly keytab: string;
  /** The principal it logs in as, with its realm (`kms/host@EXAMPLE.COM`; `…kerberos.principal`). */
  readonly principal: string;
  /**
   * Service part of the ZooKeeper servers' principal `<name>/<host>@REALM`
   * (`fastpath.kms.zookeeper.sasl.client.username`, default `zookeeper`).
   */
  readonly serviceName: string;
}

/** What {@link resolveZkSaslSettings} reads. */
export interface ZkSaslSettingsInput {
  readonly keytab: string;
  readonly keytabProperty: string;
  readonly principal: string;
  readonly principalProperty: string;
  readonly serviceName: string;
  /** The environment libkrb5 will see (`KRB5_CONFIG`). */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/**
 * Checks the keytab and the principal before anything starts, so that a mistake is one line at
 * start rather than a failed ZooKeeper login: the keytab must be a readable keytab holding the
 * principal (with krb5.conf's default realm when it names none). Hadoop takes the principal as
 * written here (it does not replace `_HOST`). Throws {@link KmsKerberosError} naming the setting.
 */
export function resolveZkSaslSettings(input: ZkSaslSettingsInput): ZkSaslSettings {
  let inKeytab: string[];
  try {
    inKeytab = keytabPrincipals(input.keytab);
  } catch (error) {
    const why =
      error instanceof KeytabFormatError
        ? `is not a usable Kerberos keytab: ${error.message}`
        : `cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
    throw new KmsKerberosError(input.keytabProperty, `${input.keytabProperty} ${input.keytab} ${why}`, {
      cause: error,
    });
  }
  let principal = input.principal;
  if (!principal.includes('@')) {
    const realm = krb5DefaultRealm(input.env);
    if (realm === '') {
      throw new KmsKerberosError(
        input.principalProperty,
        `${input.principalProperty} ${principal} names no realm and krb5.conf (${input.env['KRB5_CONFIG'] ?? '/etc/krb5.conf'}) has no default_realm: write ${principal}@<REALM>`,
      );
    }
    principal = `${principal}@${realm}`;
  }
  if (!inKeytab.includes(principal)) {
    throw new KmsKerberosError(
      input.principalProperty,
      `${input.principalProperty} ${principal} is not in the keytab ${input.keytab} (it holds ${
        inKeytab.length === 0 ? 'no principal' : inKeytab.join(', ')
      })`,
    );
  }
  return Object.freeze({ keytab: input.keytab, principal, serviceName: input.serviceName });
}
