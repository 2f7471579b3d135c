// Kerberos for the kms-http benchmark (--auth kerberos): one real MIT KDC for the run, the
// servers' HTTP/localhost keytab, and the benchmark user's ticket cache, which this process and
// the load generator (its child) read through the environment libkrb5 reads.
import { startKdc, type Kdc } from '@fastpath/kerberos-fixture';
import { BENCH_USER } from './kms-preflight.js';

/** What a case needs of the run's realm. */
export interface BenchKerberos extends AsyncDisposable {
  readonly kdc: Kdc;
  /** The keytab of `HTTP/localhost`, for both kinds of server. */
  readonly serverKeytab: string;
  /** kms-site.xml entries of Kerberos mode. */
  readonly site: Readonly<Record<string, string>>;
}

/**
 * Starts the realm, writes the servers' keytab, logs the benchmark user in, and points this
 * process's environment at the realm (a benchmark runs in a plain process: libkrb5 sees it).
 */
export async function startBenchKerberos(): Promise<BenchKerberos> {
  // MIT's default allowed skew (the fixture's default of 1 s suits expiry tests): under load a
  // request can wait in a server's queue for longer than a second after its client made the
  // authenticator, and Hadoop's KMS then refuses it ("Clock skew too great").
  const kdc = await startKdc({ clockSkewSeconds: 300 });
  try {
    const serverKeytab = await kdc.keytab(['HTTP/localhost']);
    const ccache = await kdc.kinit(BENCH_USER);
    Object.assign(process.env, kdc.env(), { KRB5CCNAME: ccache });
    const auth = 'hadoop.kms.authentication.';
    return {
      kdc,
      serverKeytab,
      site: {
        [`${auth}type`]: 'kerberos',
        [`${auth}kerberos.keytab`]: serverKeytab,
        [`${auth}kerberos.principal`]: 'HTTP/localhost',
        [`${auth}kerberos.name.rules`]: 'DEFAULT',
      },
      [Symbol.asyncDispose]: () => kdc.stop(),
    };
  } catch (error) {
    await kdc.stop();
    throw error;
  }
}

/** Kerberos clients name the service after the URL's host: the servers are called as localhost. */
export function kerberosOrigin(origin: string): string {
  return origin.replace('//127.0.0.1:', '//localhost:');
}
