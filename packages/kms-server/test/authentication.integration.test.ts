import { ManualClock, Redacted } from '@fastpath/core';
import { Token } from '@fastpath/token-manager';
import { eeksOf, keyVersionOf, renewalOf, tokenUrlOf } from './support/kms-json.js';
import { startTestKms, remote, statusLineAnswer, type TestKms } from './support/test-kms.js';

const T0 = 1_800_000_000_000;
let kms: TestKms;
let clock: ManualClock;

beforeEach(async () => {
  clock = new ManualClock(T0);
  kms = await startTestKms({
    clock,
    site: {
      'hadoop.kms.proxyuser.client.users': 'foo,bar',
      'hadoop.kms.proxyuser.client.hosts': '*',
      'hadoop.kms.proxyuser.nohost.users': '*',
      'hadoop.kms.authentication.delegation-token.max-lifetime.sec': '5',
      'hadoop.kms.authentication.delegation-token.renew-interval.sec': '3',
    },
  });
});
afterEach(async () => {
  await kms[Symbol.asyncDispose]();
});

async function getToken(user: string, renewer?: string, extra = ''): Promise<string> {
  const res = await kms.call(
    'GET',
    `/kms/v1/?op=GETDELEGATIONTOKEN${renewer ? `&renewer=${renewer}` : ''}${extra}`,
    { user },
  );
  expect(res.statusCode).toBe(200);
  expect(res.body.endsWith('\n')).toBe(true);
  return tokenUrlOf(res.json());
}

