// Behaviours 21-42 of the Hadoop KMS (from TestKMS, TestKMSWithZK and the KMS code) as one suite,
// run over real HTTP with this client against any server a target starts: @fastpath/kms-server
// (kms-behaviours.integration.test.ts) and Apache Hadoop's own KMS
// (kms-behaviours-hadoop.integration.test.ts).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFile, rename } from 'node:fs/promises';
import { ManualClock, Redacted } from '@fastpath/core';
import {
  DEFAULT_KEY_ACLS,
  keyAclScenarioAcls,
  kmsAclsXml,
  operationAcls,
  remoteExceptionOf,
} from '@fastpath/test-support';
import { Token } from '@fastpath/hadoop-common';
import type { KmsServerOptions } from '@fastpath/kms-server';
import type { TestZooKeeper } from '@fastpath/zookeeper-fixture/jest';
import { KmsDelegationToken, KmsError } from '../../src/index.js';
import type { EncryptedKeyVersion, KeyVersion } from '../../src/index.js';
import { ctr } from './fake-kms-server.js';
import { failure } from './failure.js';
import { startRealKms } from './real-kms.js';
import type { RawAnswer, RealKms } from './real-kms.js';
import { waitFor } from '@fastpath/test-support';

/** A server under test, as the behaviours use it. */
export interface BehaviourKms extends Pick<
  RealKms,
  'url' | 'as' | 'withAuth' | 'raw' | 'auditLines' | 'close'
> {
  /** The server's clock: a manual one when started with `manualClock`, else the real one. */
  now(): number;
  /** Lets `ms` pass on the server's clock (real time when it has no manual clock). */
  advance(ms: number): Promise<void>;
  /** Replaces kms-acls.xml (started with `reloadableAcls`); the server reloads it by itself. */
  setAcls(acls: Record<string, string>): Promise<void>;
}

export interface BehaviourStartOptions {
  acls?: Record<string, string>;
  site?: Record<string, string>;
  /** A clock the test advances (fastpath); Hadoop's server keeps real time. */
  manualClock?: boolean;
  /** kms-acls.xml in a file the server watches. */
  reloadableAcls?: boolean;
}

/** Which server the suite runs against, and how to start one. */
export interface BehaviourTarget {
  readonly server: 'fastpath' | 'hadoop';
  start(options: BehaviourStartOptions): Promise<BehaviourKms>;
}

/** @fastpath/kms-server in this process, with the token store `storeSite` configures. */
export function fastpathBehaviourTarget(storeSite: () => Record<string, string>): BehaviourTarget {
  return {
    server: 'fastpath',
    async start(options) {
      const clock = options.manualClock === true ? new ManualClock(Date.now()) : undefined;
      const configDir =
        options.reloadableAcls === true ? mkdtempSync(join(tmpdir(), 'kms-client-acls-')) : undefined;
      const serverOptions: KmsServerOptions = { site: { ...storeSite(), ...options.site } };
      if (configDir !== undefined) {
        writeFileSync(join(configDir, 'kms-acls.xml'), kmsAclsXml(options.acls ?? {}));
        serverOptions.configDir = configDir;
        serverOptions.site = { ...serverOptions.site, 'fastpath.kms.acls.reload.interval.ms': '20' };
      } else if (options.acls !== undefined) {
        serverOptions.acls = options.acls;
      }
      if (clock !== undefined) serverOptions.clock = clock;
      const kms = await startRealKms(serverOptions);
      return {
        url: kms.url,
        as: (user) => kms.as(user),
        withAuth: (auth) => kms.withAuth(auth),
        raw: (method, path, opts) => kms.raw(method, path, opts),
        auditLines: () => kms.auditLines(),
        now: () => (clock ?? { now: () => Date.now() }).now(),
        async advance(ms) {
          if (clock !== undefined) clock.advance(ms);
          else await new Promise((resolve) => setTimeout(resolve, ms));
        },
        async setAcls(acls) {
          if (configDir === undefined) throw new Error('started without reloadableAcls');
          const file = join(configDir, 'kms-acls.xml');
          await writeFile(`${file}.new`, kmsAclsXml(acls));
          await rename(`${file}.new`, file);
        },
        async close() {
          await kms.close();
          if (configDir !== undefined) rmSync(configDir, { recursive: true, force: true });
        },
      };
    },
  };
}

