// The client against a small server that speaks the KMS wire protocol (test/support): what goes
// on the wire for each call, how answers are read, and how failures become typed errors.
import { inspect } from 'node:util';
import { Redacted } from '@fastpath/core';
import { KmsClient, KmsDelegationToken } from '../src/index.js';
import type { EncryptedKeyVersion, KmsClientOptions } from '../src/index.js';
import { ctr, startFakeKms } from './support/fake-kms-server.js';
import type { FakeKms } from './support/fake-kms-server.js';
import { selfSignedCertificate } from './support/tls-certificate.js';
import { failure } from './support/failure.js';

describe('KmsClient against a KMS wire-protocol server', () => {
  let kms: FakeKms;
  let client: KmsClient;
  const open = (options: Partial<KmsClientOptions> = {}): KmsClient =>
    new KmsClient({ url: kms.url, user: 'alice', ...options });

  beforeEach(async () => {
    kms = await startFakeKms({
      deniedUsers: ['mallory'],
      noMaterialUsers: ['creator'],
      proxyUsers: { alice: ['bob'] },
    });
    client = open();
  });
  afterEach(async () => {
    await client.close();
    await kms.close();
  });

  describe('requests on the wire', () => {
    it('createKey posts the JSON body to /v1/keys and returns the version and Location', async () => {
      const material = Buffer.alloc(16, 0xfe);
      const created = await client.createKey('k1', {
        cipher: 'AES/CTR/NoPadding',
        length: 128,
        description: 'l1',
        attributes: { team: 'storage' },
        material: new Redacted(material),
      });
      const req = kms.lastRequest;
      expect(req.method).toBe('POST');
      expect(req.path).toBe('/kms/v1/keys');
      expect([...req.query]).toEqual([['user.name', 'alice']]);
      expect(req.headers['content-type']).toBe('application/json');
      expect(req.headers['accept']).toBe('application/json');
      expect(JSON.parse(req.body)).toEqual({
        name: 'k1',
        cipher: 'AES/CTR/NoPadding',
        length: 128,
        description: 'l1',
        attributes: { team: 'storage' },
        material: material.toString('base64url'),
      });
      expect(created.name).toBe('k1');
      expect(created.versionName).toBe('k1@0');
      expect(created.material?.unwrap()).toEqual(material);
      expect(created.location).toBe(`${kms.url}/v1/key/k1`);
      // Material never shows when the result is printed.
      expect(inspect(created)).not.toContain(material.toString('hex'));
      expect(JSON.stringify(created)).not.toContain(material.toString('base64url'));
    });

    it('createKey sends only the name when nothing else is given; the server picks the defaults', async () => {
      const created = await client.createKey('plain');
      expect(JSON.parse(kms.lastRequest.body)).toEqual({ name: 'plain' });
      expect(created.material?.unwrap()).toHaveLength(16);
      const meta = await client.getMetadata('plain');
      expect(meta).toMatchObject({
        cipher: 'AES/CTR/NoPadding',
        length: 128,
        versions: 1,
        description: null,
      });
    });

    it('encodes key names with special characters in the path', async () => {
      const name = 'key %^[\n{]}|"<>\\/';
      await client.createKey(name);
      await client.rollNewVersion(name);
      expect(kms.lastRequest.path).toBe(`/kms/v1/key/${encodeURIComponent(name)}`);
      expect((await client.getMetadata(name))?.versions).toBe(2);
      expect(kms.lastRequest.path).toBe(`/kms/v1/key/${encodeURIComponent(name)}/_metadata`);
      expect(await client.getKeyNames()).toEqual([name]);
      expect((await client.getCurrentVersion(name))?.versionName).toBe(`${name}@1`);
      expect((await client.getKeyVersion(`${name}@0`))?.name).toBe(name);
      expect(kms.lastRequest.path).toBe(`/kms/v1/keyversion/${encodeURIComponent(`${name}@0`)}`);
      await client.deleteKey(name);
      expect(kms.lastRequest.method).toBe('DELETE');
      expect(await client.getKeyNames()).toEqual([]);
    });

    it('rolls, lists versions, reads metadata of many keys and invalidates the cache', async () => {
      const v0 = await client.createKey('k1', { description: 'first' });
      const v1 = await client.rollNewVersion('k1');
      expect(kms.lastRequest).toMatchObject({ method: 'POST', path: '/kms/v1/key/k1', body: '{}' });
      expect(v1.versionName).toBe('k1@1');
      expect(v1.material?.unwrap().equals(v0.material?.unwrap() as Buffer)).toBe(false);
      const own = Buffer.alloc(16, 3);
      const v2 = await client.rollNewVersion('k1', { material: own });
      expect(JSON.parse(kms.lastRequest.body)).toEqual({ material: own.toString('base64url') });
      expect(v2.material?.unwrap()).toEqual(own);
      const versions = await client.getKeyVersions('k1');
      expect(kms.lastRequest.path).toBe('/kms/v1/key/k1/_versions');
      expect(versions.map((v) => v.versionName)).toEqual(['k1@0', 'k1@1', 'k1@2']);
      expect(versions[2]?.material?.unwrap()).toEqual(own);
      const current = await client.getCurrentVersion('k1');
      expect(kms.lastRequest.path).toBe('/kms/v1/key/k1/_currentversion');
      expect(current?.versionName).toBe('k1@2');
      await client.createKey('k2');
      const metas = await client.getKeysMetadata(['k2', 'missing', 'k1']);
      expect(kms.lastRequest.path).toBe('/kms/v1/keys/metadata');
      expect(kms.lastRequest.query.getAll('key')).toEqual(['k2', 'missing', 'k1']);
      expect(metas.map((m) => m?.name)).toEqual(['k2', undefined, 'k1']);
      expect(metas[2]).toMatchObject({ description: 'first', versions: 3, attributes: {} });
      await client.invalidateCache('k1');
      expect(kms.lastRequest).toMatchObject({
        method: 'POST',
        path: '/kms/v1/key/k1/_invalidatecache',
        body: '',
      });
      expect(kms.lastRequest.headers['content-type']).toBeUndefined();
    });

    it('returns undefined for a missing key or version ({} from the server)', async () => {
      expect(await client.getMetadata('nope')).toBeUndefined();
      expect(await client.getCurrentVersion('nope')).toBeUndefined();
      expect(await client.getKeyVersion('nope@0')).toBeUndefined();
      expect(await client.getKeyVersions('nope')).toEqual([]);
    });

    it('generates, decrypts and re-encrypts encrypted keys with the AES-CTR of the KMS', async () => {
      const created = await client.createKey('k1');
      const material = created.material?.unwrap() as Buffer;
      const eeks = await client.generateEncryptedKeys('k1', 3);
      expect(kms.lastRequest.path).toBe('/kms/v1/key/k1/_eek');
      expect(Object.fromEntries(kms.lastRequest.query)).toMatchObject({ eek_op: 'generate', num_keys: '3' });
      expect(eeks).toHaveLength(3);
      const eek = eeks[0] as EncryptedKeyVersion;
      expect(eek.encryptionKeyName).toBe('k1');
      expect(eek.encryptionKeyVersionName).toBe('k1@0');
      expect(eek.iv).toHaveLength(16);
      expect(eek.encryptedKeyVersion.versionName).toBe('EEK');
      const dek = await client.decryptEncryptedKey(eek);
      expect(kms.lastRequest.path).toBe('/kms/v1/keyversion/k1%400/_eek');
      expect(kms.lastRequest.query.get('eek_op')).toBe('decrypt');
      expect(JSON.parse(kms.lastRequest.body)).toEqual({
        name: 'k1',
        iv: eek.iv.toString('base64url'),
        material: eek.encryptedKeyVersion.material?.unwrap().toString('base64url'),
      });
      expect(dek.versionName).toBe('EK');
      // The server's answer is what AES-CTR under the flipped IV gives: checked independently.
      expect(dek.material?.unwrap()).toEqual(
        ctr(material, eek.iv, eek.encryptedKeyVersion.material?.unwrap() as Buffer),
      );

      await client.rollNewVersion('k1');
      const moved = await client.reencryptEncryptedKey(eek);
      expect(kms.lastRequest.query.get('eek_op')).toBe('reencrypt');
      expect(moved.encryptionKeyVersionName).toBe('k1@1');
      expect(moved.iv).toEqual(eek.iv);
      expect((await client.decryptEncryptedKey(moved)).material?.unwrap()).toEqual(dek.material?.unwrap());

      const batch = await client.reencryptEncryptedKeys(eeks);
      expect(kms.lastRequest.path).toBe('/kms/v1/key/k1/_reencryptbatch');
      const sent = JSON.parse(kms.lastRequest.body) as Array<Record<string, unknown>>;
      expect(sent).toHaveLength(3);
      expect(sent[0]).toEqual({
        versionName: 'k1@0',
        iv: eek.iv.toString('base64url'),
        encryptedKeyVersion: {
          name: 'k1',
          versionName: 'EEK',
          material: eek.encryptedKeyVersion.material?.unwrap().toString('base64url'),
        },
      });
      expect(batch.map((e) => e.encryptionKeyVersionName)).toEqual(['k1@1', 'k1@1', 'k1@1']);
      expect((await client.generateEncryptedKey('k1')).encryptionKeyVersionName).toBe('k1@1');
    });

    it('withholds material from users without the GET ACL', async () => {
      const creator = client.withAuth({ user: 'creator' });
      const created = await creator.createKey('k1');
      expect(created.material).toBeNull();
      expect((await creator.rollNewVersion('k1')).material).toBeNull();
    });
  });

  describe('authentication', () => {
    it('sends user.name, or the token header instead of it on key calls, and doas', async () => {
      await client.getKeyNames();
      expect(kms.lastRequest.query.get('user.name')).toBe('alice');
      expect(kms.lastRequest.headers['x-hadoop-delegation-token']).toBeUndefined();

      const token = await client.getDelegationToken();
      const asToken = client.withAuth({ delegationToken: token });
      await asToken.createKey('by-token');
      expect(kms.lastRequest.query.get('user.name')).toBeNull();
      expect(kms.lastRequest.headers['x-hadoop-delegation-token']).toBe(token.toUrlString());

      const both = open({ user: 'someone', delegationToken: token.toUrlString() });
      await both.getKeyNames();
      expect(kms.lastRequest.query.get('user.name')).toBeNull();
      expect(kms.lastRequest.headers['x-hadoop-delegation-token']).toBe(token.toUrlString());
      await both.close();

      await client.withAuth({ user: 'alice', doAs: 'bob' }).getKeyNames();
      expect(kms.lastRequest.query.get('doas')).toBe('bob');
      const denied = await failure(client.withAuth({ user: 'alice', doAs: 'eve' }).getKeyNames());
      expect(denied).toMatchObject({
        code: 'ERR_KMS_ACCESS_DENIED',
        status: 403,
        remoteException: 'AuthorizationException',
      });
    });

    it('an anonymous call gets ERR_KMS_AUTHENTICATION_REQUIRED (401, not JSON)', async () => {
      const anonymous = client.withAuth({});
      const err = await failure(anonymous.getKeyNames());
      expect(err).toMatchObject({ code: 'ERR_KMS_AUTHENTICATION_REQUIRED', status: 401, retriable: false });
      expect(err.remoteException).toBeUndefined();
      expect(err.message).not.toContain('<html>');
    });

    it('an ACL denial keeps the server exception and message', async () => {
      const err = await failure(client.withAuth({ user: 'mallory' }).getKeyNames());
      expect(err).toMatchObject({
        code: 'ERR_KMS_ACCESS_DENIED',
        status: 403,
        remoteException: 'AuthorizationException',
        remoteClassName: 'org.apache.hadoop.security.authorize.AuthorizationException',
        remoteMessage: "User:mallory not allowed to do 'GET_KEYS'",
        operation: 'getKeyNames',
      });
    });
  });

  describe('delegation tokens', () => {
    it('gets a kms-dt token with renewer and service, renews it and cancels it', async () => {
      const token = await client.getDelegationToken({ renewer: 'yarn', service: 'kms-svc' });
      const req = kms.lastRequest;
      expect(req.method).toBe('GET');
      expect(req.path).toBe('/kms/v1/');
      expect(Object.fromEntries(req.query)).toEqual({
        op: 'GETDELEGATIONTOKEN',
        renewer: 'yarn',
        service: 'kms-svc',
        'user.name': 'alice',
      });
      expect(token).toBeInstanceOf(KmsDelegationToken);
      expect(token).toMatchObject({
        kind: 'kms-dt',
        owner: 'alice',
        renewer: 'yarn',
        service: 'kms-svc',
        realUser: '',
      });

      const refused = await failure(client.renewDelegationToken(token));
      expect(refused).toMatchObject({ code: 'ERR_KMS_AUTHENTICATION_FAILED', status: 403 });
      expect(refused.remoteMessage).toContain('with non-matching renewer');

      const yarn = client.withAuth({ user: 'yarn' });
      const expiry = await yarn.renewDelegationToken(token.toUrlString());
      expect(kms.lastRequest.method).toBe('PUT');
      expect(Object.fromEntries(kms.lastRequest.query)).toEqual({
        op: 'RENEWDELEGATIONTOKEN',
        token: token.toUrlString(),
        'user.name': 'yarn',
      });
      expect(expiry).toBeGreaterThan(Date.now());
      expect(expiry).toBeLessThanOrEqual(token.maxDate);

      await client.withAuth({}).cancelDelegationToken(new Redacted(token.toUrlString()));
      expect(kms.lastRequest.method).toBe('PUT');
      expect(Object.fromEntries(kms.lastRequest.query)).toEqual({
        op: 'CANCELDELEGATIONTOKEN',
        token: token.toUrlString(),
      });
      const again = await failure(client.cancelDelegationToken(token));
      expect(again).toMatchObject({ code: 'ERR_KMS_TOKEN_CANCEL_FAILED', status: 404 });
      expect(again.remoteMessage).toBe('Invalid delegation token, cannot cancel');
      const renewCancelled = await failure(yarn.renewDelegationToken(token));
      expect(renewCancelled.code).toBe('ERR_KMS_AUTHENTICATION_FAILED');
      const useCancelled = await failure(client.withAuth({ delegationToken: token }).getKeyNames());
      expect(useCancelled).toMatchObject({ code: 'ERR_KMS_AUTHENTICATION_FAILED', status: 403 });
    });

    it('a token-only caller cannot get or renew tokens: ERR_KMS_AUTHENTICATION_REQUIRED (bare 403)', async () => {
      const token = await client.getDelegationToken();
      const asToken = client.withAuth({ delegationToken: token });
      const get = await failure(asToken.getDelegationToken());
      expect(get).toMatchObject({ code: 'ERR_KMS_AUTHENTICATION_REQUIRED', status: 403 });
      expect(kms.lastRequest.headers['x-hadoop-delegation-token']).toBe(token.toUrlString());
      const renew = await failure(asToken.renewDelegationToken(token));
      expect(renew).toMatchObject({ code: 'ERR_KMS_AUTHENTICATION_REQUIRED', status: 403 });
      // ...while it authenticates key calls as its owner.
      await asToken.createKey('owned');
      expect(kms.keys.has('owned')).toBe(true);
    });

    it('an expired token fails with ERR_KMS_AUTHENTICATION_FAILED; a new one works', async () => {
      const token = await client.getDelegationToken();
      const asToken = client.withAuth({ delegationToken: token });
      await asToken.getKeyNames();
      kms.clockOffsetMs = 2 * 86_400_000;
      expect((await failure(asToken.getKeyNames())).code).toBe('ERR_KMS_AUTHENTICATION_FAILED');
      const fresh = await client.getDelegationToken();
      expect(await client.withAuth({ delegationToken: fresh }).getKeyNames()).toEqual([]);
    });

    it('a proxy user gets a token for the user it acts as, with itself as the real user', async () => {
      const token = await client.withAuth({ user: 'alice', doAs: 'bob' }).getDelegationToken();
      expect(kms.lastRequest.query.get('doas')).toBe('bob');
      expect(token).toMatchObject({ owner: 'bob', realUser: 'alice', renewer: 'bob' });
    });

    it('a token operation with a wrong answer shape is ERR_KMS_BAD_RESPONSE', async () => {
      kms.interceptNext((_req, res) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"Token":{}}'),
      );
      expect((await failure(client.getDelegationToken())).code).toBe('ERR_KMS_BAD_RESPONSE');
      kms.interceptNext((_req, res) => res.end('{"Token":{"urlString":"bm90LWEtdG9rZW4"}}'));
      const err = await failure(client.getDelegationToken());
      expect(err.code).toBe('ERR_KMS_BAD_RESPONSE');
      expect(err.message).toContain('not a delegation token URL string');
    });
  });

  describe('errors from the server', () => {
    it('maps Hadoop statuses of key errors to stable codes', async () => {
      await client.createKey('k1');
      const exists = await failure(client.createKey('k1'));
      expect(exists).toMatchObject({
        code: 'ERR_KMS_KEY_EXISTS',
        status: 500,
        remoteException: 'IOException',
        key: 'k1',
      });
      const missing = await failure(client.rollNewVersion('nope'));
      expect(missing).toMatchObject({
        code: 'ERR_KMS_KEY_NOT_FOUND',
        status: 500,
        operation: 'rollNewVersion',
      });
      expect((await failure(client.deleteKey('nope'))).code).toBe('ERR_KMS_KEY_NOT_FOUND');
      const [eek] = await client.generateEncryptedKeys('k1');
      await client.deleteKey('k1');
      const gone = await failure(client.decryptEncryptedKey(eek as EncryptedKeyVersion));
      expect(gone).toMatchObject({
        code: 'ERR_KMS_KEY_NOT_FOUND',
        status: 400,
        remoteMessage: "'k1@0' not found",
      });
    });

    it('maps a wrong endpoint to ERR_KMS_NOT_FOUND', async () => {
      const wrong = new KmsClient({ url: `${kms.url.replace(/\/kms$/, '')}/elsewhere`, user: 'alice' });
      const err = await failure(wrong.getKeyNames());
      expect(err).toMatchObject({ code: 'ERR_KMS_NOT_FOUND', status: 404 });
      await wrong.close();
    });

    it.each([
      [503, 'ERR_KMS_UNAVAILABLE', true],
      [502, 'ERR_KMS_UNAVAILABLE', true],
      [500, 'ERR_KMS_SERVER', false],
      [400, 'ERR_KMS_BAD_REQUEST', false],
    ])('a bare %d is %s', async (status, code, retriable) => {
      kms.interceptNext((_req, res) => res.writeHead(status).end('oops'));
      expect(await failure(client.getKeyNames())).toMatchObject({ code, status, retriable });
    });

    it('a 2xx answer that is not the expected JSON is ERR_KMS_BAD_RESPONSE', async () => {
      kms.interceptNext((_req, res) => res.end('<html>proxy login</html>'));
      const notJson = await failure(client.getKeyNames());
      expect(notJson).toMatchObject({ code: 'ERR_KMS_BAD_RESPONSE', status: 200 });
      expect(notJson.message).toContain('not JSON');
      kms.interceptNext((_req, res) => res.end('{"names":[]}'));
      expect((await failure(client.getKeyNames())).message).toContain('answer is not a JSON array');
      kms.interceptNext((_req, res) => res.end('[{"versionName":"k@0","iv":"AA","encryptedKeyVersion":{}}]'));
      expect((await failure(client.generateEncryptedKeys('k'))).code).toBe('ERR_KMS_BAD_RESPONSE');
    });

    it('refuses an answer larger than maxResponseBytes', async () => {
      const small = open({ maxResponseBytes: 1024 });
      kms.interceptNext((_req, res) =>
        res.end(JSON.stringify(Array.from({ length: 500 }, (_, i) => `key-${i}`))),
      );
      const err = await failure(small.getKeyNames());
      expect(err.code).toBe('ERR_KMS_BAD_RESPONSE');
      expect(err.message).toContain('maxResponseBytes (1024)');
      // The pool recovers: the next call works.
      expect(await small.getKeyNames()).toEqual([]);
      await small.close();
    });
  });

  describe('connections, deadlines and retries', () => {
    it('reuses one kept-alive connection for successive calls', async () => {
      const pooled = open({ connections: 1 });
      for (let i = 0; i < 5; i++) await pooled.getKeyNames();
      const ports = new Set(kms.requests.slice(-5).map((r) => r.remotePort));
      expect(ports.size).toBe(1);
      await pooled.close();
    });

    it('a call without an answer within timeoutMs fails with retriable ERR_KMS_TIMEOUT', async () => {
      kms.interceptNext(() => undefined); // never answers
      const err = await failure(client.getKeyNames({ timeoutMs: 200 }));
      expect(err).toMatchObject({ code: 'ERR_KMS_TIMEOUT', retriable: true, timeoutMs: 200 });
    });

    it("the caller's signal aborts a call in flight with ERR_KMS_ABORTED", async () => {
      const controller = new AbortController();
      kms.interceptNext(() => controller.abort());
      const err = await failure(client.getKeyNames({ signal: controller.signal }));
      expect(err).toMatchObject({ code: 'ERR_KMS_ABORTED', retriable: false });
    });

    it('a dropped connection is ERR_KMS_UNREACHABLE, and is not retried by default', async () => {
      kms.interceptNext((req) => req.socket.destroy());
      const before = kms.requests.length;
      const err = await failure(client.getKeyNames());
      expect(err).toMatchObject({ code: 'ERR_KMS_UNREACHABLE', retriable: true });
      expect(kms.requests.length - before).toBe(1);
    });

    it('retries retriable errors up to `retries` times, then gives up with the last error', async () => {
      const retrying = open({ retries: 2, retryDelayMs: 1 });
      kms.interceptNext((_req, res) => res.writeHead(503).end());
      kms.interceptNext((req) => req.socket.destroy());
      const before = kms.requests.length;
      expect(await retrying.getKeyNames()).toEqual([]);
      expect(kms.requests.length - before).toBe(3);

      for (let i = 0; i < 3; i++) kms.interceptNext((_req, res) => res.writeHead(503).end());
      const err = await failure(retrying.getKeyNames());
      expect(err.code).toBe('ERR_KMS_UNAVAILABLE');
      expect(kms.requests.length - before).toBe(6);
      await retrying.close();
    });

    it('never retries an error that is not retriable', async () => {
      const retrying = open({ retries: 3, retryDelayMs: 1 });
      const before = kms.requests.length;
      expect((await failure(retrying.rollNewVersion('missing'))).code).toBe('ERR_KMS_KEY_NOT_FOUND');
      expect(kms.requests.length - before).toBe(1);
      await retrying.close();
    });

    it('an abort during the wait between retries ends the call', async () => {
      const retrying = open({ retries: 5, retryDelayMs: 60_000 });
      const controller = new AbortController();
      kms.interceptNext((_req, res) => {
        res.writeHead(503).end();
        // Abort once the first answer is out: the client is then waiting to retry.
        res.on('finish', () => setImmediate(() => controller.abort()));
      });
      const err = await failure(retrying.getKeyNames({ signal: controller.signal }));
      expect(err.code).toBe('ERR_KMS_ABORTED');
      await retrying.close();
    });

    it('a refused connection is ERR_KMS_UNREACHABLE', async () => {
      const port = kms.port;
      await kms.close();
      await using nowhere = new KmsClient({ url: `http://127.0.0.1:${port}/kms`, user: 'a' });
      const err = await failure(nowhere.getKeyNames());
      expect(err).toMatchObject({ code: 'ERR_KMS_UNREACHABLE', retriable: true });
      kms = await startFakeKms();
    });
  });
});

describe('KmsClient over TLS', () => {
  const { key, cert } = selfSignedCertificate();

  it('trusts the server through the ca option, and refuses it without', async () => {
    await using kms = await startFakeKms({ tls: { key, cert } });
    expect(kms.url.startsWith('https://')).toBe(true);
    await using trusting = new KmsClient({ url: kms.url, user: 'alice', ca: cert });
    await trusting.createKey('k1');
    expect(await trusting.getKeyNames()).toEqual(['k1']);

    await using untrusting = new KmsClient({ url: kms.url, user: 'alice' });
    const err = await failure(untrusting.getKeyNames());
    expect(err).toMatchObject({ code: 'ERR_KMS_TLS', retriable: false });

    await using insecure = new KmsClient({ url: kms.url, user: 'alice', rejectUnauthorized: false });
    expect(await insecure.getKeyNames()).toEqual(['k1']);
  });
});
