// The client logging in with Kerberos against fastpath-kms in Kerberos mode, with a real MIT KDC:
// from the ticket cache and from a keytab, the cookie reused until refused, one re-login when it
// expires, delegation tokens fetched with Kerberos credentials and used by another process.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setNativeEnvironment } from '@fastpath/kerberos-fixture';
import { useKdc } from '@fastpath/kerberos-fixture/jest';
import { createKmsServer, type KmsServer } from '@fastpath/kms-server';

import { waitFor } from '@fastpath/test-support';
import { KmsClient, KmsKerberosLoginError } from '../src/index.js';
import { runFastpathKey } from './support/run-fastpath-key.js';

const kdc = useKdc({ processEnv: true });

let dir: string;
let keytabs: { http: string; clientHost: string };
let ccache: string;

async function startKms(site: Record<string, string> = {}): Promise<{ server: KmsServer; url: string }> {
  const server = await createKmsServer({
    host: '127.0.0.1',
    port: 0,
    dataDir: mkdtempSync(join(dir, 'kms-')),
    scrypt: { logN: 10, r: 8, p: 1 },
    env: kdc.env(),
    site: {
      'hadoop.kms.authentication.type': 'kerberos',
      'hadoop.kms.authentication.kerberos.keytab': keytabs.http,
      'hadoop.kms.authentication.kerberos.principal': 'HTTP/localhost',
      ...site,
    },
  });
  // Hadoop's client names the service after the URL's host: HTTP/localhost.
  const url = `${(await server.listen()).replace('127.0.0.1', 'localhost')}/kms`;
  return { server, url };
}

