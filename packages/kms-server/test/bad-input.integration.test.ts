import { connect } from 'node:net';
import { STATUS_CODES } from 'node:http';
import { expect } from '@jest/globals';
import fc from 'fast-check';
import { remoteExceptionOf } from '@fastpath/test-support';
import { http, type HttpResult } from './support/http.js';
import { jsonObjectOf, tokenUrlOf } from './support/kms-json.js';
import { startTestKms, type TestKms } from './support/test-kms.js';

let kms: TestKms;
let url: string;
let token: string;

beforeAll(async () => {
  kms = await startTestKms({ site: { 'fastpath.kms.http.max.body.bytes': String(64 * 1024) } });
  url = await kms.server.listen();
  await http(`${url}/kms/v1/keys?user.name=alice`, { method: 'POST', body: { name: 'k1' } });
  await http(`${url}/kms/v1/key/k1?user.name=alice`, { method: 'POST', body: {} });
  token = tokenUrlOf(
    (await http(`${url}/kms/v1/?op=GETDELEGATIONTOKEN&user.name=alice&renewer=alice`)).json(),
  );
});
afterAll(async () => {
  await kms[Symbol.asyncDispose]();
});

/**
 * Every refusal is a 4xx with a RemoteException body, or the pseudo handler's bare 403, or (a
 * failed token operation, as Hadoop's authentication filter answers it) an empty body with the
 * reason in the status line.
 */
function expectHadoopRefusal(res: HttpResult, method = 'GET'): void {
  expect(res.status).toBeGreaterThanOrEqual(400);
  expect(res.status).toBeLessThan(500);
  if (method === 'HEAD') return;
  if (res.status === 403 && res.body === '' && res.statusMessage === STATUS_CODES[403]) {
    expect(res.headers['www-authenticate']).toBe('PseudoAuth');
    return;
  }
  if (res.body === '') {
    expect(res.headers['content-type']).toBeUndefined();
    expect(res.statusMessage).not.toBe(STATUS_CODES[res.status]);
    expect(res.statusMessage.length).toBeGreaterThan(0);
    return;
  }
  const remote = remoteExceptionOf(res.body);
  expect(typeof remote.message).toBe('string');
  expect(typeof remote.exception).toBe('string');
  expect(remote.javaClassName).toMatch(/^[a-z]+(\.[A-Za-z$]+)+$/);
}

/** Sends raw bytes on a new connection and returns what comes back before the server closes it. */
function raw(bytes: string | Buffer): Promise<string> {
  const { port } = kms.server.address as { port: number };
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (d) => (answer += d.toString()));
    socket.on('end', () => resolve(answer));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
    socket.setTimeout(20_000, () => socket.destroy(new Error('no answer')));
    socket.end(bytes);
  });
}

function statusAndBody(answer: string): { status: number; body: unknown } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);
  const body = answer.slice(answer.indexOf('\r\n\r\n') + 4);
  return { status, body: JSON.parse(body) };
}