describe('authentication', () => {
  it('38: anonymous requests get 401, WWW-Authenticate: PseudoAuth, a cleared cookie, and an UNAUTHENTICATED audit line', async () => {
    const res = await kms.call('GET', '/kms/v1/keys/names');
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('PseudoAuth');
    expect(res.headers['set-cookie']).toMatch(/^hadoop\.auth=; /);
    expect(remote(res)).toEqual({
      message: 'Authentication required',
      exception: 'AuthenticationException',
      javaClassName: 'org.apache.hadoop.security.authentication.client.AuthenticationException',
    });
    expect((await kms.call('GET', '/kms/v1/keys/names?user.name=')).statusCode).toBe(401);
    await kms.waitForAudit(
      /UNAUTHENTICATED RemoteHost:127\.0\.0\.1 Method:GET URL:http:\/\/localhost:80\/kms\/v1\/keys\/names ErrorMsg:'Authentication required'/,
    );
  });

  it("answers Hadoop's OPTIONS log-in on every KMS path: 401 asking for PseudoAuth without a user, 200 with the cookie with one", async () => {
    for (const path of [
      '/kms/v1/keys',
      '/kms/v1/key/k1/_metadata',
      '/kms/v1/?op=GETDELEGATIONTOKEN&renewer=x',
    ]) {
      const anonymous = await kms.call('OPTIONS', path);
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.headers['www-authenticate']).toBe('PseudoAuth');
      const login = await kms.call('OPTIONS', path, { user: 'alice' });
      expect(login.statusCode).toBe(200);
      expect(login.body).toBe('');
      const cookie = String(login.headers['set-cookie']);
      expect(cookie).toMatch(/^hadoop\.auth="u=alice&p=alice&t=simple-dt&e=\d+&s=[^"]+"; /);
      const call = await kms.call('GET', '/kms/v1/keys/names', {
        headers: { cookie: cookie.slice(0, cookie.indexOf(';')) },
      });
      expect(call.statusCode).toBe(200);
    }
    // The log-in is no key operation: it creates nothing.
    expect((await kms.call('GET', '/kms/v1/keys/names', { user: 'alice' })).json()).toEqual([]);
  });

  it('authenticates by the signed hadoop.auth cookie issued on a user.name request', async () => {
    const first = await kms.call('GET', '/kms/v1/keys/names', { user: 'alice' });
    const setCookie = String(first.headers['set-cookie']);
    // As Hadoop's KMS writes it: no Path, Domain or Expires unless configured (a session cookie).
    expect(setCookie).toMatch(/^hadoop\.auth="u=alice&p=alice&t=simple-dt&e=\d+&s=[^"]+"; HttpOnly$/);
    const cookie = setCookie.slice(0, setCookie.indexOf(';'));
    const withCookie = await kms.call('POST', '/kms/v1/keys', { headers: { cookie }, body: { name: 'k' } });
    expect(withCookie.statusCode).toBe(201);
    expect(withCookie.headers['set-cookie']).toBeUndefined();
    await kms.waitForAudit(/OK\[op=CREATE_KEY, key=k, user=alice\]/);
    const forged = cookie.replace('u=alice', 'u=admin');
    const refused = await kms.call('GET', '/kms/v1/keys/names', { headers: { cookie: forged } });
    expect(refused.statusCode).toBe(401);
    expect(remote(refused).message).toMatch(/Invalid signature/);
    expect(
      (await kms.call('GET', '/kms/v1/keys/names', { user: 'bob', headers: { cookie: forged } })).statusCode,
    ).toBe(200);
    clock.advance(36_000_001);
    expect(remote(await kms.call('GET', '/kms/v1/keys/names', { headers: { cookie } })).message).toBe(
      'AuthenticationToken expired',
    );
  });

  it('33, 34: issues kms-dt tokens, renews only by the renewer, cancels, and refuses renewal after cancel', async () => {
    const urlString = await getToken('client', 'client1');
    const token = Token.fromUrlString(urlString);
    expect(token.kind).toBe('kms-dt');
    const renew = (user: string) =>
      kms.call('PUT', `/kms/v1/?op=RENEWDELEGATIONTOKEN&token=${urlString}`, { user });
    // Refused as Hadoop's filter refuses it: 403, the reason in the status line, no body, and the
    // cookie cleared (Hadoop's own client reports that reason; a body would hide it, D9).
    const wrong = await renew('client');
    expect(statusLineAnswer(wrong)).toEqual({
      status: 403,
      reason: expect.stringMatching(
        /^org\.apache\.hadoop\.security\.AccessControlException: client tries to renew a token .* with non-matching renewer client1$/,
      ) as unknown,
      body: '',
      contentType: undefined,
    });
    expect(wrong.headers['set-cookie']).toMatch(/^hadoop\.auth=; /);
    const first = await renew('client1');
    expect(first.statusCode).toBe(200);
    expect(first.body.endsWith('\n')).toBe(true);
    const expires = renewalOf(first.json());
    expect(expires).toBeGreaterThan(T0);
    clock.advance(100);
    const second = renewalOf((await renew('client1')).json());
    expect(second).toBeGreaterThan(expires);
    const cancel = await kms.call('PUT', `/kms/v1/?op=CANCELDELEGATIONTOKEN&token=${urlString}`, {
      user: 'client',
    });
    expect(cancel.statusCode).toBe(200);
    expect(cancel.body).toBe('');
    const after = await renew('client1');
    expect(statusLineAnswer(after)).toEqual({
      status: 403,
      reason: expect.stringMatching(
        /^org\.apache\.hadoop\.security\.token\.SecretManager\$InvalidToken: Renewal request for unknown token \(/,
      ) as unknown,
      body: '',
      contentType: undefined,
    });
  });

  it('35: a delegation token (header or parameter) authenticates as its owner until it expires', async () => {
    const urlString = await getToken('client');
    const viaHeader = await kms.call('POST', '/kms/v1/keys', {
      headers: { 'x-hadoop-delegation-token': urlString },
      body: { name: 'k1' },
    });
    expect(viaHeader.statusCode).toBe(201);
    expect(viaHeader.headers['set-cookie']).toBeUndefined();
    const viaParam = await kms.call('GET', `/kms/v1/keys/names?delegation=${urlString}`);
    expect(viaParam.json()).toEqual(['k1']);
    await kms.waitForAudit(/OK\[op=CREATE_KEY, key=k1, user=client\]/);
    // The token lives 5 s at most, and was not renewed within its 3 s renewal interval.
    clock.advance(5_001);
    const expired = await kms.call('GET', `/kms/v1/keys/names?delegation=${urlString}`);
    expect(expired.statusCode).toBe(403);
    expect(remote(expired).exception).toBe('AuthenticationException');
    expect(remote(expired).message).toMatch(
      /^org\.apache\.hadoop\.security\.token\.SecretManager\$InvalidToken: .*expired/,
    );
    const fresh = await getToken('client');
    expect((await kms.call('GET', `/kms/v1/keys/names?delegation=${fresh}`)).statusCode).toBe(200);
  });

  it('36: getting or renewing a token needs real authentication; cancelling does not', async () => {
    const urlString = await getToken('client');
    for (const [method, query] of [
      ['GET', 'op=GETDELEGATIONTOKEN'],
      ['PUT', `op=RENEWDELEGATIONTOKEN&token=${urlString}`],
    ] as const) {
      const res = await kms.call(method, `/kms/v1/?${query}&delegation=${urlString}`);
      expect(res.statusCode).toBe(403);
      expect(res.headers['www-authenticate']).toBe('PseudoAuth');
      expect(res.body).toBe('');
      const viaHeader = await kms.call(method, `/kms/v1/?${query}`, {
        headers: { 'x-hadoop-delegation-token': urlString },
      });
      expect(viaHeader.statusCode).toBe(403);
    }
    const cancel = await kms.call('PUT', `/kms/v1/?op=canceldelegationtoken&token=${urlString}`);
    expect(cancel.statusCode).toBe(200);
    expect((await kms.call('GET', `/kms/v1/keys/names?delegation=${urlString}`)).statusCode).toBe(403);
  });

  it('37: wrong method 400, missing token 400, cancelling an invalid token 404, each with the reason in the status line', async () => {
    const filterAnswer = (status: number, reason: string) => ({
      status,
      reason,
      body: '',
      contentType: undefined,
    });
    const wrong = await kms.call('PUT', '/kms/v1/?op=GETDELEGATIONTOKEN', { user: 'client' });
    expect(statusLineAnswer(wrong)).toEqual(
      filterAnswer(400, 'Wrong HTTP method [PUT] for operation [GETDELEGATIONTOKEN], it should be [GET]'),
    );
    expect(
      statusLineAnswer(await kms.call('GET', '/kms/v1/?op=RENEWDELEGATIONTOKEN', { user: 'client' })),
    ).toEqual(
      filterAnswer(400, 'Wrong HTTP method [GET] for operation [RENEWDELEGATIONTOKEN], it should be [PUT]'),
    );
    const missing = await kms.call('PUT', '/kms/v1/?op=RENEWDELEGATIONTOKEN', { user: 'client' });
    expect(statusLineAnswer(missing)).toEqual(
      filterAnswer(400, 'Operation [RENEWDELEGATIONTOKEN] requires the parameter [token]'),
    );
    expect(statusLineAnswer(await kms.call('PUT', '/kms/v1/?op=CANCELDELEGATIONTOKEN'))).toEqual(
      filterAnswer(400, 'Operation [CANCELDELEGATIONTOKEN] requires the parameter [token]'),
    );
    const urlString = await getToken('client');
    for (const bad of ['garbage', urlString.slice(0, 20), `${urlString}AAAA`]) {
      const res = await kms.call('PUT', `/kms/v1/?op=CANCELDELEGATIONTOKEN&token=${bad}`);
      expect(statusLineAnswer(res)).toEqual(filterAnswer(404, 'Invalid delegation token, cannot cancel'));
    }
    // A token that does not decode, for a renewal: 403 with the reason, like a refused one.
    const undecodable = await kms.call('PUT', '/kms/v1/?op=RENEWDELEGATIONTOKEN&token=AAAA', {
      user: 'client',
    });
    expect(statusLineAnswer(undecodable)).toMatchObject({ status: 403, body: '', contentType: undefined });
    expect(undecodable.statusMessage).toMatch(
      /^org\.apache\.hadoop\.security\.token\.SecretManager\$InvalidToken: /,
    );
    // A third party authenticated by its cookie may not cancel: 404 too, and the token stays valid.
    const setCookie = String(
      (await kms.call('GET', '/kms/v1/keys/names', { user: 'mallory' })).headers['set-cookie'],
    );
    const cookie = setCookie.slice(0, setCookie.indexOf(';'));
    const third = await kms.call('PUT', `/kms/v1/?op=CANCELDELEGATIONTOKEN&token=${urlString}`, {
      headers: { cookie },
    });
    expect(third.statusCode).toBe(404);
    expect((await kms.call('GET', `/kms/v1/keys/names?delegation=${urlString}`)).statusCode).toBe(200);
    // user.name is not consulted for a cancel (Hadoop's rule): without a cookie it acts as the owner.
    expect(
      (await kms.call('PUT', `/kms/v1/?op=CANCELDELEGATIONTOKEN&token=${urlString}`, { user: 'mallory' }))
        .statusCode,
    ).toBe(200);
    expect((await kms.call('GET', `/kms/v1/keys/names?delegation=${urlString}`)).statusCode).toBe(403);
  });

  it('40: proxy users may act as the users their rule names, from the hosts it names', async () => {
    const asFoo = await kms.call('POST', '/kms/v1/keys?doas=foo', { user: 'client', body: { name: 'kf' } });
    expect(asFoo.statusCode).toBe(201);
    await kms.waitForAudit(/OK\[op=CREATE_KEY, key=kf, user=foo\]/);
    const denied = await kms.call('GET', '/kms/v1/keys/names?doAs=foo1', { user: 'client' });
    expect(denied.statusCode).toBe(403);
    expect(remote(denied)).toEqual({
      message: 'User: client is not allowed to impersonate foo1',
      exception: 'AuthorizationException',
      javaClassName: 'org.apache.hadoop.security.authorize.AuthorizationException',
    });
    expect(remote(await kms.call('GET', '/kms/v1/keys/names?doas=x', { user: 'nohost' })).message).toBe(
      'Unauthorized connection for super-user: nohost from IP 127.0.0.1',
    );
    expect(
      (await kms.call('GET', '/kms/v1/?op=GETDELEGATIONTOKEN&doas=foo1', { user: 'client' })).statusCode,
    ).toBe(403);
    // A token fetched with doas belongs to the proxied user, with the real user recorded.
    const urlString = await getToken('client', undefined, '&doas=bar');
    expect(
      (await kms.call('POST', `/kms/v1/keys?delegation=${urlString}`, { body: { name: 'kb' } })).statusCode,
    ).toBe(201);
    await kms.waitForAudit(/OK\[op=CREATE_KEY, key=kb, user=bar\]/);
    // With a token, doas is ignored (as in Hadoop): the request acts as the token's owner.
    expect(
      (await kms.call('POST', `/kms/v1/keys?delegation=${urlString}&doas=foo1`, { body: { name: 'kc' } }))
        .statusCode,
    ).toBe(201);
    await kms.waitForAudit(/OK\[op=CREATE_KEY, key=kc, user=bar\]/);
  });

  it('refuses garbage, truncated, forged and foreign-kind tokens with 403 AuthenticationException', async () => {
    const urlString = await getToken('client');
    const token = Token.fromUrlString(urlString);
    const forgedPassword = Buffer.from(token.password.unwrap());
    forgedPassword[0] = (forgedPassword[0] as number) ^ 1;
    const forged = new Token({
      identifier: token.identifier,
      password: new Redacted(forgedPassword),
      kind: token.kind,
      service: '',
    });
    const foreign = new Token({
      identifier: token.identifier,
      password: token.password,
      kind: 'HDFS_DELEGATION_TOKEN',
      service: '',
    });
    const cases = [
      'garbage!',
      '',
      'AAAA',
      urlString.slice(0, urlString.length - 5),
      forged.toUrlString(),
      foreign.toUrlString(),
      'A'.repeat(9000),
    ];
    for (const bad of cases) {
      // An empty header is a (malformed) token too, as in Hadoop.
      const res = await kms.call('GET', '/kms/v1/keys/names', {
        headers: { 'x-hadoop-delegation-token': bad },
      });
      expect(res.statusCode).toBe(403);
      expect(remote(res).exception).toBe('AuthenticationException');
      expect(remote(res).message).toMatch(/InvalidToken/);
    }
    expect(
      remote(await kms.call('GET', `/kms/v1/keys/names?delegation=${forged.toUrlString()}`)).message,
    ).toMatch(/password doesn't match/);
  });

  it('never writes key material, EEKs or token passwords to the audit log', async () => {
    const created = keyVersionOf(
      (await kms.call('POST', '/kms/v1/keys', { user: 'client', body: { name: 'k' } })).json(),
    );
    const [eek] = eeksOf(
      (await kms.call('GET', '/kms/v1/key/k/_eek?eek_op=generate', { user: 'client' })).json(),
    );
    const body = { name: 'k', iv: eek.iv, material: eek.encryptedKeyVersion.material };
    const dek = keyVersionOf(
      (await kms.call('POST', '/kms/v1/keyversion/k@0/_eek?eek_op=decrypt', { user: 'client', body })).json(),
    );
    const urlString = await getToken('client', 'client');
    const password = Token.fromUrlString(urlString).password.unwrap();
    await kms.call('GET', `/kms/v1/keys/names?delegation=${urlString}`);
    await kms.call('GET', `/kms/v1/nope?delegation=${urlString}x`);
    await kms.call('PUT', `/kms/v1/?op=RENEWDELEGATIONTOKEN&token=${urlString}`, { user: 'client' });
    await kms.call('GET', `/kms/v1/keys/names?token=${urlString}`);
    await kms.server.close();
    const text = kms.auditLines().join('\n');
    expect(text).toContain('OK[op=DECRYPT_EEK, key=k, user=client');
    for (const secret of [
      created.material,
      eek.iv,
      eek.encryptedKeyVersion.material,
      dek.material,
      urlString,
      urlString.slice(10, 40),
      password.toString('base64url'),
      password.toString('base64'),
      password.toString('hex'),
    ]) {
      expect(text).not.toContain(secret);
    }
  });
});