const ZK = 'hadoop.kms.authentication.zk-dt-secret-manager.';
/** The site of a KMS whose token store is the ZooKeeper at `zk`, on a fresh working path. */
export const zkSite = (zk: TestZooKeeper): Record<string, string> => ({
  [`${ZK}enable`]: 'true',
  [`${ZK}zkConnectionString`]: zk.connectString,
  [`${ZK}znodeWorkingPath`]: zk.uniquePath('kms-client'),
  [`${ZK}zkAuthType`]: 'none',
});

const bytes = (v: KeyVersion | undefined): Buffer => {
  const material = v?.material;
  if (material === null || material === undefined) throw new Error(`no material in ${v?.versionName}`);
  return material.unwrap();
};

/**
 * Behaviours 21-42, against the server `target` starts. Where fastpath's server goes beyond
 * Hadoop's, the test says so and checks each server for what it does.
 */
export function defineKmsBehaviours(target: BehaviourTarget): void {
  const servers: BehaviourKms[] = [];
  const start = async (options: BehaviourStartOptions = {}): Promise<BehaviourKms> => {
    const kms = await target.start(options);
    servers.push(kms);
    return kms;
  };
  const hadoop = target.server === 'hadoop';
  /**
   * The message of an error answer of the authentication filter (a missing `user.name`). fastpath
   * goes beyond Hadoop here: it sends a RemoteException body; Hadoop's KMS answers with Jetty's
   * error page (its own client reads the reason from the status line), so for Hadoop this is the
   * page's text and the check is that it names the reason.
   */
  const expectRemoteMessage = (body: string, message: string): void => {
    if (hadoop) {
      if (body !== '') expect(body).toContain(message);
    } else {
      expect(remoteExceptionOf(body).message).toBe(message);
    }
  };
  /**
   * A failed token operation: both answer as Hadoop's authentication filter does, with the reason
   * in the status line. fastpath's body is empty; Hadoop's is empty or, for a GET, Jetty's error page.
   */
  const expectStatusLine = (answer: RawAnswer, message: string): void => {
    expect(answer.statusText).toBe(message);
    if (!hadoop) expect(answer.body).toBe('');
  };
  // Hadoop 3.4.2 builds Location by appending to the request's path (…/kms/v1/keys/v1/key/<name>,
  // an address that serves nothing); fastpath answers the key's own address.
  const location = (kms: BehaviourKms, name: string): string =>
    hadoop ? `${kms.url}/v1/keys/v1/key/${name}` : `${kms.url}/v1/key/${name}`;
  afterEach(async () => {
    for (const kms of servers.splice(0)) await kms.close();
  });

  it('21: a fresh KMS has no key names and no metadata', async () => {
    const kms = await start();
    const alice = kms.as('alice');
    expect(await alice.getKeyNames()).toEqual([]);
    expect(await alice.getKeysMetadata([])).toEqual([]);
  });

  it('22, 23: create answers 201 with Location and k1@0; rollover adds k1@1 and makes it current', async () => {
    const kms = await start();
    const alice = kms.as('alice');
    const testStart = Date.now();
    const created = await alice.createKey('k1', {
      cipher: 'AES/CTR/NoPadding',
      length: 128,
      description: 'l1',
    });
    expect(created.name).toBe('k1');
    expect(created.versionName).toBe('k1@0');
    expect(bytes(created)).toHaveLength(16);
    expect(created.location).toBe(location(kms, 'k1'));
    const raw = await kms.raw('POST', '/kms/v1/keys?user.name=alice', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'k0' }),
    });
    expect(raw.status).toBe(201);
    expect(raw.headers['location']).toBe(location(kms, 'k0'));

    const meta = await alice.getMetadata('k1');
    expect(meta).toMatchObject({
      name: 'k1',
      cipher: 'AES/CTR/NoPadding',
      length: 128,
      description: 'l1',
      versions: 1,
    });
    expect(meta?.created).toBeGreaterThanOrEqual(testStart);
    // A MANAGEMENT ACL exists (the default key ACLs), so the key is named after itself.
    expect(meta?.attributes).toEqual({ 'key.acl.name': 'k1' });

    const rolled = await alice.rollNewVersion('k1');
    expect(rolled.versionName).toBe('k1@1');
    expect(bytes(rolled).equals(bytes(created))).toBe(false);
    const current = await alice.getCurrentVersion('k1');
    expect(current?.versionName).toBe('k1@1');
    expect(bytes(current).equals(bytes(rolled))).toBe(true);
    const versions = await alice.getKeyVersions('k1');
    expect(versions.map((v) => v.versionName)).toEqual(['k1@0', 'k1@1']);
    expect(bytes(versions[0]).equals(bytes(created))).toBe(true);
    expect(bytes(await alice.getKeyVersion('k1@1')).equals(bytes(rolled))).toBe(true);
    expect((await alice.getMetadata('k1'))?.versions).toBe(2);
    expect((await alice.getKeysMetadata(['k1', 'k0'])).map((m) => m?.versions)).toEqual([2, 1]);
  });

  it('24: generated EEKs decrypt deterministically to data keys of the key length', async () => {
    const kms = await start();
    const alice = kms.as('alice');
    const created = await alice.createKey('k1');
    const eeks = await alice.generateEncryptedKeys('k1', 2);
    expect(eeks).toHaveLength(2);
    for (const eek of eeks) {
      expect(eek.encryptionKeyName).toBe('k1');
      expect(eek.encryptionKeyVersionName).toBe('k1@0');
      expect(eek.encryptedKeyVersion.versionName).toBe('EEK');
      expect(bytes(eek.encryptedKeyVersion)).toHaveLength(16);
      expect(eek.iv).toHaveLength(16);
    }
    const [first, second] = eeks as [EncryptedKeyVersion, EncryptedKeyVersion];
    const dek = await alice.decryptEncryptedKey(first);
    expect(dek.versionName).toBe('EK');
    expect(bytes(dek)).toHaveLength(16);
    expect(bytes(await alice.decryptEncryptedKey(first)).equals(bytes(dek))).toBe(true);
    expect(bytes(await alice.decryptEncryptedKey(second)).equals(bytes(dek))).toBe(false);
    // AES-CTR under the flipped IV, computed here independently of the server.
    expect(bytes(dek).equals(ctr(bytes(created), first.iv, bytes(first.encryptedKeyVersion)))).toBe(true);
  });

  it('25: after rollover, reencrypt keeps the IV and the data key under the new version; a batch of 6 moves all', async () => {
    const kms = await start();
    const alice = kms.as('alice');
    await alice.createKey('k1');
    const eeks = await alice.generateEncryptedKeys('k1', 6);
    const deks = await Promise.all(eeks.map((e) => alice.decryptEncryptedKey(e)));
    await alice.rollNewVersion('k1');
    const first = eeks[0] as EncryptedKeyVersion;
    const moved = await alice.reencryptEncryptedKey(first);
    expect(moved.encryptionKeyName).toBe('k1');
    expect(moved.iv.equals(first.iv)).toBe(true);
    expect(moved.encryptionKeyVersionName).toBe('k1@1');
    expect(moved.encryptionKeyVersionName).not.toBe(first.encryptionKeyVersionName);
    expect(bytes(moved.encryptedKeyVersion).equals(bytes(first.encryptedKeyVersion))).toBe(false);
    expect(bytes(await alice.decryptEncryptedKey(moved)).equals(bytes(deks[0]))).toBe(true);

    const batch = await alice.reencryptEncryptedKeys(eeks);
    expect(batch).toHaveLength(6);
    expect(batch.map((e) => e.encryptionKeyVersionName)).toEqual(Array(6).fill('k1@1'));
    for (let i = 0; i < 6; i++) {
      expect((batch[i] as EncryptedKeyVersion).iv.equals((eeks[i] as EncryptedKeyVersion).iv)).toBe(true);
      expect(
        bytes(await alice.decryptEncryptedKey(batch[i] as EncryptedKeyVersion)).equals(bytes(deks[i])),
      ).toBe(true);
    }
  });

  it("26: after delete, decrypting an old EEK fails with '<version>' not found; the key is gone everywhere", async () => {
    const kms = await start();
    const alice = kms.as('alice');
    await alice.createKey('k1');
    await alice.rollNewVersion('k1');
    await alice.invalidateCache('k1');
    const eek = await alice.generateEncryptedKey('k1');
    expect(eek.encryptionKeyVersionName).toBe('k1@1');
    await alice.deleteKey('k1');
    const err = await failure(alice.decryptEncryptedKey(eek));
    expect(err.code).toBe('ERR_KMS_KEY_NOT_FOUND');
    expect(err.remoteMessage).toContain("'k1@1' not found");
    expect(await alice.getKeyVersion('k1@0')).toBeUndefined();
    expect(await alice.getMetadata('k1')).toBeUndefined();
    expect(await alice.getKeyNames()).toEqual([]);
    // Hadoop's KMS answers 500 here and fastpath's 404; the client reads both as a missing key.
    expect((await failure(alice.deleteKey('k1'))).code).toBe('ERR_KMS_KEY_NOT_FOUND');
  });

  it('27: a user in no operation ACL gets 403 AuthorizationException on every call', async () => {
    const kms = await start({ acls: { ...operationAcls(() => 'client'), ...DEFAULT_KEY_ACLS } });
    await kms.as('client').createKey('k');
    const nobody = kms.as('nobody');
    const material = Buffer.alloc(16, 1);
    const calls: Array<[string, () => Promise<unknown>]> = [
      ["'CREATE_KEY' on 'k2'", () => nobody.createKey('k2')],
      ["'CREATE_KEY' on 'k3'", () => nobody.createKey('k3', { material })],
      ["'ROLL_NEW_VERSION' on 'k'", () => nobody.rollNewVersion('k')],
      ["'ROLL_NEW_VERSION' on 'k'", () => nobody.rollNewVersion('k', { material })],
      ["'GET_KEYS'", () => nobody.getKeyNames()],
      ["'GET_KEYS_METADATA'", () => nobody.getKeysMetadata(['k'])],
      ["'GET_KEY_VERSION'", () => nobody.getKeyVersion('k@0')],
      ["'GET_CURRENT_KEY' on 'k'", () => nobody.getCurrentVersion('k')],
      ["'GET_METADATA' on 'k'", () => nobody.getMetadata('k')],
      ["'GET_KEY_VERSIONS' on 'k'", () => nobody.getKeyVersions('k')],
    ];
    for (const [what, call] of calls) {
      const err = await failure(call());
      expect(err).toMatchObject({
        code: 'ERR_KMS_ACCESS_DENIED',
        status: 403,
        remoteException: 'AuthorizationException',
        remoteClassName: 'org.apache.hadoop.security.authorize.AuthorizationException',
        remoteMessage: `User:nobody not allowed to do ${what}`,
      });
    }
    expect(await kms.as('client').getKeyNames()).toEqual(['k']);
  });

  it('28: CREATE or ROLLOVER without GET answers without material; material needs SET_KEY_MATERIAL', async () => {
    const byOp: Record<string, string> = {
      CREATE: 'creator,setter',
      ROLLOVER: 'roller',
      SET_KEY_MATERIAL: 'setter',
    };
    const kms = await start({
      acls: { ...operationAcls((op) => byOp[op] ?? 'reader'), ...DEFAULT_KEY_ACLS },
    });
    const created = await kms.as('creator').createKey('k');
    expect(created).toMatchObject({ name: 'k', versionName: 'k@0', material: null });
    const rolled = await kms.as('roller').rollNewVersion('k');
    expect(rolled).toMatchObject({ versionName: 'k@1', material: null });
    const material = Buffer.alloc(16, 7);
    expect((await failure(kms.as('creator').createKey('m', { material: new Redacted(material) }))).code).toBe(
      'ERR_KMS_ACCESS_DENIED',
    );
    expect((await kms.as('setter').createKey('m', { material })).material).toBeNull();
    expect(bytes(await kms.as('reader').getCurrentVersion('m')).equals(material)).toBe(true);
    const rollWithMaterial = await failure(kms.as('roller').rollNewVersion('k', { material }));
    expect(rollWithMaterial.remoteMessage).toBe("User:roller not allowed to do 'ROLL_NEW_VERSION' on 'k'");
  });

  it('29: after kms-acls.xml changes CREATE and GENERATE_EEK to foo, client is denied them without a restart', async () => {
    const kms = await start({
      acls: { ...operationAcls(() => 'client'), ...DEFAULT_KEY_ACLS },
      reloadableAcls: true,
    });
    const client = kms.as('client');
    await client.createKey('k');
    const eek = await client.generateEncryptedKey('k');
    await kms.setAcls({
      ...operationAcls((op) => (op === 'CREATE' || op === 'GENERATE_EEK' ? 'foo' : 'client')),
      ...DEFAULT_KEY_ACLS,
    });
    // The denial, not any error: a first attempt that ran before the reload created k2, and a
    // repeat would then fail as "already exists" (Hadoop reloads within a second, not at once).
    await waitFor(
      'the reloaded CREATE ACL',
      async () => {
        const result = await client.createKey('k2').catch((e: unknown) => e);
        return result instanceof KmsError && result.code === 'ERR_KMS_ACCESS_DENIED';
      },
      { timeoutMs: 15_000 },
    );
    expect((await failure(client.createKey('k3'))).code).toBe('ERR_KMS_ACCESS_DENIED');
    expect((await failure(client.generateEncryptedKeys('k'))).code).toBe('ERR_KMS_ACCESS_DENIED');
    expect((await failure(client.reencryptEncryptedKey(eek))).code).toBe('ERR_KMS_ACCESS_DENIED');
    expect((await failure(client.reencryptEncryptedKeys([eek]))).code).toBe('ERR_KMS_ACCESS_DENIED');
    expect((await client.decryptEncryptedKey(eek)).versionName).toBe('EK');
    expect((await kms.as('foo').createKey('k4')).versionName).toBe('k4@0');
  });

  it('30: a blacklisted user in the DECRYPT_EEK ACL cannot decrypt; others can', async () => {
    const kms = await start({
      acls: { ...operationAcls(() => '*'), 'hadoop.kms.blacklist.DECRYPT_EEK': 'hdfs', ...DEFAULT_KEY_ACLS },
    });
    await kms.as('client').createKey('k');
    const eek = await kms.as('client').generateEncryptedKey('k');
    const denied = await failure(kms.as('hdfs').decryptEncryptedKey(eek));
    expect(denied).toMatchObject({
      code: 'ERR_KMS_ACCESS_DENIED',
      status: 403,
      remoteMessage: "User:hdfs not allowed to do 'DECRYPT_EEK' on 'k'",
    });
    expect((await kms.as('client').decryptEncryptedKey(eek)).versionName).toBe('EK');
    expect(await kms.as('hdfs').generateEncryptedKeys('k', 1)).toHaveLength(1);
  });

  it('31: key ACLs: per key, ALL, whitelist, and defaults only for keys without their own ACLs', async () => {
    const kms = await start({
      acls: keyAclScenarioAcls(),
    });
    const createDenied = await failure(kms.as('bob').createKey('managed'));
    expect(createDenied).toMatchObject({
      code: 'ERR_KMS_ACCESS_DENIED',
      remoteMessage: 'User [bob] is not authorized to create key !!',
    });
    await kms.as('alice').createKey('managed');
    expect((await kms.as('bob').getMetadata('managed'))?.attributes).toEqual({ 'key.acl.name': 'managed' });
    const aliceRead = await failure(kms.as('alice').getMetadata('managed'));
    expect(aliceRead.remoteMessage).toBe(
      'User [alice] is not authorized to perform [READ] on key with ACL name [managed]!!',
    );
    // The whitelist's MANAGEMENT lets admin roll any key.
    expect((await kms.as('admin').rollNewVersion('managed')).versionName).toBe('managed@1');
    expect((await failure(kms.as('bob').rollNewVersion('managed'))).code).toBe('ERR_KMS_ACCESS_DENIED');

    const attributes = { 'key.acl.name': 'all_access' };
    expect((await failure(kms.as('dave').createKey('shared', { attributes }))).code).toBe(
      'ERR_KMS_ACCESS_DENIED',
    );
    await kms.as('carol').createKey('shared', { attributes });
    const eek = await kms.as('carol').generateEncryptedKey('shared');
    // fastpath goes beyond Hadoop: a key-ACL denial of generate is a 403; Hadoop's server-side
    // EEK queue reports it as a 500.
    expect((await failure(kms.as('dave').generateEncryptedKeys('shared'))).code).toBe(
      hadoop ? 'ERR_KMS_SERVER' : 'ERR_KMS_ACCESS_DENIED',
    );
    expect((await kms.as('dave').decryptEncryptedKey(eek)).versionName).toBe('EK');
    expect((await failure(kms.as('erin').decryptEncryptedKey(eek))).code).toBe('ERR_KMS_ACCESS_DENIED');

    await kms.as('carol').createKey('plain');
    expect((await kms.as('anyone').getMetadata('plain'))?.name).toBe('plain');
    const plainEek = await kms.as('anyone').generateEncryptedKey('plain');
    // No DECRYPT_EEK ACL for plain anywhere (no default either): denied.
    expect((await failure(kms.as('carol').decryptEncryptedKey(plainEek))).code).toBe('ERR_KMS_ACCESS_DENIED');
  });

  it('32: _invalidatecache after a rollover makes the next generate use the new version', async () => {
    const kms = await start();
    const alice = kms.as('alice');
    await alice.createKey('k1');
    expect((await alice.generateEncryptedKey('k1')).encryptionKeyVersionName).toBe('k1@0');
    await alice.rollNewVersion('k1');
    await alice.invalidateCache('k1');
    const after = await alice.generateEncryptedKeys('k1', 3);
    expect(after.map((e) => e.encryptionKeyVersionName)).toEqual(['k1@1', 'k1@1', 'k1@1']);
  });

  it('33, 34: a kms-dt token for renewer client1: only client1 renews it, anyone holding it cancels it', async () => {
    const kms = await start({ manualClock: true });
    const token = await kms.as('client').getDelegationToken({ renewer: 'client1' });
    expect(token).toMatchObject({ kind: 'kms-dt', owner: 'client', renewer: 'client1', realUser: '' });
    const byClient = await failure(kms.as('client').renewDelegationToken(token));
    // Both refuse with 403, the reason in the status line and no RemoteException body (as
    // Hadoop's authentication filter answers); the client reads the reason from there.
    expect(byClient).toMatchObject({ code: 'ERR_KMS_AUTHENTICATION_FAILED', status: 403 });
    expect(byClient.remoteMessage).toContain('with non-matching renewer');
    const first = await kms.as('client1').renewDelegationToken(token);
    expect(first).toBeGreaterThan(kms.now());
    await kms.advance(100);
    const second = await kms.as('client1').renewDelegationToken(token.toUrlString());
    expect(second).toBeGreaterThan(first);
    await kms.as('client').cancelDelegationToken(token);
    const afterCancel = await failure(kms.as('client1').renewDelegationToken(token));
    expect(afterCancel).toMatchObject({ code: 'ERR_KMS_AUTHENTICATION_FAILED', status: 403 });
    expect(afterCancel.remoteMessage).toContain('Renewal request for unknown token');
  });

  it('35: a valid token authenticates as its owner without user.name; once expired it is refused; a new one works', async () => {
    const kms = await start({
      manualClock: true,
      // As TestKMS: both 5 s (a token's first expiry is issue + renew interval, as in Hadoop).
      site: {
        'hadoop.kms.authentication.delegation-token.max-lifetime.sec': '5',
        'hadoop.kms.authentication.delegation-token.renew-interval.sec': '5',
      },
      // Only client may list keys: a call that succeeds with the token alone ran as client.
      acls: { ...operationAcls((op) => (op === 'GET_KEYS' ? 'client' : '*')), ...DEFAULT_KEY_ACLS },
    });
    await kms.as('client').createKey('k1');
    const token = await kms.as('client').getDelegationToken();
    const asToken = kms.withAuth({ delegationToken: token });
    expect(await asToken.getKeyNames()).toEqual(['k1']);
    const byParam = await kms.raw(
      'GET',
      `/kms/v1/keys/names?delegation=${encodeURIComponent(token.toUrlString())}`,
    );
    expect(byParam.status).toBe(200);
    expect(JSON.parse(byParam.body)).toEqual(['k1']);

    await kms.advance(6000);
    const expired = await failure(asToken.getKeyNames());
    expect(expired).toMatchObject({ code: 'ERR_KMS_AUTHENTICATION_FAILED', status: 403 });
    const fresh = await kms.as('client').getDelegationToken();
    expect(await kms.withAuth({ delegationToken: fresh }).getKeyNames()).toEqual(['k1']);
  });

  it('36: a token alone cannot get or renew tokens (bare 403 PseudoAuth); cancel needs no authentication', async () => {
    const kms = await start();
    const token = await kms.as('client').getDelegationToken({ renewer: 'client' });
    const asToken = kms.withAuth({ delegationToken: token });
    for (const call of [() => asToken.getDelegationToken(), () => asToken.renewDelegationToken(token)]) {
      const err = await failure(call());
      expect(err).toMatchObject({ code: 'ERR_KMS_AUTHENTICATION_REQUIRED', status: 403 });
      expect(err.remoteException).toBeUndefined();
    }
    const raw = await kms.raw('GET', '/kms/v1/?op=GETDELEGATIONTOKEN', {
      headers: { 'x-hadoop-delegation-token': token.toUrlString() },
    });
    expect(raw).toMatchObject({ status: 403, body: '' });
    expect(raw.headers['www-authenticate']).toBe('PseudoAuth');

    await kms.withAuth({}).cancelDelegationToken(token);
    expect((await failure(asToken.getKeyNames())).code).toBe('ERR_KMS_AUTHENTICATION_FAILED');
  });

  it('37: a wrong method or a missing token is 400; cancelling an invalid token is 404', async () => {
    const kms = await start();
    const wrongMethod = await kms.raw('PUT', '/kms/v1/?op=GETDELEGATIONTOKEN&user.name=client');
    expect(wrongMethod.status).toBe(400);
    expectStatusLine(
      wrongMethod,
      'Wrong HTTP method [PUT] for operation [GETDELEGATIONTOKEN], it should be [GET]',
    );
    expect((await kms.raw('GET', '/kms/v1/?op=CANCELDELEGATIONTOKEN&token=x')).status).toBe(400);
    const noToken = await kms.raw('PUT', '/kms/v1/?op=RENEWDELEGATIONTOKEN&user.name=client');
    expect(noToken.status).toBe(400);
    expectStatusLine(noToken, 'Operation [RENEWDELEGATIONTOKEN] requires the parameter [token]');
    // A well-formed token with a forged password.
    const real = await kms.as('client').getDelegationToken();
    const forged = KmsDelegationToken.fromUrlString(
      new Token({
        identifier: real.identifier,
        password: new Redacted(randomBytes(20)),
        kind: real.kind,
        service: real.service,
      }).toUrlString(),
    );
    const err = await failure(kms.withAuth({}).cancelDelegationToken(forged));
    expect(err).toMatchObject({ code: 'ERR_KMS_TOKEN_CANCEL_FAILED', status: 404 });
    // Both: no RemoteException body, the reason in the status line.
    expect(err.remoteMessage).toBe('Invalid delegation token, cannot cancel');
    // The real one is untouched.
    expect(await kms.withAuth({ delegationToken: real }).getKeyNames()).toEqual([]);
  });

  it('38: no user.name is 401 Authentication required with WWW-Authenticate: PseudoAuth, audited UNAUTHENTICATED', async () => {
    const kms = await start();
    const err = await failure(kms.withAuth({}).getKeyNames());
    expect(err).toMatchObject({ code: 'ERR_KMS_AUTHENTICATION_REQUIRED', status: 401 });
    const raw = await kms.raw('GET', '/kms/v1/keys/names');
    expect(raw.status).toBe(401);
    expect(raw.headers['www-authenticate']).toBe('PseudoAuth');
    expectRemoteMessage(raw.body, 'Authentication required');
    await waitFor(
      'an UNAUTHENTICATED audit line',
      () => kms.auditLines().some((l) => l.includes('UNAUTHENTICATED')),
      { timeoutMs: 15_000 },
    );
  });

  it("39: two KMSs sharing the signer secret accept each other's hadoop.auth cookie; without it bar is denied", async () => {
    // Hadoop shares the secret through ZooKeeper (signer.secret.provider=zookeeper); this server
    // takes a shared secret file instead, which gives the same sharing.
    const secretDir = mkdtempSync(join(tmpdir(), 'kms-client-secret-'));
    try {
      const secretFile = join(secretDir, 'signature.secret');
      writeFileSync(secretFile, randomBytes(32).toString('hex'), { mode: 0o600 });
      const options: KmsServerOptions = {
        site: { 'hadoop.kms.authentication.signature.secret.file': secretFile },
        acls: { ...operationAcls((op) => (op === 'GET_KEYS' ? 'foo' : '*')), ...DEFAULT_KEY_ACLS },
      };
      const kms1 = await start(options);
      const kms2 = await start(options);
      const first = await kms1.raw('GET', '/kms/v1/keys/names?user.name=foo');
      expect(first.status).toBe(200);
      const setCookie = ([] as string[]).concat(first.headers['set-cookie'] ?? []);
      const cookie = setCookie
        .map((c) => c.split(';')[0] as string)
        .find((c) => c.startsWith('hadoop.auth='));
      expect(cookie).toBeDefined();
      const second = await kms2.raw('GET', '/kms/v1/keys/names?user.name=bar', {
        headers: { cookie: cookie as string },
      });
      expect(second.status).toBe(200);
      expect(JSON.parse(second.body)).toEqual([]);
      expect(await failure(kms2.as('bar').getKeyNames())).toMatchObject({
        code: 'ERR_KMS_ACCESS_DENIED',
        status: 403,
      });
      // A server with its own secret does not take the cookie: bar is bar there.
      const stranger = await start({ acls: options.acls as Record<string, string> });
      const third = await stranger.raw('GET', '/kms/v1/keys/names?user.name=bar', {
        headers: { cookie: cookie as string },
      });
      expect(third.status).toBe(403);
    } finally {
      rmSync(secretDir, { recursive: true, force: true });
    }
  });

  it('40: proxy user client may act as foo and bar, not as foo1', async () => {
    const kms = await start({
      site: { 'hadoop.kms.proxyuser.client.users': 'foo,bar', 'hadoop.kms.proxyuser.client.hosts': '*' },
      acls: { ...operationAcls((op) => (op === 'GET_KEYS' ? 'foo' : '*')), ...DEFAULT_KEY_ACLS },
    });
    const asFoo = kms.withAuth({ user: 'client', doAs: 'foo' });
    await asFoo.createKey('k1');
    // GET_KEYS is foo's alone: success shows the call ran as foo.
    expect(await asFoo.getKeyNames()).toEqual(['k1']);
    expect((await failure(kms.as('client').getKeyNames())).code).toBe('ERR_KMS_ACCESS_DENIED');
    const token = await asFoo.getDelegationToken();
    expect(token).toMatchObject({ owner: 'foo', realUser: 'client' });
    expect((await kms.withAuth({ user: 'client', doAs: 'bar' }).getKeysMetadata(['k1']))[0]?.name).toBe('k1');
    const denied = await failure(kms.withAuth({ user: 'client', doAs: 'foo1' }).getKeyNames());
    expect(denied).toMatchObject({ code: 'ERR_KMS_ACCESS_DENIED', status: 403 });
  });

  it('41: key names with special characters work when URL-encoded', async () => {
    const kms = await start();
    const alice = kms.as('alice');
    const name = 'key %^[\n{]}|"<>\\';
    const created = await alice.createKey(name);
    expect(created.versionName).toBe(`${name}@0`);
    expect(await alice.getKeyNames()).toEqual([name]);
    expect((await alice.getMetadata(name))?.name).toBe(name);
    expect((await alice.rollNewVersion(name)).versionName).toBe(`${name}@1`);
    expect((await alice.getCurrentVersion(name))?.versionName).toBe(`${name}@1`);
    expect((await alice.getKeyVersion(`${name}@0`))?.name).toBe(name);
    await alice.invalidateCache(name);
    const eek = await alice.generateEncryptedKey(name);
    expect(eek.encryptionKeyName).toBe(name);
    expect((await alice.decryptEncryptedKey(eek)).name).toBe(name);
    await alice.deleteKey(name);
    expect(await alice.getKeyNames()).toEqual([]);
  });

  it('42: a wrong eek_op is 400', async () => {
    const kms = await start();
    await kms.as('alice').createKey('k1');
    const eek = await kms.as('alice').generateEncryptedKey('k1');
    const generate = await kms.raw('GET', '/kms/v1/key/k1/_eek?eek_op=bogus&user.name=alice');
    expect(generate.status).toBe(400);
    expect(remoteExceptionOf(generate.body).exception).toBe('IllegalArgumentException');
    const body = JSON.stringify({
      name: 'k1',
      iv: eek.iv.toString('base64url'),
      material: bytes(eek.encryptedKeyVersion).toString('base64url'),
    });
    const decrypt = await kms.raw('POST', '/kms/v1/keyversion/k1@0/_eek?eek_op=bogus&user.name=alice', {
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(decrypt.status).toBe(400);
  });
}