/** How many OPTIONS log-in legs the server answered with `status` (from its request counter). */
async function logins(server: KmsServer, status: 200 | 401): Promise<number> {
  const text = await server.metrics.metrics();
  const line = text
    .split('\n')
    .find(
      (l) =>
        l.startsWith('kms_requests_total{') && l.includes('op="KMS"') && l.includes(`status="${status}"`),
    );
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kms-client-krb-'));
  keytabs = { http: await kdc.keytab(['HTTP/localhost']), clientHost: await kdc.keytab(['client/host']) };
  ccache = await kdc.kinit('client');
  await setNativeEnvironment({ ...kdc.env(), KRB5_KTNAME: keytabs.http, KRB5CCNAME: ccache });
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('KmsClient with Kerberos', () => {
  it('logs in from the ticket cache once, and reuses the cookie for every later call', async () => {
    const { server, url } = await startKms();
    await using _server = server;
    await using kms = new KmsClient({ url, kerberos: true });
    await kms.createKey('k1');
    const [eek] = await kms.generateEncryptedKeys('k1', 1);
    expect((await kms.decryptEncryptedKey(eek!)).material?.unwrap()).toHaveLength(16);
    expect(await kms.getKeyNames()).toEqual(['k1']);
    // One log-in: the probe challenged (401), the exchange succeeded (200); no more after it.
    expect({ challenged: await logins(server, 401), accepted: await logins(server, 200) }).toEqual({
      challenged: 1,
      accepted: 1,
    });
  });

  it('logs in from a keytab as client/host, which the server maps to client', async () => {
    const { server, url } = await startKms({
      'hadoop.kms.acl.CREATE': 'client',
      'hadoop.kms.acl.GET_KEYS': 'client',
    });
    await using _server = server;
    // The client sets KRB5_CLIENT_KTNAME for its process; under jest that reaches a copy of the
    // environment only, so the test sets it where libkrb5 reads it.
    await setNativeEnvironment({
      KRB5CCNAME: join(dir, 'empty-cache'),
      KRB5_CLIENT_KTNAME: keytabs.clientHost,
    });
    try {
      await using kms = new KmsClient({
        url,
        kerberos: { principal: kdc.principal('client/host'), keytab: keytabs.clientHost },
      });
      await kms.createKey('k-host');
      expect(await kms.getKeyNames()).toEqual(['k-host']);
      await waitFor('the audit line of the creation', () =>
        new RegExp(`OK\\[op=CREATE_KEY, key=k-host, user=client/host@${kdc.realm}\\]`).test(
          readFileSync(server.settings.audit.file, 'utf8'),
        )
          ? true
          : undefined,
      );
    } finally {
      await setNativeEnvironment({ KRB5CCNAME: ccache, KRB5_CLIENT_KTNAME: undefined });
    }
  });

  it('logs in again, once, when the server refuses an expired cookie (token.validity 1 s)', async () => {
    const { server, url } = await startKms({ 'hadoop.kms.authentication.token.validity': '1' });
    await using _server = server;
    await using kms = new KmsClient({ url, kerberos: true });
    await kms.getKeyNames();
    const first = Date.now();
    await waitFor('the cookie to expire', () => (Date.now() - first > 1_500 ? true : undefined), {
      timeoutMs: 10_000,
    });
    expect(await kms.getKeyNames()).toEqual([]);
    // The expired cookie got a 401 and the client logged in again: two accepted exchanges.
    expect(await logins(server, 200)).toBe(2);
  });

  it('fetches a delegation token with Kerberos credentials that another process uses', async () => {
    const { server, url } = await startKms();
    await using _server = server;
    await using kms = new KmsClient({ url, kerberos: true });
    await kms.createKey('shared');
    const token = await kms.getDelegationToken({ renewer: 'client' });
    // As Hadoop's KMS issues it: owned by the short name.
    expect({ owner: token.owner, renewer: token.renewer, kind: token.kind }).toEqual({
      owner: 'client',
      renewer: 'client',
      kind: 'kms-dt',
    });
    expect(await kms.renewDelegationToken(token)).toBeGreaterThan(Date.now());
    // Another process with no Kerberos at all: the token alone.
    const other = await runFastpathKey(['list', '--url', url, '--token', token.toUrlString(), '--json'], {
      env: { KRB5CCNAME: join(dir, 'no-cache') },
    });
    expect({ code: other.code, stderr: other.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(other.stdout)).toEqual(['shared']);
  });

  it('fastpath-key logs in from the ticket cache with --kerberos, and from a keytab', async () => {
    const { server, url } = await startKms();
    await using _server = server;
    const env = { ...kdc.env(), KRB5CCNAME: ccache };
    const created = await runFastpathKey(['create', 'k-cli', '--url', url, '--kerberos'], { env });
    expect({ code: created.code, stderr: created.stderr }).toEqual({ code: 0, stderr: '' });
    const listed = await runFastpathKey(
      [
        'list',
        '--url',
        url,
        '--principal',
        kdc.principal('client/host'),
        '--keytab',
        keytabs.clientHost,
        '--json',
      ],
      { env: { ...kdc.env(), KRB5CCNAME: join(dir, 'cli-cache') } },
    );
    expect({ code: listed.code, stderr: listed.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(listed.stdout)).toEqual(['k-cli']);
  });

  it('refuses a server that accepts the ticket without proving itself (no or a bogus mutual-authentication reply)', async () => {
    // A server that takes any Negotiate header: it never had the service key.
    for (const reply of [undefined, 'Negotiate YWJjZGVm']) {
      const server = createServer((req, res) => {
        if (req.headers.authorization === undefined) {
          res.writeHead(401, { 'www-authenticate': 'Negotiate' }).end();
          return;
        }
        res
          .writeHead(200, {
            'set-cookie': 'hadoop.auth="u=client&p=client&t=kerberos-dt&e=1&s=x"; HttpOnly',
            ...(reply === undefined ? {} : { 'www-authenticate': reply }),
          })
          .end('[]');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const { port } = server.address() as AddressInfo;
        await using kms = new KmsClient({ url: `http://localhost:${port}/kms`, kerberos: true });
        const error = await kms.getKeyNames().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(KmsKerberosLoginError);
        expect((error as KmsKerberosLoginError).reason).toMatch(
          reply === undefined
            ? /mutual authentication not completed/
            : /the server's reply does not authenticate it/,
        );
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    }
  });

  it('fails with ERR_KMS_KERBEROS_LOGIN without a ticket, and when the server does not ask for Kerberos', async () => {
    const { server, url } = await startKms();
    await using _server = server;
    await setNativeEnvironment({ KRB5CCNAME: join(dir, 'no-such-cache') });
    try {
      await using kms = new KmsClient({ url, kerberos: true });
      await expect(kms.getKeyNames()).rejects.toBeInstanceOf(KmsKerberosLoginError);
    } finally {
      await setNativeEnvironment({ KRB5CCNAME: ccache });
    }
    await using simple = await createKmsServer({
      host: '127.0.0.1',
      port: 0,
      dataDir: mkdtempSync(join(dir, 'simple-')),
      scrypt: { logN: 10, r: 8, p: 1 },
    });
    await using kms = new KmsClient({ url: `${await simple.listen()}/kms`, kerberos: true });
    await expect(kms.getKeyNames()).rejects.toThrow(/the server does not ask for Kerberos/);
  });
});
