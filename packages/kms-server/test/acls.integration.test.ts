import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eeksOf, keyVersionOf, metadataOf } from './support/kms-json.js';
import { startTestKms, remote, type TestKms } from './support/test-kms.js';
import {
  DEFAULT_KEY_ACLS,
  keyAclScenarioAcls,
  kmsAclsXml,
  operationAcls,
  waitFor,
} from '@fastpath/test-support';

const material = Buffer.alloc(16, 1).toString('base64url');

describe('ACLs', () => {
  let kms: TestKms | undefined;
  let configDir: string;
  beforeEach(() => {
    configDir = mkdtempSync(join(tmpdir(), 'kms-acl-conf-'));
  });
  afterEach(async () => {
    await kms?.[Symbol.asyncDispose]();
    kms = undefined;
    rmSync(configDir, { recursive: true, force: true });
  });

  it('27: a user in no operation ACL is refused everything with 403 AuthorizationException', async () => {
    kms = await startTestKms({ acls: { ...operationAcls(() => 'client'), ...DEFAULT_KEY_ACLS } });
    await kms.call('POST', '/kms/v1/keys', { user: 'client', body: { name: 'k' } });
    const calls: Array<[string, Parameters<TestKms['call']>]> = [
      ["'CREATE_KEY' on 'k2'", ['POST', '/kms/v1/keys', { user: 'nobody', body: { name: 'k2' } }]],
      ["'CREATE_KEY' on 'k3'", ['POST', '/kms/v1/keys', { user: 'nobody', body: { name: 'k3', material } }]],
      ["'ROLL_NEW_VERSION' on 'k'", ['POST', '/kms/v1/key/k', { user: 'nobody', body: {} }]],
      ["'ROLL_NEW_VERSION' on 'k'", ['POST', '/kms/v1/key/k', { user: 'nobody', body: { material } }]],
      ["'GET_KEYS'", ['GET', '/kms/v1/keys/names', { user: 'nobody' }]],
      ["'GET_KEYS_METADATA'", ['GET', '/kms/v1/keys/metadata?key=k', { user: 'nobody' }]],
      ["'GET_KEY_VERSION'", ['GET', '/kms/v1/keyversion/k@0', { user: 'nobody' }]],
      ["'GET_CURRENT_KEY' on 'k'", ['GET', '/kms/v1/key/k/_currentversion', { user: 'nobody' }]],
      ["'GET_METADATA' on 'k'", ['GET', '/kms/v1/key/k/_metadata', { user: 'nobody' }]],
      ["'GET_KEY_VERSIONS' on 'k'", ['GET', '/kms/v1/key/k/_versions', { user: 'nobody' }]],
      ["'DELETE_KEY' on 'k'", ['DELETE', '/kms/v1/key/k', { user: 'nobody' }]],
      ["'GENERATE_EEK' on 'k'", ['GET', '/kms/v1/key/k/_eek?eek_op=generate', { user: 'nobody' }]],
    ];
    for (const [what, args] of calls) {
      const res = await kms.call(...args);
      expect(res.statusCode).toBe(403);
      expect(remote(res)).toEqual({
        message: `User:nobody not allowed to do ${what}`,
        exception: 'AuthorizationException',
        javaClassName: 'org.apache.hadoop.security.authorize.AuthorizationException',
      });
    }
    expect((await kms.call('GET', '/kms/v1/keys/names', { user: 'client' })).json()).toEqual(['k']);
  });

  it('28: CREATE or ROLLOVER without GET returns no material; material needs SET_KEY_MATERIAL too', async () => {
    kms = await startTestKms({
      acls: {
        ...operationAcls((op) =>
          op === 'CREATE'
            ? 'creator,setter'
            : op === 'ROLLOVER'
              ? 'roller'
              : op === 'SET_KEY_MATERIAL'
                ? 'setter'
                : 'reader',
        ),
        ...DEFAULT_KEY_ACLS,
      },
    });
    const created = await kms.call('POST', '/kms/v1/keys', { user: 'creator', body: { name: 'k' } });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toEqual({ name: 'k', versionName: 'k@0', material: null });
    const rolled = await kms.call('POST', '/kms/v1/key/k', { user: 'roller', body: {} });
    expect(rolled.json()).toEqual({ name: 'k', versionName: 'k@1', material: null });
    expect(
      (await kms.call('POST', '/kms/v1/keys', { user: 'creator', body: { name: 'm', material } })).statusCode,
    ).toBe(403);
    const set = await kms.call('POST', '/kms/v1/keys', { user: 'setter', body: { name: 'm', material } });
    expect(set.statusCode).toBe(201);
    expect(keyVersionOf(set.json()).material).toBeNull();
    expect(
      keyVersionOf((await kms.call('GET', '/kms/v1/key/m/_currentversion', { user: 'reader' })).json())
        .material,
    ).toBe(material);
    expect(
      remote(await kms.call('POST', '/kms/v1/key/k', { user: 'roller', body: { material } })).message,
    ).toBe("User:roller not allowed to do 'ROLL_NEW_VERSION' on 'k'");
  });

  it('29: kms-acls.xml changes apply without a restart; a broken file keeps the previous ACLs', async () => {
    const aclFile = join(configDir, 'kms-acls.xml');
    writeFileSync(aclFile, kmsAclsXml({ ...operationAcls(() => 'client'), ...DEFAULT_KEY_ACLS }));
    const errors: string[] = [];
    kms = await startTestKms({
      configDir,
      site: { 'fastpath.kms.acls.reload.interval.ms': '20' },
      logger: { info: () => undefined, warn: () => undefined, error: (message) => errors.push(message) },
    });
    expect((await kms.call('POST', '/kms/v1/keys', { user: 'client', body: { name: 'k' } })).statusCode).toBe(
      201,
    );
    const [eek] = eeksOf(
      (await kms.call('GET', '/kms/v1/key/k/_eek?eek_op=generate', { user: 'client' })).json(),
    );
    // Replace the file the way editors do: write a new one and rename it over the old.
    writeFileSync(
      `${aclFile}.new`,
      kmsAclsXml({
        ...operationAcls((op) => (op === 'CREATE' || op === 'GENERATE_EEK' ? 'foo' : 'client')),
        ...DEFAULT_KEY_ACLS,
      }),
    );
    renameSync(`${aclFile}.new`, aclFile);
    const live = kms;
    await waitFor(
      'the reloaded CREATE ACL',
      async () =>
        (await live.call('POST', '/kms/v1/keys', { user: 'client', body: { name: 'k2' } })).statusCode ===
        403,
    );
    expect((await kms.call('GET', '/kms/v1/key/k/_eek?eek_op=generate', { user: 'client' })).statusCode).toBe(
      403,
    );
    const body = { name: 'k', iv: eek.iv, material: eek.encryptedKeyVersion.material };
    expect(
      (await kms.call('POST', '/kms/v1/keyversion/k@0/_eek?eek_op=reencrypt', { user: 'client', body }))
        .statusCode,
    ).toBe(403);
    expect(
      (await kms.call('POST', '/kms/v1/key/k/_reencryptbatch', { user: 'client', body: [eek] })).statusCode,
    ).toBe(403);
    expect(
      (await kms.call('POST', '/kms/v1/keyversion/k@0/_eek?eek_op=decrypt', { user: 'client', body }))
        .statusCode,
    ).toBe(200);
    expect((await kms.call('POST', '/kms/v1/keys', { user: 'foo', body: { name: 'k3' } })).statusCode).toBe(
      201,
    );
    // A file that does not parse is reported and ignored.
    writeFileSync(aclFile, '<configuration><property>');
    await waitFor('the reload error', () =>
      errors.some((e) => e.includes('kms-acls.xml changed but cannot be loaded')),
    );
    expect((await kms.call('POST', '/kms/v1/keys', { user: 'foo', body: { name: 'k4' } })).statusCode).toBe(
      201,
    );
    writeFileSync(aclFile, kmsAclsXml({ ...operationAcls(() => '*'), ...DEFAULT_KEY_ACLS }));
    await waitFor(
      'the repaired file',
      async () =>
        (await live.call('GET', '/kms/v1/key/k/_eek?eek_op=generate', { user: 'client' })).statusCode === 200,
    );
  });

  it('30: a blacklisted user in the DECRYPT_EEK ACL cannot decrypt; others can', async () => {
    kms = await startTestKms({
      acls: { ...operationAcls(() => '*'), 'hadoop.kms.blacklist.DECRYPT_EEK': 'hdfs', ...DEFAULT_KEY_ACLS },
    });
    await kms.call('POST', '/kms/v1/keys', { user: 'client', body: { name: 'k' } });
    const [eek] = eeksOf(
      (await kms.call('GET', '/kms/v1/key/k/_eek?eek_op=generate', { user: 'client' })).json(),
    );
    const body = { name: 'k', iv: eek.iv, material: eek.encryptedKeyVersion.material };
    const hdfs = await kms.call('POST', '/kms/v1/keyversion/k@0/_eek?eek_op=decrypt', { user: 'hdfs', body });
    expect(hdfs.statusCode).toBe(403);
    expect(remote(hdfs).message).toBe("User:hdfs not allowed to do 'DECRYPT_EEK' on 'k'");
    expect(
      (await kms.call('POST', '/kms/v1/keyversion/k@0/_eek?eek_op=decrypt', { user: 'client', body }))
        .statusCode,
    ).toBe(200);
    // The blacklist covers only its operation.
    expect((await kms.call('GET', '/kms/v1/key/k/_eek?eek_op=generate', { user: 'hdfs' })).statusCode).toBe(
      200,
    );
  });

  it('31: key ACLs: per-key, ALL, whitelist, defaults only for keys without their own ACLs, key.acl.name', async () => {
    kms = await startTestKms({
      acls: keyAclScenarioAcls(),
    });
    const denyCreate = await kms.call('POST', '/kms/v1/keys', { user: 'bob', body: { name: 'managed' } });
    expect(denyCreate.statusCode).toBe(403);
    expect(remote(denyCreate).message).toBe('User [bob] is not authorized to create key !!');
    expect(
      (await kms.call('POST', '/kms/v1/keys', { user: 'alice', body: { name: 'managed' } })).statusCode,
    ).toBe(201);
    expect(
      metadataOf((await kms.call('GET', '/kms/v1/key/managed/_metadata', { user: 'bob' })).json()).attributes,
    ).toEqual({
      'key.acl.name': 'managed',
    });
    // managed has its own ACLs: the default READ (*) does not apply to it.
    const aliceRead = await kms.call('GET', '/kms/v1/key/managed/_metadata', { user: 'alice' });
    expect(aliceRead.statusCode).toBe(403);
    expect(remote(aliceRead).message).toBe(
      'User [alice] is not authorized to perform [READ] on key with ACL name [managed]!!',
    );
    // The whitelist's MANAGEMENT lets admin roll any key.
    expect((await kms.call('POST', '/kms/v1/key/managed', { user: 'admin', body: {} })).statusCode).toBe(200);
    expect((await kms.call('POST', '/kms/v1/key/managed', { user: 'bob', body: {} })).statusCode).toBe(403);

    // A key governed by the all_access ACL: ALL grants everything to carol, DECRYPT_EEK to dave.
    const attributes = { 'key.acl.name': 'all_access' };
    expect(
      (await kms.call('POST', '/kms/v1/keys', { user: 'dave', body: { name: 'shared', attributes } }))
        .statusCode,
    ).toBe(403);
    expect(
      (await kms.call('POST', '/kms/v1/keys', { user: 'carol', body: { name: 'shared', attributes } }))
        .statusCode,
    ).toBe(201);
    const eeks = await kms.call('GET', '/kms/v1/key/shared/_eek?eek_op=generate', { user: 'carol' });
    expect(eeks.statusCode).toBe(200);
    expect(
      (await kms.call('GET', '/kms/v1/key/shared/_eek?eek_op=generate', { user: 'dave' })).statusCode,
    ).toBe(403);
    const [eek] = eeksOf(eeks.json());
    const body = { name: 'shared', iv: eek.iv, material: eek.encryptedKeyVersion.material };
    expect(
      (await kms.call('POST', '/kms/v1/keyversion/shared@0/_eek?eek_op=decrypt', { user: 'dave', body }))
        .statusCode,
    ).toBe(200);
    expect(
      (await kms.call('POST', '/kms/v1/keyversion/shared@0/_eek?eek_op=decrypt', { user: 'erin', body }))
        .statusCode,
    ).toBe(403);

    // A plain key (no own ACLs) follows the defaults.
    expect(
      (await kms.call('POST', '/kms/v1/keys', { user: 'carol', body: { name: 'plain' } })).statusCode,
    ).toBe(201);
    expect((await kms.call('GET', '/kms/v1/key/plain/_metadata', { user: 'anyone' })).statusCode).toBe(200);
    expect(
      (await kms.call('GET', '/kms/v1/key/plain/_eek?eek_op=generate', { user: 'anyone' })).statusCode,
    ).toBe(200);
    // No DECRYPT_EEK ACL anywhere for plain: denied.
    const [plainEek] = eeksOf(
      (await kms.call('GET', '/kms/v1/key/plain/_eek?eek_op=generate', { user: 'anyone' })).json(),
    );
    const plainBody = { name: 'plain', iv: plainEek.iv, material: plainEek.encryptedKeyVersion.material };
    expect(
      (
        await kms.call('POST', '/kms/v1/keyversion/plain@0/_eek?eek_op=decrypt', {
          user: 'carol',
          body: plainBody,
        })
      ).statusCode,
    ).toBe(403);
  });

  it('matches ACL groups through the group mapping, and skips key ACLs when key authorization is off', async () => {
    kms = await startTestKms({
      site: {
        'hadoop.user.group.static.mapping.overrides': 'eve=admins;mallory=',
        'hadoop.kms.key.authorization.enable': 'false',
      },
      acls: {
        ...operationAcls((op) => (op === 'GET_KEYS' ? 'nobody admins' : '*')),
        'key.acl.k.READ': 'nobody',
      },
    });
    expect((await kms.call('GET', '/kms/v1/keys/names', { user: 'eve' })).statusCode).toBe(200);
    expect((await kms.call('GET', '/kms/v1/keys/names', { user: 'mallory' })).statusCode).toBe(403);
    // Without key authorization no key ACL applies and no key.acl.name is added.
    expect(
      (await kms.call('POST', '/kms/v1/keys', { user: 'mallory', body: { name: 'k' } })).statusCode,
    ).toBe(201);
    const meta = await kms.call('GET', '/kms/v1/key/k/_metadata', { user: 'mallory' });
    expect(meta.statusCode).toBe(200);
    expect(metadataOf(meta.json()).attributes).toEqual({});
  });

  it('refuses to start with an invalid kms-acls.xml, naming it', async () => {
    writeFileSync(join(configDir, 'kms-acls.xml'), kmsAclsXml({ 'key.acl.k1.WRITE': '*' }));
    await expect(startTestKms({ configDir })).rejects.toMatchObject({
      code: 'ERR_KMS_CONFIG',
      property: 'key.acl.k1.WRITE',
    });
    writeFileSync(join(configDir, 'kms-acls.xml'), '<configuration>');
    await expect(startTestKms({ configDir })).rejects.toMatchObject({
      code: 'ERR_KMS_CONFIG',
      property: join(configDir, 'kms-acls.xml'),
    });
  });
});
