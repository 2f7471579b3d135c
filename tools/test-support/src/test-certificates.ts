// A throw-away CA and server certificates signed by it, for tests that serve TLS. Made with the
// openssl command line (EC P-256 keys: quick to generate); nothing is kept after `dispose()`.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** One server certificate and its key, PEM. */
export interface TestServerCertificate {
  cert: Buffer;
  key: Buffer;
}

/** A test CA: its certificate, and a way to issue server certificates for given names. */
export interface TestCertificateAuthority {
  /** The CA's certificate, PEM: what a client trusts. */
  readonly caCert: Buffer;
  /**
   * A server certificate for `names` (IP addresses and DNS names, e.g. `['127.0.0.1', 'localhost']`),
   * valid for two days.
   */
  issue(names: readonly string[]): Promise<TestServerCertificate>;
  /** Removes the CA's files. */
  dispose(): Promise<void>;
}

const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** Creates a CA named `name` (its subject's CN). */
export async function createTestCertificateAuthority(
  name = 'fastpath test CA',
): Promise<TestCertificateAuthority> {
  const dir = await mkdtemp(join(tmpdir(), 'fastpath-test-ca-'));
  const f = (file: string): string => join(dir, file);
  await run('openssl', [
    'req',
    '-x509',
    ...EC_KEY,
    '-keyout',
    f('ca.key'),
    '-out',
    f('ca.pem'),
    '-days',
    '2',
    '-subj',
    `/CN=${name}`,
  ]);
  const caCert = await readFile(f('ca.pem'));
  let serial = 0;
  return {
    caCert,
    async issue(names) {
      const n = ++serial;
      const san = names.map((x) => (/^[\d.]+$|:/.test(x) ? `IP:${x}` : `DNS:${x}`)).join(',');
      await writeFile(f(`s${n}.ext`), `subjectAltName=${san}\nextendedKeyUsage=serverAuth\n`);
      await run('openssl', [
        'req',
        ...EC_KEY,
        '-keyout',
        f(`s${n}.key`),
        '-out',
        f(`s${n}.csr`),
        '-subj',
        `/CN=${names[0] ?? 'server'}`,
      ]);
      await run('openssl', [
        'x509',
        '-req',
        '-in',
        f(`s${n}.csr`),
        '-CA',
        f('ca.pem'),
        '-CAkey',
        f('ca.key'),
        '-set_serial',
        String(1000 + n),
        '-out',
        f(`s${n}.pem`),
        '-days',
        '2',
        '-extfile',
        f(`s${n}.ext`),
      ]);
      return { cert: await readFile(f(`s${n}.pem`)), key: await readFile(f(`s${n}.key`)) };
    },
    dispose: () => rm(dir, { recursive: true, force: true }),
  };
}
