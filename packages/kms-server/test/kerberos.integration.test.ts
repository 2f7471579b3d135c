// Kerberos mode against a real MIT KDC: the exchange as Hadoop's handler answers it, the
// hadoop.auth cookie it issues, delegation-token operations, proxy users, and the refusals.
import { createHmac } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { setNativeEnvironment } from '@fastpath/kerberos-fixture';
import { useKdc } from '@fastpath/kerberos-fixture/jest';
import { waitFor } from '@fastpath/test-support';
import { loadKerberos } from '@fastpath/hadoop-common';
import { http, type HttpResult } from './support/http.js';

import { startTestKms, type TestKms } from './support/test-kms.js';

const kdc = useKdc({ processEnv: true });
const SECRET = 'kerberos-test-secret';

let kms: TestKms;
let url: string;
let ccaches: Record<string, string>;
let keytab: string;

/** A client's first GSS token for `service` (`HTTP@localhost`), from the ticket cache `ccache`. */
async function initialToken(
  ccache: string,
  service = 'HTTP@localhost',
  mech: 'krb5' | 'spnego' = 'krb5',
): Promise<{ token: string; step(reply: string): Promise<boolean> }> {
  const kerberos = await loadKerberos();
  await setNativeEnvironment({ KRB5CCNAME: ccache });
  const client = await kerberos.initializeClient(service, {
    mechOID: mech === 'krb5' ? kerberos.GSS_MECH_OID_KRB5 : kerberos.GSS_MECH_OID_SPNEGO,
    gssFlag: kerberos.GSS_C_MUTUAL_FLAG,
  });
  const token = await client.step('');
  return {
    token,
    async step(reply) {
      await client.step(reply);
      return client.contextComplete;
    },
  };
}

const call = (
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
) => http(`${url}${path}`, options);

function header(res: HttpResult, name: string): string | undefined {
  const value = res.headers[name];
  return Array.isArray(value) ? value.join('\n') : value;
}

/** The `hadoop.auth=…` pair of a Set-Cookie answer. */
function cookieOf(res: HttpResult): string {
  const line = header(res, 'set-cookie') ?? '';
  return line.slice(0, line.indexOf(';'));
}

const signed = (text: string): string =>
  `hadoop.auth="${text}&s=${createHmac('sha256', SECRET).update(text).digest('base64')}"`;

beforeAll(async () => {
  keytab = await kdc.keytab(['HTTP/localhost']);
  // The server sets KRB5_KTNAME itself; under jest that reaches its copy of the environment only.
  await setNativeEnvironment({ ...kdc.env(), KRB5_KTNAME: keytab });
  await kdc.addPrincipal('HTTP/otherhost');
  await kdc.addPrincipal('host/localhost');
  ccaches = {
    client: await kdc.kinit('client'),
    clientHost: await kdc.kinit('client/host'),
  };
  const secretFile = join(kdc.dir, 'signer.secret');
  writeFileSync(secretFile, SECRET);
  kms = await startTestKms({
    env: kdc.env(),
    site: {
      'hadoop.kms.authentication.type': 'kerberos',
      'hadoop.kms.authentication.kerberos.keytab': keytab,
      'hadoop.kms.authentication.kerberos.principal': 'HTTP/localhost',
      'hadoop.kms.authentication.signature.secret.file': secretFile,
      'hadoop.kms.proxyuser.client.users': 'foo',
      'hadoop.kms.proxyuser.client.hosts': '*',
      // Paths of Hadoop's HTTP server: a kms-site.xml that lists them starts, and opens nothing.
      'hadoop.kms.authentication.kerberos.endpoint.whitelist': '/jmx, /prom',
    },
  });
  url = (await kms.server.listen()).replace('127.0.0.1', 'localhost');
}, 60_000);

afterAll(async () => {
  await kms?.[Symbol.asyncDispose]();
});

