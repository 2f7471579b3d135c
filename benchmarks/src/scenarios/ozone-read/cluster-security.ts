// What a secure level asks of a benchmark: the MIT KDC its clusters' principals live in (one per
// run), the cluster's security options, and how each client process logs in as the cluster's
// Kerberos user: fastpath's from the user's keytab through its `security` option, Ozone's Java
// client through UserGroupInformation.loginUserFromKeytab, both with the cluster's security keys.
import { join } from 'node:path';
import { startKdc, type Kdc } from '@fastpath/kerberos-fixture';
import {
  OZONE_DATANODE_TLS_HOST,
  type RealOzoneCluster,
  type RealOzoneSecurityOptions,
} from '@fastpath/ozone-fixture';
import { BenchmarkCheckError, type ScenarioContext } from '../../harness/index.js';
import type { SecurityLevel } from './security-levels.js';

/** How a client process logs in to a secure cluster; it travels to the process in its calls. */
export interface ClientLogin {
  level: SecurityLevel;
  /** The cluster's client user (`test@<realm>`) and its keytab. */
  principal: string;
  keytab: string;
  /**
   * The cluster's security keys (`ozone.security.enabled`, the principals, `hadoop.rpc.protection`,
   * `hdds.grpc.tls.enabled`, …), under the client's own properties.
   */
  properties: Record<string, string>;
  /**
   * With TLS on the datanodes: the CA file the OM hands its clients, and the name the datanodes'
   * certificates carry (they are dialled on loopback, which no certificate names).
   */
  tls?: { caFile: string; serverNameOverride: string };
}

export interface BenchmarkKdc extends AsyncDisposable {
  readonly kdc: Kdc;
  /**
   * The environment of a fastpath client process: the realm's files libkrb5 reads, and a ticket
   * cache that does not exist, so that every log-in is the keytab's and none is a cache's.
   */
  readonly clientEnv: Readonly<Record<string, string>>;
}

/** A KDC for the run's secure clusters (each start makes its principals and keytabs in it). */
export async function startBenchmarkKdc(ctx: ScenarioContext<unknown>): Promise<BenchmarkKdc> {
  ctx.note('starting an MIT KDC for the secure clusters');
  const kdc = await startKdc({ clockSkewSeconds: 300 });
  ctx.log(`KDC: realm ${kdc.realm} on 127.0.0.1:${kdc.port}`);
  return {
    kdc,
    clientEnv: { ...kdc.env(), KRB5CCNAME: `FILE:${join(kdc.dir, 'no-ticket-cache')}` },
    [Symbol.asyncDispose]: () => kdc.stop(),
  };
}

/** The cluster's `security` option for a level; undefined for none. */
export function clusterSecurityOptions(
  level: SecurityLevel,
  kdc: BenchmarkKdc | undefined,
): RealOzoneSecurityOptions | undefined {
  if (level === 'none') return undefined;
  if (kdc === undefined) throw new BenchmarkCheckError(`security level ${level} without a KDC`);
  return { kdc: kdc.kdc, tls: level === 'privacy' };
}

/** How clients log in to `cluster` at `level`; undefined for none. */
export function clientLogin(cluster: RealOzoneCluster, level: SecurityLevel): ClientLogin | undefined {
  if (level === 'none') return undefined;
  const security = cluster.security;
  if (security === undefined) throw new BenchmarkCheckError(`the ${level} cluster started without security`);
  return {
    level,
    principal: security.userPrincipal,
    keytab: security.userKeytab,
    properties: { ...security.configuration },
    ...(security.tls
      ? { tls: { caFile: security.caCertificatePath, serverNameOverride: OZONE_DATANODE_TLS_HOST } }
      : {}),
  };
}

/**
 * What Ozone's Java client's JVM needs on a secure cluster: the realm's krb5.conf and, with TLS,
 * what the cluster's own JVMs get (see the fixture's README): the hosts file that resolves the
 * datanodes' certificate name to 127.0.0.1, and first on the class path the `ozone-site.xml` that
 * tells Ozone's Ratis helper (which reads a configuration of its own) to dial datanodes by name.
 */
export function javaSecurityArgs(cluster: RealOzoneCluster): {
  jvmArgs: string[];
  classpathPrefix: string[];
} {
  const security = cluster.security;
  if (security === undefined) return { jvmArgs: [], classpathPrefix: [] };
  const site = join(cluster.rootDir, 'site');
  return {
    jvmArgs: [
      ...security.javaOptions,
      ...(security.tls ? [`-Djdk.net.hosts.file=${join(site, 'hosts')}`] : []),
    ],
    classpathPrefix: security.tls ? [site] : [],
  };
}
