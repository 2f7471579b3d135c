// A throw-away CA and a server certificate for 127.0.0.1/localhost, made with the openssl
// command line (EC P-256 keys: quick to generate).
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { MiniClusterError } from '../ozone-errors.js';

const run = promisify(execFile);

export interface TlsFixture {
  /** PEM file of the CA; give it to clients as `tls.caFile`. */
  caFile: string;
  certChain: Buffer;
  privateKey: Buffer;
  rootCert: Buffer;
}

export async function createTlsFixture(dir: string): Promise<TlsFixture> {
  mkdirSync(dir, { recursive: true });
  const f = (name: string): string => join(dir, name);
  writeFileSync(f('server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  try {
    await run('openssl', [
      'req',
      '-x509',
      ...ec,
      '-keyout',
      f('ca.key'),
      '-out',
      f('ca.pem'),
      '-days',
      '7',
      '-subj',
      '/CN=fastpath mini Ozone CA',
    ]);
    await run('openssl', [
      'req',
      ...ec,
      '-keyout',
      f('server.key'),
      '-out',
      f('server.csr'),
      '-subj',
      '/CN=localhost',
    ]);
    await run('openssl', [
      'x509',
      '-req',
      '-in',
      f('server.csr'),
      '-CA',
      f('ca.pem'),
      '-CAkey',
      f('ca.key'),
      '-CAcreateserial',
      '-out',
      f('server.pem'),
      '-days',
      '7',
      '-extfile',
      f('server.ext'),
    ]);
  } catch (cause) {
    throw new MiniClusterError(
      `could not create TLS certificates with openssl (is it installed?): ${(cause as Error).message}`,
      cause,
    );
  }
  return {
    caFile: f('ca.pem'),
    rootCert: readFileSync(f('ca.pem')),
    certChain: readFileSync(f('server.pem')),
    privateKey: readFileSync(f('server.key')),
  };
}
