// Regression tests of requests that used to do their work and then fail (or succeed with
// something that could not be served afterwards). Each one leaves the keystore and the audit log
// as they were, answers a 4xx with a Hadoop RemoteException body, or, for a real fault, a 500
// that the server's log explains.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redacted } from '@fastpath/core';
import { remoteExceptionOf } from '@fastpath/test-support';
import { FileKeyStore, type KeyStore } from '../src/internal/keystore/file-key-store.js';
import type { KmsLogger } from '../src/internal/kms-logger.js';
import { startKmsServer } from '../src/kms-server.js';
import { http, type HttpResult } from './support/http.js';
import { namesOf, tokenUrlOf } from './support/kms-json.js';
import { startTestKms, type TestKms } from './support/test-kms.js';

let kms: TestKms;
let url: string;

beforeAll(async () => {
  kms = await startTestKms();
  url = await kms.server.listen();
});
afterAll(async () => {
  await kms[Symbol.asyncDispose]();
});

async function keyNames(): Promise<string[]> {
  return namesOf((await http(`${url}/kms/v1/keys/names?user.name=observer`)).json());
}

/** Writes a marker line and waits until it is in the file, so every earlier line is there too. */
async function flushAudit(): Promise<number> {
  const marker = `marker-${Math.random().toString(36).slice(2)}`;
  await http(`${url}/kms/v1/key/${marker}/_metadata?user.name=admin`);
  await kms.waitForAudit(new RegExp(`key=${marker}`));
  return kms.auditLines().length;
}

/** The audit lines written after `mark` (from {@link flushAudit}), markers and the observer left out. */
async function auditSince(mark: number): Promise<string[]> {
  await flushAudit();
  return kms
    .auditLines()
    .slice(mark)
    .filter((l) => !/key=marker-|user=observer/.test(l));
}

function expectRemote(res: HttpResult, status: number, message: RegExp): void {
  expect(res.status).toBe(status);
  const remote = remoteExceptionOf(res.body);
  expect(remote.exception).toBe('IllegalArgumentException');
  expect(remote.javaClassName).toBe('java.lang.IllegalArgumentException');
  expect(remote.message).toMatch(message);
}

