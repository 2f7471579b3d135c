// The two configuration files of a test realm. Everything lives in the realm's own folder, so
// nothing reads or writes /etc/krb5.conf, /etc/krb5.keytab, /tmp/krb5cc_<uid> or /var/tmp.

/** Where the realm's files go and how its KDC listens. */
export interface RealmLayout {
  readonly realm: string;
  readonly dir: string;
  /** The KDC's port, the same number on TCP and UDP. */
  readonly port: number;
  readonly clockSkewSeconds: number;
  readonly maxTicketLifetimeSeconds: number;
}

// AES with SHA-1 is what both MIT 1.20 and JDK 17 enable by default; naming it keeps a JVM and
// libkrb5 agreeing on the keys whatever either's defaults become.
const ENCTYPES = 'aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96';

/** krb5.conf: what every client, acceptor and JVM of the test reads (`KRB5_CONFIG`). */
export function renderKrb5Conf(layout: RealmLayout): string {
  const { realm, dir, port } = layout;
  return [
    '[libdefaults]',
    `  default_realm = ${realm}`,
    '  dns_lookup_kdc = false',
    '  dns_lookup_realm = false',
    // HTTP@localhost must stay HTTP/localhost: no reverse lookup, no canonicalization.
    '  rdns = false',
    '  dns_canonicalize_hostname = false',
    // TCP first for MIT and for the JDK (0 would make the JDK try UDP first).
    '  udp_preference_limit = 1',
    '  forwardable = true',
    `  clockskew = ${layout.clockSkewSeconds}`,
    `  default_tkt_enctypes = ${ENCTYPES}`,
    `  default_tgs_enctypes = ${ENCTYPES}`,
    `  permitted_enctypes = ${ENCTYPES}`,
    // Never the user's or the machine's caches and keytabs.
    `  default_ccache_name = FILE:${dir}/ccache/default`,
    `  default_keytab_name = FILE:${dir}/keytabs/default.keytab`,
    `  default_client_keytab_name = FILE:${dir}/keytabs/default-client.keytab`,
    '',
    '[realms]',
    `  ${realm} = {`,
    `    kdc = 127.0.0.1:${port}`,
    '  }',
    '',
    '[domain_realm]',
    `  localhost = ${realm}`,
    `  127.0.0.1 = ${realm}`,
    '',
  ].join('\n');
}

/** kdc.conf: the KDC's and kadmin.local's own settings (`KRB5_KDC_PROFILE`). */
export function renderKdcConf(layout: RealmLayout): string {
  const { realm, dir, port } = layout;
  return [
    '[kdcdefaults]',
    `  kdc_listen = 127.0.0.1:${port}`,
    `  kdc_tcp_listen = 127.0.0.1:${port}`,
    '',
    '[realms]',
    `  ${realm} = {`,
    `    database_name = ${dir}/db/principal`,
    `    key_stash_file = ${dir}/db/stash`,
    `    acl_file = ${dir}/db/kadm5.acl`,
    `    max_life = ${layout.maxTicketLifetimeSeconds}s`,
    `    max_renewable_life = ${7 * 86_400}s`,
    `    supported_enctypes = ${ENCTYPES.split(' ')
      .map((e) => `${e}:normal`)
      .join(' ')}`,
    '  }',
    '',
    '[logging]',
    `  kdc = FILE:${dir}/kdc.log`,
    `  admin_server = FILE:${dir}/kadmin.log`,
    `  default = FILE:${dir}/krb5.log`,
    '',
  ].join('\n');
}