describe('fastpath-kms in Kerberos mode', () => {
  it('challenges a request without credentials: 401, WWW-Authenticate: Negotiate, the cookie cleared, audited', async () => {
    const res = await call('/kms/v1/keys/names');
    expect(res.status).toBe(401);
    expect(header(res, 'www-authenticate')).toBe('Negotiate');
    expect(header(res, 'set-cookie')).toBe('hadoop.auth=; HttpOnly');
    expect(res.statusMessage).toBe('Authentication required');
    await kms.waitForAudit(/UNAUTHENTICATED RemoteHost:127\.0\.0\.1 Method:GET URL:.*\/kms\/v1\/keys\/names/);
    // The endpoint whitelist lists paths this server does not serve: 404 without a challenge.
    for (const path of ['/jmx', '/prom']) {
      const listed = await call(path);
      expect({ path, status: listed.status, challenge: header(listed, 'www-authenticate') }).toEqual({
        path,
        status: 404,
        challenge: undefined,
      });
    }
    // OPTIONS (Hadoop's client's first leg) is challenged the same way on every KMS path.
    for (const path of ['/kms/v1/keys', '/kms/v1/key/k/_eek?eek_op=generate', '/kms']) {
      const options = await call(path, { method: 'OPTIONS' });
      expect({ path, status: options.status, challenge: header(options, 'www-authenticate') }).toEqual({
        path,
        status: 401,
        challenge: 'Negotiate',
      });
    }
  });

  it.each(['krb5', 'spnego'] as const)(
    'accepts a %s token on OPTIONS: 200 with the mutual-authentication reply and a kerberos-dt cookie',
    async (mech) => {
      const client = await initialToken(ccaches['client'] as string, 'HTTP@localhost', mech);
      const res = await call('/kms/v1/keys/names', {
        method: 'OPTIONS',
        headers: { authorization: `Negotiate ${client.token}` },
      });
      expect(res.status).toBe(200);
      const reply = header(res, 'www-authenticate') ?? '';
      expect(reply).toMatch(/^Negotiate \S+$/);
      // The reply completes the client's context: the server proved it holds HTTP/localhost's key.
      expect(await client.step(reply.slice('Negotiate '.length))).toBe(true);
      expect(header(res, 'set-cookie')).toMatch(
        new RegExp(
          `^hadoop\\.auth="u=client&p=client@${kdc.realm.replace(/\./g, '\\.')}&t=kerberos-dt&e=\\d+&s=[^"]+"; HttpOnly$`,
        ),
      );
    },
  );

  it('serves a request authenticated in the same exchange, then by its cookie; audit lines name the principal', async () => {
    const client = await initialToken(ccaches['client'] as string);
    const created = await call('/kms/v1/keys', {
      method: 'POST',
      headers: { authorization: `Negotiate ${client.token}` },
      body: { name: 'k1' },
    });
    expect(created.status).toBe(201);
    expect(header(created, 'www-authenticate')).toMatch(/^Negotiate \S+$/);
    const cookie = cookieOf(created);
    const names = await call('/kms/v1/keys/names', { headers: { cookie } });
    expect(names.status).toBe(200);
    expect(names.json()).toEqual(['k1']);
    expect(header(names, 'set-cookie')).toBeUndefined();
    // As Hadoop's KMS audits a Kerberos caller: by the principal it authenticated.
    await kms.waitForAudit(new RegExp(`OK\\[op=CREATE_KEY, key=k1, user=client@${kdc.realm}\\]`));
  });

  it('client/host@REALM acts as client', async () => {
    const client = await initialToken(ccaches['clientHost'] as string);
    const res = await call('/kms/v1/keys/names', { headers: { authorization: `Negotiate ${client.token}` } });
    expect(res.status).toBe(200);
    expect(cookieOf(res)).toMatch(new RegExp(`^hadoop\\.auth="u=client&p=client/host@${kdc.realm}&`));
  });

  it('gets and renews delegation tokens only with Kerberos credentials; a cancel needs none', async () => {
    const bare = await call('/kms/v1/?op=GETDELEGATIONTOKEN&renewer=client');
    expect({ status: bare.status, challenge: header(bare, 'www-authenticate') }).toEqual({
      status: 401,
      challenge: 'Negotiate',
    });
    const client = await initialToken(ccaches['client'] as string);
    const got = await call('/kms/v1/?op=GETDELEGATIONTOKEN&renewer=client', {
      headers: { authorization: `Negotiate ${client.token}` },
    });
    expect(got.status).toBe(200);
    const urlString = (got.json() as { Token: { urlString: string } }).Token.urlString;
    const cookie = cookieOf(
      await call('/kms/v1/keys/names', {
        headers: { authorization: `Negotiate ${(await initialToken(ccaches['client'] as string)).token}` },
      }),
    );
    // The token itself authenticates key calls, but neither gets nor renews tokens.
    expect(
      (await call('/kms/v1/keys/names', { headers: { 'x-hadoop-delegation-token': urlString } })).status,
    ).toBe(200);
    const byToken = await call(`/kms/v1/?op=RENEWDELEGATIONTOKEN&token=${urlString}`, {
      method: 'PUT',
      headers: { 'x-hadoop-delegation-token': urlString },
    });
    expect(byToken.status).toBe(401);
    const renewed = await call(`/kms/v1/?op=RENEWDELEGATIONTOKEN&token=${urlString}`, {
      method: 'PUT',
      headers: { cookie },
    });
    expect(renewed.status).toBe(200);
    const cancelled = await call(`/kms/v1/?op=CANCELDELEGATIONTOKEN&token=${urlString}`, { method: 'PUT' });
    expect(cancelled.status).toBe(200);
    expect(
      (await call('/kms/v1/keys/names', { headers: { 'x-hadoop-delegation-token': urlString } })).status,
    ).toBe(403);
  });

  it('lets a proxy user act for an allowed user, and refuses others naming the full principal, as Hadoop does', async () => {
    const cookie = cookieOf(
      await call('/kms/v1/keys/names', {
        headers: { authorization: `Negotiate ${(await initialToken(ccaches['client'] as string)).token}` },
      }),
    );
    const allowed = await call('/kms/v1/keys?doAs=foo', {
      method: 'POST',
      headers: { cookie },
      body: { name: 'k-foo' },
    });
    expect(allowed.status).toBe(201);
    await kms.waitForAudit(/OK\[op=CREATE_KEY, key=k-foo, user=foo\]/);
    const refused = await call('/kms/v1/keys/names?doas=bar', { headers: { cookie } });
    expect(refused.status).toBe(403);
    expect((refused.json() as { RemoteException: { message: string } }).RemoteException.message).toBe(
      `User: client@${kdc.realm} is not allowed to impersonate bar`,
    );
  });
});

