/**
 * What the fixture needs of a KDC: the realm, full principal names, and keytabs made on demand.
 * `Kdc` of `@fastpath/kerberos-fixture` (and its jest `useKdc()`) fits as is.
 */
export interface OzoneSecurityKdc {
  /** The realm, e.g. `EXAMPLE.COM`. */
  readonly realm: string;
  /** `name` with the realm appended when it has none. */
  principal(name: string): string;
  /** A new keytab with the current keys of `principals` (created when missing); resolves with its path. */
  keytab(principals: readonly string[]): Promise<string>;
  /** JVM flags that point Java's Kerberos at the realm (`-Djava.security.krb5.conf=…`). */
  javaOptions(): string[];
}

/** Options of a secure cluster (`RealOzoneClusterOptions.security`). */
export interface RealOzoneSecurityOptions {
  /**
   * The KDC the cluster's principals and keytabs are made in, per start: the one service
   * principal {@link OZONE_SERVICE_PRINCIPAL} and the client user {@link OZONE_CLIENT_PRINCIPAL}
   * (existing principals keep their keys).
   */
  kdc: OzoneSecurityKdc;
  /**
   * Also encrypt: `hdds.grpc.tls.enabled=true` (datanode gRPC and Ratis with certificates from the
   * SCM's CA) and `hadoop.rpc.protection=privacy` (Kerberos SASL with confidentiality on every
   * Hadoop RPC connection: OM, SCM). Default: false (`authentication`, plain gRPC).
   */
  tls?: boolean;
}

/**
 * The one service principal of SCM, OM and every datanode (without the realm). They run in one
 * JVM and Hadoop's UGI holds one login per JVM, so they share it, as Ozone's own TestBlockTokens
 * has them share one. `localhost` is what 127.0.0.1, the address every daemon advertises, reverses
 * to, so a client that fills `_HOST` from the address asks for this very principal.
 */
export const OZONE_SERVICE_PRINCIPAL = 'om/localhost';

/** The user Ozone's Java client runs as on a secure cluster (without the realm), from its keytab. */
export const OZONE_CLIENT_PRINCIPAL = 'test';

/**
 * With TLS, the name datanodes advertise and clients dial. Ozone 2.2.0 writes into a datanode's
 * certificate the host's non-loopback IP addresses and, for each, its reverse name when that is a
 * valid domain name (commons-validator: a known top-level domain, so not `localhost`); never a
 * loopback address. gRPC clients (Ozone's and Ratis's) check the name or address they dialled
 * against it. The cluster's JVMs get a hosts file of their own (`jdk.net.hosts.file`) in which
 * this name reverses from the host's other addresses (so the certificate carries it) and resolves
 * to 127.0.0.1 first (so clients reach the servers on loopback). `example.com` is reserved for
 * examples (RFC 2606) and never looked up outside these JVMs.
 */
export const OZONE_DATANODE_TLS_HOST = 'datanode.ozone.example.com';

/** Short names of Ozone's administrators: the service's login (`om`) and the client user. */
function shortName(principal: string): string {
  return principal.split(/[/@]/)[0] as string;
}

/**
 * The Ozone keys of a secure cluster, on top of the cluster's other settings:
 * Kerberos for every daemon (one principal, one keytab), block and container tokens, the
 * administrators, and with `tls` gRPC TLS and RPC privacy. The SCM's CA needs no key of its own:
 * it is created at the SCM's init with Ozone's defaults (`hdds.x509.*`).
 */
export function secureOzoneConfiguration(input: {
  realm: string;
  serviceKeytab: string;
  tls: boolean;
}): Record<string, string> {
  const service = `${OZONE_SERVICE_PRINCIPAL}@${input.realm}`;
  return {
    'ozone.security.enabled': 'true',
    'hadoop.security.authentication': 'kerberos',
    'hadoop.rpc.protection': input.tls ? 'privacy' : 'authentication',
    'hdds.scm.kerberos.principal': service,
    'hdds.scm.kerberos.keytab.file': input.serviceKeytab,
    'ozone.om.kerberos.principal': service,
    'ozone.om.kerberos.keytab.file': input.serviceKeytab,
    'hdds.datanode.kerberos.principal': service,
    'hdds.datanode.kerberos.keytab.file': input.serviceKeytab,
    'hdds.block.token.enabled': 'true',
    'hdds.container.token.enabled': 'true',
    'ozone.administrators': `${shortName(OZONE_SERVICE_PRINCIPAL)},${OZONE_CLIENT_PRINCIPAL}`,
    'hdds.grpc.tls.enabled': String(input.tls),
    // With TLS, datanodes advertise, and clients dial, the name their certificates carry (see
    // OZONE_DATANODE_TLS_HOST and the README).
    ...(input.tls
      ? { 'hdds.datanode.hostname': OZONE_DATANODE_TLS_HOST, 'hdds.datanode.use.datanode.hostname': 'true' }
      : {}),
  };
}