describe('request input', () => {
  it('seen 1: refuses a key name longer than fastpath.kms.key.name.max.bytes with 400, creating nothing', async () => {
    const before = await flushAudit();
    for (const length of [1025, 70_000, 4 * 1024 * 1024]) {
      const res = await http(`${url}/kms/v1/keys?user.name=admin`, {
        method: 'POST',
        body: { name: 'a'.repeat(length) },
      });
      expectRemote(res, 400, /Parameter 'name' must be at most 1024 bytes of UTF-8/);
      expect(res.headers.location).toBeUndefined();
    }
    expect(await keyNames()).toEqual([]);
    expect(await auditSince(before)).toEqual([]);
    // The longest name allowed, in the widest characters, is created and can be addressed.
    const longest = '€'.repeat(341);
    const created = await http(`${url}/kms/v1/keys?user.name=admin`, {
      method: 'POST',
      body: { name: longest },
    });
    expect(created.status).toBe(201);
    expect(String(created.headers.location)).toBe(`${url}/kms/v1/key/${encodeURIComponent(longest)}`);
    expect(
      (await http(String(created.headers.location) + '?user.name=admin', { method: 'DELETE' })).status,
    ).toBe(200);
  });

  it('seen 2: refuses a key name with a lone surrogate or a control character with 400, before the store and the audit log', async () => {
    const before = await flushAudit();
    for (const name of ['a\ud800b', 'a\udc00', 'x\u0000y', 'bell\u0007', 'del\u007f', 'c1\u0085']) {
      const res = await http(`${url}/kms/v1/keys?user.name=admin`, {
        method: 'POST',
        rawBody: JSON.stringify({ name }),
      });
      expectRemote(res, 400, /Parameter 'name' contains (a lone UTF-16 surrogate|a control character)/);
    }
    // The same rule for names in a decrypt body and a metadata list.
    const decrypt = await http(`${url}/kms/v1/keyversion/k@0/_eek?eek_op=decrypt&user.name=admin`, {
      method: 'POST',
      rawBody: JSON.stringify({ name: 'a\ud800', iv: 'AAAAAAAAAAAAAAAAAAAAAA', material: 'AAAA' }),
    });
    expectRemote(decrypt, 400, /lone UTF-16 surrogate/);
    const list = await http(`${url}/kms/v1/keys/metadata?key=ok&key=a%01b&user.name=admin`);
    expectRemote(list, 400, /Parameter 'key' contains a control character/);
    expect(await keyNames()).toEqual([]);
    expect(await auditSince(before)).toEqual([]);
  });

  it('seen 3: users outside Latin-1 or with control characters get a Hadoop answer, never a 500; POST /keys as such a user is whole', async () => {
    for (const encoded of ['%D0%BA%D0%BB%D1%8E%D1%87', '%E7%94%A8%E6%88%B7', '%F0%9F%94%91', '%C0%AF']) {
      const res = await http(`${url}/kms/v1/keys/names?user.name=${encoded}`);
      expect(res.status).toBe(200);
      expect(res.headers['set-cookie']).toBeUndefined();
    }
    for (const encoded of ['%7F', '%01', 'a%0Ab']) {
      const res = await http(`${url}/kms/v1/keys/names?user.name=${encoded}`);
      expectRemote(res, 400, /Parameter 'user.name' contains a control character/);
    }
    const before = await flushAudit();
    const created = await http(`${url}/kms/v1/keys?user.name=%E7%94%A8%E6%88%B7`, {
      method: 'POST',
      body: { name: 'owned-by-用户' },
    });
    expect(created.status).toBe(201);
    expect(await auditSince(before)).toEqual([
      expect.stringMatching(/OK\[op=CREATE_KEY, key=owned-by-用户, user=用户\]/),
    ]);
    expect(
      (
        await http(`${url}/kms/v1/key/${encodeURIComponent('owned-by-用户')}?user.name=admin`, {
          method: 'DELETE',
        })
      ).status,
    ).toBe(200);
    // doas and renewer follow the same rules.
    expectRemote(await http(`${url}/kms/v1/keys/names?user.name=admin&doas=%01`), 400, /'doas'/);
    expectRemote(
      await http(`${url}/kms/v1/?op=GETDELEGATIONTOKEN&user.name=admin&renewer=%7F`),
      400,
      /'renewer'/,
    );
  });

  it('seen 4: every user given a cookie can present it on the next request', async () => {
    for (const encoded of ['alice', '%C3%A9', 'o%27brien', 'svc%2Fhost%40REALM', 'a%2Bb', '%C3%BF%C3%BE']) {
      const first = await http(`${url}/kms/v1/keys/names?user.name=${encoded}`);
      expect(first.status).toBe(200);
      const setCookie = first.headers['set-cookie'];
      if (setCookie === undefined) continue;
      const cookie = String(setCookie).slice(0, String(setCookie).indexOf(';'));
      const again = await http(`${url}/kms/v1/keys/names`, { headers: { cookie } });
      expect({ user: encoded, status: again.status }).toEqual({ user: encoded, status: 200 });
    }
    // ASCII names still get Hadoop's cookie.
    expect((await http(`${url}/kms/v1/keys/names?user.name=alice`)).headers['set-cookie']).toBeDefined();
  });

  it('seen 5: refuses a user name longer than fastpath.kms.user.name.max.bytes with 400 and no cookie', async () => {
    const before = await flushAudit();
    const res = await http(`${url}/kms/v1/keys?user.name=${'u'.repeat(9000)}`, {
      method: 'POST',
      body: { name: 'never' },
    });
    expectRemote(res, 400, /Parameter 'user.name' must be at most 256 bytes of UTF-8/);
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(await keyNames()).toEqual([]);
    expect(await auditSince(before)).toEqual([]);
    const longest = await http(`${url}/kms/v1/keys/names?user.name=${'u'.repeat(256)}`);
    expect(longest.status).toBe(200);
    expect(String(longest.headers['set-cookie']).length).toBeLessThan(1024);
  });

  it('seen 9: a renewal refused with 403 is not audited UNAUTHENTICATED; a 401 is', async () => {
    const token = tokenUrlOf(
      (await http(`${url}/kms/v1/?op=GETDELEGATIONTOKEN&user.name=alice&renewer=alice`)).json(),
    );
    const before = await flushAudit();
    const refused = await http(`${url}/kms/v1/?op=RENEWDELEGATIONTOKEN&token=${token}&user.name=bob`, {
      method: 'PUT',
    });
    expect(refused.status).toBe(403);
    expect(refused.statusMessage).toMatch(/non-matching renewer/);
    const badToken = await http(`${url}/kms/v1/keys/names?delegation=${token.slice(0, -4)}`);
    expect(badToken.status).toBe(403);
    const anonymous = await http(`${url}/kms/v1/keys/names`);
    expect(anonymous.status).toBe(401);
    const lines = await auditSince(before);
    expect(lines).toEqual([expect.stringMatching(/UNAUTHENTICATED .*ErrorMsg:'Authentication required'/)]);
  });
});

describe('server faults', () => {
  it('seen 6: a fault answers 500 with a RemoteException naming the request id, and the server log has it at error level', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kms-fault-'));
    const errors: string[] = [];
    const logger: KmsLogger = {
      info: () => undefined,
      warn: () => undefined,
      error: (message, error) => errors.push(`${message}: ${(error as Error | undefined)?.message}`),
    };
    // A real keystore whose disk fails on the next write: the fault is the server's, not the input's.
    const real = await FileKeyStore.open({
      file: join(dir, 'kms.keystore'),
      password: new Redacted(Buffer.from('pw')),
      scrypt: { logN: 10, r: 8, p: 1 },
    });
    const failing: KeyStore = {
      get state() {
        return real.state;
      },
      apply: () => Promise.reject(new Error('EIO: i/o error, write')),
      close: () => real.close(),
    };
    const server = await startKmsServer(
      { host: '127.0.0.1', port: 0, dataDir: join(dir, 'data'), logger },
      { keyStore: failing },
    );
    try {
      const base = await server.listen();
      const res = await http(`${base}/kms/v1/keys?user.name=alice`, { method: 'POST', body: { name: 'k' } });
      expect(res.status).toBe(500);
      const remote = remoteExceptionOf(res.body);
      expect(remote.exception).toBe('RuntimeException');
      const id = /\(request (req-[0-9a-z]+)\)$/.exec(remote.message)?.[1];
      expect(id).toBeDefined();
      expect(errors).toEqual([`request ${id} POST /kms/v1/keys answered 500: EIO: i/o error, write`]);
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