describe('refusals in Kerberos mode (never a 5xx, the cookie cleared, nothing stored)', () => {
  const expectRefused = (res: HttpResult, status: 401 | 403, reason: RegExp): void => {
    expect({ status: res.status, cleared: header(res, 'set-cookie') }).toEqual({
      status,
      cleared: 'hadoop.auth=; HttpOnly',
    });
    expect(res.statusMessage).toMatch(reason);
  };
  const negotiate = (token: string) => ({ headers: { authorization: `Negotiate ${token}` } });

  it('refuses non-base64, truncated and garbage tokens with 403', async () => {
    const good = (await initialToken(ccaches['client'] as string)).token;
    const bytes = Buffer.from(good, 'base64');
    const tokens = [
      '!!!not base64!!!',
      '',
      Buffer.from('garbage').toString('base64'),
      bytes.subarray(0, bytes.length >> 1).toString('base64'),
      bytes.subarray(0, 20).toString('base64'),
    ];
    for (const token of tokens) {
      expectRefused(
        await call('/kms/v1/keys/names', negotiate(token)),
        403,
        /Malformed gss token|GSSException/,
      );
    }
    const flipped = Buffer.from(bytes);
    flipped[flipped.length - 10] = (flipped[flipped.length - 10] as number) ^ 0xff;
    expectRefused(
      await call('/kms/v1/keys/names', negotiate(flipped.toString('base64'))),
      403,
      /GSSException/,
    );
  });

  it('refuses a scheme other than Negotiate with 401', async () => {
    expectRefused(
      await call('/kms/v1/keys/names', { headers: { authorization: 'Basic Y2xpZW50OnB3' } }),
      401,
      /Authentication required/,
    );
  });

  it('refuses tickets for another service: HTTP/otherhost (not served) and host/localhost (not HTTP/)', async () => {
    const other = await initialToken(ccaches['client'] as string, 'HTTP@otherhost');
    expectRefused(
      await call('/kms/v1/keys/names', negotiate(other.token)),
      403,
      /^GSSException: No valid credentials provided \(Mechanism level: Failed to find any Kerberos credentials\)$/,
    );
    const host = await initialToken(ccaches['client'] as string, 'host@localhost');
    expectRefused(
      await call('/kms/v1/keys/names', negotiate(host.token)),
      403,
      /^java\.lang\.IllegalArgumentException: Invalid server principal host\/localhost@.*decoded from client request$/,
    );
  });

  it('refuses a replayed authenticator', async () => {
    const { token } = await initialToken(ccaches['client'] as string);
    expect((await call('/kms/v1/keys/names', negotiate(token))).status).toBe(200);
    expectRefused(await call('/kms/v1/keys/names', negotiate(token)), 403, /GSSException/);
  });

  it('refuses a principal no rule maps (hadoop mechanism): DEFAULT maps the default realm only', async () => {
    // A server whose krb5.conf names another default realm: client@<KDC realm> matches no rule.
    const conf = join(kdc.dir, 'other-realm.conf');
    writeFileSync(
      conf,
      readFileSync(kdc.krb5ConfigPath, 'utf8').replace(/default_realm = \S+/, 'default_realm = OTHER.REALM'),
    );
    await using other = await startTestKms({
      env: { ...kdc.env(), KRB5_CONFIG: conf },
      site: {
        'hadoop.kms.authentication.type': 'kerberos',
        'hadoop.kms.authentication.kerberos.keytab': keytab,
        'hadoop.kms.authentication.kerberos.principal': `HTTP/localhost@${kdc.realm}`,
      },
    });
    const otherUrl = (await other.server.listen()).replace('127.0.0.1', 'localhost');
    const { token } = await initialToken(ccaches['client'] as string);
    expectRefused(
      await http(`${otherUrl}/kms/v1/keys/names`, negotiate(token)),
      403,
      new RegExp(`No rules applied to client@${kdc.realm}`),
    );
  });

  it('refuses an expired ticket', async () => {
    const ccache = await kdc.kinit('client', { lifetimeSeconds: 2 });
    const { token } = await initialToken(ccache);
    const issued = Date.now();
    // Past the ticket's end plus the realm's one second of allowed skew, on the wall clock.
    await waitFor('the ticket to expire', () => (Date.now() - issued > 4_000 ? true : undefined), {
      timeoutMs: 10_000,
    });
    expectRefused(await call('/kms/v1/keys/names', negotiate(token)), 403, /GSSException/);
  });

  it('refuses forged, expired and wrong-type cookies with 401 and the reasons Hadoop client retries on', async () => {
    const forged = `hadoop.auth="u=client&p=client@${kdc.realm}&t=kerberos-dt&e=${Date.now() + 60_000}&s=AAAA"`;
    expectRefused(
      await call('/kms/v1/keys/names', { headers: { cookie: forged } }),
      401,
      /SignerException: Invalid signature/,
    );
    const expired = signed(`u=client&p=client@${kdc.realm}&t=kerberos-dt&e=${Date.now() - 1}`);
    expectRefused(
      await call('/kms/v1/keys/names', { headers: { cookie: expired } }),
      401,
      /AuthenticationToken expired/,
    );
    const simple = signed(`u=client&p=client&t=simple-dt&e=${Date.now() + 60_000}`);
    expectRefused(
      await call('/kms/v1/keys/names', { headers: { cookie: simple } }),
      401,
      /Invalid AuthenticationToken type/,
    );
    // A cookie Hadoop's KMS would sign with the shared secret is accepted.
    const hadoops = signed(`u=client&p=client@${kdc.realm}&t=kerberos-dt&e=${Date.now() + 60_000}`);
    expect((await call('/kms/v1/keys/names', { headers: { cookie: hadoops } })).status).toBe(200);
  });

  it('answers any Authorization header with 200, 401 or 403, never a 5xx, and a refusal stores nothing', async () => {
    const real = Buffer.from((await initialToken(ccaches['client'] as string)).token, 'base64');
    const mutated = fc
      .tuple(fc.nat({ max: real.length - 1 }), fc.integer({ min: 1, max: 255 }), fc.nat({ max: real.length }))
      .map(([at, xor, cut]) => {
        const bytes = Buffer.from(real.subarray(0, Math.max(cut, at + 1)));
        bytes[at] = (bytes[at] as number) ^ xor;
        return `Negotiate ${bytes.toString('base64')}`;
      });
    const authorization = fc.oneof(
      fc.string({ maxLength: 60 }),
      fc.base64String({ maxLength: 200 }).map((b) => `Negotiate ${b}`),
      fc.string({ maxLength: 60 }).map((t) => `Negotiate ${t}`),
      fc.constantFrom('Negotiate', 'Negotiate ', 'negotiate abc', 'NegotiateYWJj', 'Basic Y2xpZW50OnB3'),
      mutated,
    );
    const target = fc.constantFrom(
      ['GET', '/kms/v1/keys/names'],
      ['OPTIONS', '/kms/v1/keys'],
      ['GET', '/kms/v1/key/k1/_currentversion'],
      ['GET', '/kms/v1/?op=GETDELEGATIONTOKEN&renewer=client'],
      ['PUT', '/kms/v1/?op=RENEWDELEGATIONTOKEN&token=AAAA'],
    );
    const before = (
      await call('/kms/v1/keys/names', {
        headers: { cookie: signed(`u=client&p=client@${kdc.realm}&t=kerberos-dt&e=${Date.now() + 600_000}`) },
      })
    ).json();
    await fc.assert(
      fc.asyncProperty(authorization, target, async (value, [method, path]) => {
        const res = await call(path, {
          method: method,
          headers: { authorization: value },
        });
        expect([200, 400, 401, 403]).toContain(res.status);
        if (res.status === 401 || res.status === 403)
          expect(header(res, 'set-cookie')).toBe('hadoop.auth=; HttpOnly');
        if (res.status === 401) expect(header(res, 'www-authenticate')).toBe('Negotiate');
      }),
      { numRuns: 150, interruptAfterTimeLimit: 60_000 },
    );
    const after = (
      await call('/kms/v1/keys/names', {
        headers: { cookie: signed(`u=client&p=client@${kdc.realm}&t=kerberos-dt&e=${Date.now() + 600_000}`) },
      })
    ).json();
    expect(after).toEqual(before);
  }, 120_000);

  it('left the keystore as the accepted requests made it', async () => {
    const cookie = signed(`u=client&p=client@${kdc.realm}&t=kerberos-dt&e=${Date.now() + 60_000}`);
    expect((await call('/kms/v1/keys/names', { headers: { cookie } })).json()).toEqual(['k1', 'k-foo']);
    // Refused credentials write UNAUTHENTICATED (401) or nothing (403); no request failed in the server.
    expect(kms.auditLines().filter((l) => !/^\S+ \S+ (OK\[|UNAUTHENTICATED )/.test(l))).toEqual([]);
    expect(kms.auditLines().filter((l) => l.includes('OK[op=CREATE_KEY'))).toHaveLength(2);
  });
});