describe('bad input', () => {
  it('refuses an oversized body with 413 and a Hadoop body', async () => {
    const res = await http(`${url}/kms/v1/keys?user.name=alice`, {
      method: 'POST',
      body: { name: 'x', description: 'd'.repeat(70_000) },
    });
    expect(res.status).toBe(413);
    expectHadoopRefusal(res);
  });

  it('refuses oversized headers and huge query strings with 431 and a Hadoop body', async () => {
    const big = await raw(
      `GET /kms/v1/keys/names?user.name=a HTTP/1.1\r\nHost: x\r\nX-Filler: ${'f'.repeat(20_000)}\r\n\r\n`,
    );
    expect(statusAndBody(big)).toEqual({
      status: 431,
      body: { RemoteException: expect.objectContaining({ exception: 'IOException' }) },
    });
    const query = await raw(
      `GET /kms/v1/keys/names?user.name=a&x=${'q'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    );
    expect(statusAndBody(query).status).toBe(431);
  });

  it('answers garbage on the wire with 400 and a Hadoop body, and a truncated body does not hurt', async () => {
    const garbage = await raw(
      Buffer.from([0x16, 0x03, 0x01, 0x00, 0xa5, 0x01, 0x00, 0x00, 0xa1, 0x03, 0x03, 0x0d, 0x0a, 0x0d, 0x0a]),
    );
    expect(statusAndBody(garbage).status).toBe(400);
    const bad = await raw('GET /kms/v1/keys/names HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n');
    expect(statusAndBody(bad).status).toBe(400);
    await raw(
      'POST /kms/v1/keys?user.name=a HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":',
    );
    expect((await http(`${url}/health`)).status).toBe(200);
  });

  it('survives a property-based fuzz over request shapes: only 2xx/4xx, always a Hadoop error body, never a crash or hang', async () => {
    const tokenish = fc.oneof(
      fc.constant(token),
      fc.constant(token.slice(0, 30)),
      fc.constant(`${token}AA`),
      fc.constant(token.replace(/[A-Z]/, 'z')),
      fc.string({ maxLength: 60 }),
      fc.base64String({ maxLength: 200 }),
    );
    const segment = fc.oneof(
      fc.constantFrom(
        'k1',
        'k1@0',
        'k1@1',
        'k1@99',
        'k1@01',
        '@',
        '%zz',
        '%',
        '%2F',
        '..',
        '',
        '_metadata',
        '_eek',
        'a%00b',
        '%E2%82',
        '%ED%A0%80',
      ),
      fc.string({ maxLength: 30 }).map((s) => encodeURIComponent(s)),
    );
    const method = fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS');
    const path = fc.oneof(
      fc.constantFrom(
        '/kms/v1/keys',
        '/kms/v1/keys/names',
        '/kms/v1/keys/metadata',
        '/kms/v1/',
        '/kms',
        '/kms/v1',
        '/health',
        '/metrics',
        '/build-info',
        '/',
        '/kms/v2/keys',
      ),
      fc
        .tuple(
          fc.constantFrom('/kms/v1/key/', '/kms/v1/keyversion/', '/kms/v1/keys/'),
          segment,
          fc.constantFrom(
            '',
            '/_metadata',
            '/_currentversion',
            '/_versions',
            '/_eek',
            '/_invalidatecache',
            '/_reencryptbatch',
            '/_eek/x',
            '/',
          ),
        )
        .map(([a, b, c]) => `${a}${b}${c}`),
    );
    // Mostly real endpoints with their own methods, so requests get past routing and
    // authentication into the operations; the rest is anything.
    const keyPath = (suffix: string) => segment.map((seg) => `/kms/v1/key/${seg}${suffix}`);
    const endpoint = fc.oneof(
      { arbitrary: fc.record({ m: fc.constant('POST'), p: fc.constant('/kms/v1/keys') }), weight: 3 },
      {
        arbitrary: fc.record({
          m: fc.constant('GET'),
          p: fc.constantFrom('/kms/v1/keys/names', '/kms/v1/keys/metadata'),
        }),
        weight: 1,
      },
      { arbitrary: fc.record({ m: fc.constantFrom('GET', 'DELETE', 'POST'), p: keyPath('') }), weight: 3 },
      {
        arbitrary: fc.record({
          m: fc.constant('GET'),
          p: fc.oneof(
            keyPath('/_metadata'),
            keyPath('/_currentversion'),
            keyPath('/_versions'),
            keyPath('/_eek'),
          ),
        }),
        weight: 4,
      },
      {
        arbitrary: fc.record({
          m: fc.constant('POST'),
          p: fc.oneof(keyPath('/_invalidatecache'), keyPath('/_reencryptbatch')),
        }),
        weight: 3,
      },
      {
        arbitrary: fc.record({ m: fc.constant('GET'), p: segment.map((v) => `/kms/v1/keyversion/${v}`) }),
        weight: 2,
      },
      {
        arbitrary: fc.record({
          m: fc.constant('POST'),
          p: segment.map((v) => `/kms/v1/keyversion/${v}/_eek`),
        }),
        weight: 4,
      },
      { arbitrary: fc.record({ m: fc.constantFrom('GET', 'PUT'), p: fc.constant('/kms/v1/') }), weight: 2 },
      { arbitrary: fc.record({ m: method, p: path }), weight: 3 },
    );
    const auth = fc.oneof(
      { arbitrary: fc.constant([['user.name', 'alice']] as Array<[string, string]>), weight: 7 },
      { arbitrary: tokenish.map((t) => [['delegation', t]] as Array<[string, string]>), weight: 2 },
      { arbitrary: fc.constant([] as Array<[string, string]>), weight: 1 },
    );
    const queryName = fc.constantFrom(
      'user.name',
      'eek_op',
      'num_keys',
      'delegation',
      'op',
      'token',
      'renewer',
      'doas',
      'doAs',
      'key',
      'service',
      'x',
    );
    const queryValue = fc.oneof(
      fc.constantFrom(
        'alice',
        'generate',
        'decrypt',
        'reencrypt',
        'GETDELEGATIONTOKEN',
        'renewdelegationtoken',
        'CANCELDELEGATIONTOKEN',
        '-1',
        '0',
        '3',
        '1e3',
        '99999999999',
        'k1',
      ),
      tokenish,
      fc.string({ maxLength: 40 }),
    );
    const query = fc
      .tuple(auth, fc.array(fc.tuple(queryName, queryValue), { maxLength: 5 }))
      .map(([a, rest]) => [...a, ...rest]);
    const eekLike = fc.record(
      {
        versionName: fc.oneof(
          fc.constantFrom('k1@0', 'k1@1', 'x@0'),
          fc.string({ maxLength: 10 }),
          fc.integer(),
        ),
        iv: fc.oneof(
          fc.constant('AAAAAAAAAAAAAAAAAAAAAA'),
          fc.base64String({ maxLength: 40 }),
          fc.string({ maxLength: 20 }),
          fc.integer(),
        ),
        encryptedKeyVersion: fc.oneof(
          fc.record({
            versionName: fc.constantFrom('EEK', 'EK', ''),
            material: fc.oneof(fc.base64String({ maxLength: 60 }), fc.string({ maxLength: 10 })),
          }),
          fc.anything({ maxDepth: 2 }),
        ),
      },
      { requiredKeys: [] },
    );
    const body = fc.oneof(
      fc.constant(undefined),
      fc.json({ maxDepth: 3 }).map((j) => ({ raw: j })),
      fc.string({ maxLength: 80 }).map((s) => ({ raw: s })),
      fc
        .record(
          {
            name: fc.oneof(
              fc.constantFrom('k1', 'k2', ''),
              fc.string({ maxLength: 20 }),
              fc.integer(),
              fc.constant(null),
            ),
            cipher: fc.oneof(fc.constantFrom('AES/CTR/NoPadding', 'AES', 'DES/CBC', ''), fc.integer()),
            length: fc.oneof(fc.constantFrom(128, 192, 256, 0, -1, 100, 1.5), fc.string({ maxLength: 4 })),
            material: fc.oneof(
              fc.base64String({ maxLength: 48 }),
              fc.string({ maxLength: 10 }),
              fc.integer(),
            ),
            iv: fc.oneof(fc.base64String({ maxLength: 30 }), fc.string({ maxLength: 10 })),
            description: fc.oneof(fc.string({ maxLength: 20 }), fc.integer()),
            attributes: fc.oneof(
              fc.dictionary(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 })),
              fc.anything({ maxDepth: 1 }),
            ),
          },
          { requiredKeys: [] },
        )
        .map((o) => ({ raw: JSON.stringify(o) })),
      fc.array(eekLike, { maxLength: 4 }).map((a) => ({ raw: JSON.stringify(a) })),
    );
    const headers = fc.record(
      {
        'content-type': fc.constantFrom(
          'application/json',
          'text/plain',
          'application/x-www-form-urlencoded',
          'application/json; charset=utf-8',
        ),
        'x-hadoop-delegation-token': tokenish,
        cookie: fc.oneof(
          fc.constant('hadoop.auth="u=alice&p=alice&t=simple&e=9999999999999&s=AAAA"'),
          fc.string({ maxLength: 40 }).map((s) => `hadoop.auth=${encodeURIComponent(s)}`),
        ),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(endpoint, query, headers, body, async ({ m, p }, q, h, b) => {
        const search = q.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
        const target = `${url}${p}${search === '' ? '' : `?${search}`}`;
        const payload = m === 'GET' || m === 'HEAD' || b === undefined ? undefined : b.raw;
        const res = await rawRequest(target, m, h, payload);
        expect(res.status).toBeGreaterThanOrEqual(200);
        expect(res.status).toBeLessThan(500);
        if (res.status >= 400) expectHadoopRefusal(res, m);
      }),
      { numRuns: 1000 },
    );
    expect(jsonObjectOf((await http(`${url}/health`)).json())['status']).toBe('ok');
    expect((await http(`${url}/kms/v1/keys/names?user.name=alice`)).status).toBe(200);
  }, 180_000);
});

/** A request whose body is sent as given (not JSON-encoded again). */
function rawRequest(
  target: string,
  method: string,
  headers: Record<string, string>,
  payload: string | undefined,
): Promise<HttpResult> {
  return http(target, {
    method,
    headers:
      payload === undefined
        ? headers
        : {
            'content-type': 'application/json',
            ...headers,
            'content-length': String(Buffer.byteLength(payload)),
          },
    ...(payload === undefined ? {} : { rawBody: payload }),
  });
}
