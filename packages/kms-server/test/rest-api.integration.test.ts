import { eekOf, eeksOf, keyVersionOf, metadataOf, type EekJson } from './support/kms-json.js';
import { startTestKms, remote, type KmsReply, type TestKms } from './support/test-kms.js';

let kms: TestKms;
beforeEach(async () => {
  kms = await startTestKms();
});
afterEach(async () => {
  await kms[Symbol.asyncDispose]();
});

const u = 'alice';
const b64 = (s: string | null): Buffer => {
  if (s === null) throw new Error('expected key material, got null');
  return Buffer.from(s, 'base64url');
};

describe('KMS REST API v1', () => {
  it('21: a fresh KMS has no keys and no metadata', async () => {
    const names = await kms.call('GET', '/kms/v1/keys/names', { user: u });
    expect(names.statusCode).toBe(200);
    expect(names.headers['content-type']).toMatch(/^application\/json/);
    expect(names.json()).toEqual([]);
    expect((await kms.call('GET', '/kms/v1/keys/metadata', { user: u })).json()).toEqual([]);
  });

  it('22: creates a key (201, Location, k1@0, 16-byte material) and reports its metadata', async () => {
    const before = Date.now();
    const res = await kms.call('POST', '/kms/v1/keys', {
      user: u,
      body: { name: 'k1', cipher: 'AES/CTR/NoPadding', length: 128, description: 'l1' },
    });
    expect(res.statusCode).toBe(201);
    expect(res.headers.location).toBe('http://localhost:80/kms/v1/key/k1');
    const kv = keyVersionOf(res.json());
    expect(kv).toMatchObject({ name: 'k1', versionName: 'k1@0' });
    expect(Object.keys(kv)).toEqual(['name', 'versionName', 'material']);
    expect(b64(kv.material)).toHaveLength(16);
    expect(kv.material).toMatch(/^[A-Za-z0-9_-]+$/);
    const meta = metadataOf((await kms.call('GET', '/kms/v1/key/k1/_metadata', { user: u })).json());
    expect(Object.keys(meta)).toEqual([
      'name',
      'cipher',
      'length',
      'description',
      'attributes',
      'created',
      'versions',
    ]);
    expect(meta).toMatchObject({
      name: 'k1',
      cipher: 'AES/CTR/NoPadding',
      length: 128,
      description: 'l1',
      versions: 1,
    });
    expect(meta.attributes).toEqual({ 'key.acl.name': 'k1' });
    expect(meta.created).toBeGreaterThanOrEqual(before);
    expect((await kms.call('GET', '/kms/v1/key/k1', { user: u })).json()).toEqual(meta);
    expect((await kms.call('GET', '/kms/v1/keys/metadata?key=k1&key=nope', { user: u })).json()).toEqual([
      meta,
      {},
    ]);
    const created = await kms.call('POST', '/kms/v1/keys', { user: u, body: { name: 'k2' } });
    expect(keyVersionOf(created.json()).versionName).toBe('k2@0');
    expect((await kms.call('GET', '/kms/v1/key/k2/_metadata', { user: u })).json()).toMatchObject({
      cipher: 'AES/CTR/NoPadding',
      length: 128,
      description: null,
    });
  });

  it('23: rollover makes k1@1 current with new material; versions are listed oldest first', async () => {
    const v0 = keyVersionOf(
      (await kms.call('POST', '/kms/v1/keys', { user: u, body: { name: 'k1' } })).json(),
    );
    const rolled = await kms.call('POST', '/kms/v1/key/k1', { user: u, body: {} });
    expect(rolled.statusCode).toBe(200);
    const v1 = keyVersionOf(rolled.json());
    expect(v1.versionName).toBe('k1@1');
    expect(v1.material).not.toBe(v0.material);
    expect((await kms.call('GET', '/kms/v1/key/k1/_currentversion', { user: u })).json()).toEqual(v1);
    expect((await kms.call('GET', '/kms/v1/key/k1/_versions', { user: u })).json()).toEqual([v0, v1]);
    expect((await kms.call('GET', '/kms/v1/keyversion/k1@0', { user: u })).json()).toEqual(v0);
    expect(metadataOf((await kms.call('GET', '/kms/v1/key/k1/_metadata', { user: u })).json()).versions).toBe(
      2,
    );
    const given = Buffer.alloc(16, 3).toString('base64url');
    const v2 = (await kms.call('POST', '/kms/v1/key/k1', { user: u, body: { material: given } })).json();
    expect(v2).toEqual({ name: 'k1', versionName: 'k1@2', material: given });
    // A rollover without a body at all is accepted as Hadoop's client always sends {}.
    expect(keyVersionOf((await kms.call('POST', '/kms/v1/key/k1', { user: u })).json()).versionName).toBe(
      'k1@3',
    );
  });

  it('24: generates EEKs and decrypts them to EK deterministically', async () => {
    await kms.call('POST', '/kms/v1/keys', { user: u, body: { name: 'k1', length: 256 } });
    const eeks = eeksOf(
      (await kms.call('GET', '/kms/v1/key/k1/_eek?eek_op=generate&num_keys=3', { user: u })).json(),
    );
    expect(eeks).toHaveLength(3);
    const [eek, other] = eeks;
    expect(Object.keys(eek)).toEqual(['versionName', 'iv', 'encryptedKeyVersion']);
    expect(eek.versionName).toBe('k1@0');
    expect(b64(eek.iv)).toHaveLength(16);
    expect(eek.encryptedKeyVersion).toMatchObject({ name: 'k1', versionName: 'EEK' });
    expect(b64(eek.encryptedKeyVersion.material)).toHaveLength(32);
    expect((await kms.call('GET', '/kms/v1/key/k1/_eek?eek_op=generate', { user: u })).json()).toHaveLength(
      1,
    );
    const decrypt = (e: EekJson | undefined): Promise<KmsReply> => {
      if (e === undefined) throw new Error('expected an EEK');
      return kms.call('POST', `/kms/v1/keyversion/${e.versionName}/_eek?eek_op=decrypt`, {
        user: u,
        body: { name: 'k1', iv: e.iv, material: e.encryptedKeyVersion.material },
      });
    };
    const dek = await decrypt(eek);
    expect(dek.statusCode).toBe(200);
    expect(dek.json()).toMatchObject({ name: 'k1', versionName: 'EK' });
    expect(b64(keyVersionOf(dek.json()).material)).toHaveLength(32);
    expect((await decrypt(eek)).json()).toEqual(dek.json());
    expect(keyVersionOf((await decrypt(other)).json()).material).not.toBe(keyVersionOf(dek.json()).material);
  });

  it('25, 32: after rollover, reencrypt keeps the IV and DEK; batch moves 6 EEKs; invalidatecache then generate uses the new version', async () => {
    await kms.call('POST', '/kms/v1/keys', { user: u, body: { name: 'k1' } });
    const eeks = eeksOf(
      (await kms.call('GET', '/kms/v1/key/k1/_eek?eek_op=generate&num_keys=6', { user: u })).json(),
    );
    await kms.call('POST', '/kms/v1/key/k1', { user: u, body: {} });
    const [eek] = eeks;
    const body = { name: 'k1', iv: eek.iv, material: eek.encryptedKeyVersion.material };
    const re = eekOf(
      (await kms.call('POST', '/kms/v1/keyversion/k1@0/_eek?eek_op=reencrypt', { user: u, body })).json(),
    );
    expect(re.versionName).toBe('k1@1');
    expect(re.iv).toBe(eek.iv);
    expect(re.encryptedKeyVersion.name).toBe('k1');
    expect(re.encryptedKeyVersion.material).not.toBe(eek.encryptedKeyVersion.material);
    const dek = async (e: EekJson | undefined): Promise<string | null> => {
      if (e === undefined) throw new Error('expected an EEK');
      const answer = await kms.call('POST', `/kms/v1/keyversion/${e.versionName}/_eek?eek_op=decrypt`, {
        user: u,
        body: { name: 'k1', iv: e.iv, material: e.encryptedKeyVersion.material },
      });
      return keyVersionOf(answer.json()).material;
    };
    expect(await dek(re)).toBe(await dek(eek));
    const batch = await kms.call('POST', '/kms/v1/key/k1/_reencryptbatch', { user: u, body: eeks });
    expect(batch.statusCode).toBe(200);
    expect(batch.json()).toHaveLength(6);
    for (const [i, item] of eeksOf(batch.json()).entries()) {
      expect(item.versionName).toBe('k1@1');
      expect(await dek(item)).toBe(await dek(eeks[i]));
    }
    expect((await kms.call('POST', '/kms/v1/key/k1/_invalidatecache', { user: u })).statusCode).toBe(200);
    expect(
      eeksOf((await kms.call('GET', '/kms/v1/key/k1/_eek?eek_op=generate', { user: u })).json())[0]
        .versionName,
    ).toBe('k1@1');
    expect((await kms.call('POST', '/kms/v1/key/k1/_reencryptbatch', { user: u, body: [] })).json()).toEqual(
      [],
    );
  });

  it("26: after delete, old EEKs fail with 'k1@N' not found, lookups answer {} and names are empty", async () => {
    await kms.call('POST', '/kms/v1/keys', { user: u, body: { name: 'k1' } });
    await kms.call('POST', '/kms/v1/key/k1', { user: u, body: {} });
    const [eek] = eeksOf((await kms.call('GET', '/kms/v1/key/k1/_eek?eek_op=generate', { user: u })).json());
    const del = await kms.call('DELETE', '/kms/v1/key/k1', { user: u });
    expect(del.statusCode).toBe(200);
    expect(del.body).toBe('');
    const res = await kms.call('POST', '/kms/v1/keyversion/k1@1/_eek?eek_op=decrypt', {
      user: u,
      body: { name: 'k1', iv: eek.iv, material: eek.encryptedKeyVersion.material },
    });
    expect(res.statusCode).toBe(400);
    expect(remote(res)).toEqual({
      message: "'k1@1' not found",
      exception: 'IllegalArgumentException',
      javaClassName: 'java.lang.IllegalArgumentException',
    });
    expect((await kms.call('GET', '/kms/v1/keyversion/k1@1', { user: u })).json()).toEqual({});
    expect((await kms.call('GET', '/kms/v1/key/k1/_metadata', { user: u })).json()).toEqual({});
    expect((await kms.call('GET', '/kms/v1/key/k1/_currentversion', { user: u })).json()).toEqual({});
    expect((await kms.call('GET', '/kms/v1/key/k1/_versions', { user: u })).json()).toEqual([]);
    expect((await kms.call('GET', '/kms/v1/keys/names', { user: u })).json()).toEqual([]);
  });

  it('41: key names with special characters work when URL-encoded', async () => {
    const name = 'key %^[\n{]}|"<>\\';
    const created = await kms.call('POST', '/kms/v1/keys', { user: u, body: { name } });
    expect(created.statusCode).toBe(201);
    expect(keyVersionOf(created.json()).name).toBe(name);
    expect(created.headers.location).toBe(`http://localhost:80/kms/v1/key/${encodeURIComponent(name)}`);
    const enc = encodeURIComponent(name);
    expect(metadataOf((await kms.call('GET', `/kms/v1/key/${enc}/_metadata`, { user: u })).json()).name).toBe(
      name,
    );
    expect(
      keyVersionOf(
        (await kms.call('GET', `/kms/v1/keyversion/${encodeURIComponent(`${name}@0`)}`, { user: u })).json(),
      ).name,
    ).toBe(name);
    expect((await kms.call('GET', '/kms/v1/keys/names', { user: u })).json()).toEqual([name]);
    // A slash in a name: encoded or not, it is the same key.
    await kms.call('POST', '/kms/v1/keys', { user: u, body: { name: 'a/b' } });
    expect(metadataOf((await kms.call('GET', '/kms/v1/key/a/b/_metadata', { user: u })).json()).name).toBe(
      'a/b',
    );
    expect(metadataOf((await kms.call('GET', '/kms/v1/key/a%2Fb', { user: u })).json()).name).toBe('a/b');
    expect((await kms.call('DELETE', `/kms/v1/key/${enc}`, { user: u })).statusCode).toBe(200);
  });

  it("42: a wrong or missing eek_op is a 400 with Hadoop's message", async () => {
    await kms.call('POST', '/kms/v1/keys', { user: u, body: { name: 'k1' } });
    const res = await kms.call('GET', '/kms/v1/key/k1/_eek?eek_op=foo', { user: u });
    expect(res.statusCode).toBe(400);
    expect(remote(res).message).toBe(
      'IllegalArgumentException Wrong eek_op value, it must be generate or decrypt',
    );
    expect(remote(res).exception).toBe('IllegalArgumentException');
    const post = await kms.call('POST', '/kms/v1/keyversion/k1@0/_eek?eek_op=generate', {
      user: u,
      body: { name: 'k1', iv: 'AAAAAAAAAAAAAAAAAAAAAA', material: 'AAAA' },
    });
    expect(post.statusCode).toBe(400);
    expect(remote(await kms.call('GET', '/kms/v1/key/k1/_eek', { user: u })).message).toBe(
      "Parameter 'eekOp' cannot be null",
    );
  });

  it('answers missing keys, existing keys and bad parameters with 4xx and Hadoop bodies', async () => {
    const cases: Array<[Promise<KmsReply>, number, RegExp]> = [
      [kms.call('POST', '/kms/v1/key/none', { user: u, body: {} }), 404, /^Key none not found$/],
      [kms.call('DELETE', '/kms/v1/key/none', { user: u }), 404, /^Key none does not exist$/],
      [
        kms.call('GET', '/kms/v1/key/none/_eek?eek_op=generate', { user: u }),
        404,
        /No KeyVersion exists for key 'none'/,
      ],
      [kms.call('POST', '/kms/v1/keys', { user: u, body: {} }), 400, /^Parameter 'name' cannot be null$/],
      [
        kms.call('POST', '/kms/v1/keys', { user: u, body: { name: '' } }),
        400,
        /^Parameter 'name' cannot be empty$/,
      ],
      [kms.call('POST', '/kms/v1/keys', { user: u, body: { name: 'x', length: 'big' } }), 400, /length/],
      [kms.call('POST', '/kms/v1/keys', { user: u, body: { name: 'x', length: 100 } }), 400, /Wrong keysize/],
      [
        kms.call('POST', '/kms/v1/keys', { user: u, body: { name: 'x', cipher: 'DES' } }),
        400,
        /DES KeyGenerator not available/,
      ],
      [
        kms.call('POST', '/kms/v1/keys', { user: u, body: { name: 'x', material: 'AAAA' } }),
        400,
        /Wrong key length. Required 128, but got 24/,
      ],
      [
        kms.call('POST', '/kms/v1/keys', { user: u, body: { name: 'x', material: '!!' } }),
        400,
        /'material' is not valid base64/,
      ],
      [
        kms.call('POST', '/kms/v1/keys', { user: u, body: { name: 'x', attributes: { a: 1 } } }),
        400,
        /Attribute 'a' must be a string/,
      ],
      [kms.call('POST', '/kms/v1/keys', { user: u, body: ['x'] }), 400, /must be a JSON object/],
      [kms.call('POST', '/kms/v1/keys', { user: u, rawBody: '{"name":' }), 400, /Malformed JSON/],
      [kms.call('GET', '/kms/v1/key/x/_eek?eek_op=generate&num_keys=abc', { user: u }), 400, /num_keys/],
      [kms.call('GET', '/kms/v1/key/x/_eek?eek_op=generate&num_keys=100001', { user: u }), 400, /num_keys/],
      [kms.call('GET', '/kms/v1/nope', { user: u }), 404, /Not Found/],
      [kms.call('PUT', '/kms/v1/keys', { user: u, body: {} }), 405, /not allowed/],
      [kms.call('GET', '/kms/v1/key/%zz', { user: u }), 400, /Malformed (request )?URL/],
      [kms.call('GET', '/other', {}), 404, /Not Found/],
    ];
    for (const [pending, status, message] of cases) {
      const res = await pending;
      expect([res.statusCode, remote(res).message]).toEqual([status, expect.stringMatching(message)]);
    }
    await kms.call('POST', '/kms/v1/keys', { user: u, body: { name: 'x' } });
    const dup = await kms.call('POST', '/kms/v1/keys', { user: u, body: { name: 'x' } });
    expect(dup.statusCode).toBe(409);
    expect(remote(dup)).toEqual({
      message: 'Key x already exists',
      exception: 'IOException',
      javaClassName: 'java.io.IOException',
    });
    const foreign = await kms.call('POST', '/kms/v1/keyversion/x@0/_eek?eek_op=decrypt', {
      user: u,
      body: { name: 'y', iv: 'AAAAAAAAAAAAAAAAAAAAAA', material: 'AAAA' },
    });
    expect(remote(foreign).message).toBe("KeyVersion 'x@0' does not belong to the key 'y'");
  });

  it('accepts JSON sent without a content type, and both base64 alphabets', async () => {
    const res = await kms.server.app.inject({
      method: 'POST',
      url: '/kms/v1/keys?user.name=a',
      payload: '{"name":"k"}',
    });
    expect(res.statusCode).toBe(201);
    const [eek] = eeksOf((await kms.call('GET', '/kms/v1/key/k/_eek?eek_op=generate', { user: u })).json());
    const std = (s: string) => Buffer.from(s, 'base64url').toString('base64');
    const dek = await kms.call('POST', '/kms/v1/keyversion/k@0/_eek?eek_op=decrypt', {
      user: u,
      body: { name: 'k', iv: std(eek.iv), material: std(eek.encryptedKeyVersion.material) },
    });
    expect(dek.statusCode).toBe(200);
  });
});
