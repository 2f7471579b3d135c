import { createHash, createHmac, randomBytes } from 'node:crypto';
import { ManualClock, Redacted } from '@fastpath/core';
import { zkCreate, zkGetChildren, zkGetData, zkMkdirp } from '@fastpath/zookeeper-fixture';
import type { ACL, Client } from 'node-zookeeper-client';
import {
  DelegationKey,
  DelegationTokenIdentifier,
  decodeSharedCount,
  encodeSharedCount,
  encodeTokenNode,
  Token,
} from '../src/index.js';
import { zkDtsmPaths } from '../src/zookeeper.js';
import { waitFor } from '@fastpath/test-support';
import { useZooKeeper } from '@fastpath/zookeeper-fixture/jest';
import { ManagerPool, TOKEN_MANAGER_ZOOKEEPER } from './support/zookeeper.js';

// Hadoop's znode layout and payloads, so a tree is interchangeable with Hadoop's; the watch-driven
// caches; restarts; ACLs.
const zk = useZooKeeper(TOKEN_MANAGER_ZOOKEEPER);
let pool: ManagerPool;
beforeEach(() => {
  pool = new ManagerPool(zk);
});
afterEach(async () => {
  await pool.close();
  expect(pool.warnings).toEqual([]);
});

const T0 = Date.parse('2024-03-01T00:00:00Z');
const DAY = 86_400_000;

function getAcl(client: Client, path: string): Promise<ACL[]> {
  return new Promise((resolve, reject) =>
    client.getACL(path, (error, acls) =>
      error ? reject(new Error(`getACL ${path} failed`, { cause: error })) : resolve(acls),
    ),
  );
}

it("writes Hadoop's znode layout and payloads", async () => {
  const m = await pool.make();
  const t = await m.createToken({ owner: 'alice', renewer: 'yarn' });
  const id = m.decodeToken(t).identifier;
  const client = await pool.client();
  const root = `/${pool.workingPath}/ZKDTSMRoot`;
  expect(m.paths).toEqual(zkDtsmPaths(pool.workingPath));
  expect((await zkGetChildren(client, root)).sort()).toEqual(
    ['ZKDTSMKeyIdRoot', 'ZKDTSMMasterKeyRoot', 'ZKDTSMSeqNumRoot', 'ZKDTSMTokensRoot'].sort(),
  );
  // Shared counters: 4-byte big-endian ints; the first range (0, 100] is reserved at start.
  const seqCounter = (await zkGetData(client, `${root}/ZKDTSMSeqNumRoot`)).data;
  expect(seqCounter).toEqual(Buffer.from([0, 0, 0, 100]));
  expect((await zkGetData(client, `${root}/ZKDTSMKeyIdRoot`)).data).toEqual(Buffer.from([0, 0, 0, 1]));
  // DK_<id>: the DelegationKey writable.
  const keys = await m.getAllKeys();
  const stored = DelegationKey.decode((await zkGetData(client, `${root}/ZKDTSMMasterKeyRoot/DK_1`)).data);
  expect(stored.equals(keys[0] as DelegationKey)).toBe(true);
  expect(stored.key?.unwrap()).toHaveLength(8);
  // DT_<seq>: identifier bytes, renew date (int64 BE), password length (int32 BE), password.
  expect(id.sequenceNumber).toBe(1);
  expect(await zkGetChildren(client, `${root}/ZKDTSMTokensRoot`)).toEqual(['DT_1']);
  const node = (await zkGetData(client, `${root}/ZKDTSMTokensRoot/DT_1`)).data;
  const n = t.identifier.length;
  expect(node.subarray(0, n).equals(t.identifier)).toBe(true);
  expect(Number(node.readBigInt64BE(n))).toBe(m.cachedTokenInfo(id)?.renewDate);
  expect(node.readInt32BE(n + 8)).toBe(20);
  expect(node.subarray(n + 12).equals(t.password.unwrap())).toBe(true);
  expect(node).toHaveLength(n + 12 + 20);
});

it('works on a tree Hadoop wrote: verifies and renews its tokens and continues its counters', async () => {
  const client = await pool.client();
  const p = zkDtsmPaths(pool.workingPath);
  const now = Date.now();
  await zkMkdirp(client, p.root);
  await zkCreate(client, p.seqNumRoot, encodeSharedCount(500));
  await zkCreate(client, p.keyIdRoot, encodeSharedCount(7));
  await zkCreate(client, p.masterKeyRoot);
  await zkCreate(client, p.tokensRoot);
  const key = new DelegationKey({ keyId: 7, expiryDate: now + 10 * DAY, key: randomBytes(8) });
  await zkCreate(client, `${p.masterKeyRoot}/DK_7`, key.encode());
  const identifier = new DelegationTokenIdentifier('kms-dt', {
    owner: 'hdfs',
    renewer: 'yarn',
    realUser: '',
    issueDate: now,
    maxDate: now + 7 * DAY,
    sequenceNumber: 480,
    masterKeyId: 7,
  });
  const password = createHmac('sha1', key.key?.unwrap() as Buffer)
    .update(identifier.bytes)
    .digest();
  await zkCreate(
    client,
    `${p.tokensRoot}/DT_480`,
    encodeTokenNode({ identifier: identifier.bytes, renewDate: now + DAY, password }),
  );
  const token = new Token({
    identifier: identifier.bytes,
    password: new Redacted(password),
    kind: 'kms-dt',
    service: '',
  });

  const m = await pool.make();
  expect(m.tokenCount).toBe(1); // loaded at start
  expect((await m.verify(token.toUrlString())).owner).toBe('hdfs');
  expect(await m.renewToken(token, 'yarn')).toBeGreaterThan(now);
  const mine = await m.createToken({ owner: 'alice' });
  const mineId = m.decodeToken(mine).identifier;
  expect(mineId.sequenceNumber).toBe(501);
  expect(mineId.masterKeyId).toBe(8);
  expect(decodeSharedCount((await zkGetData(client, p.seqNumRoot)).data)).toBe(600);
  expect(decodeSharedCount((await zkGetData(client, p.keyIdRoot)).data)).toBe(8);
});

describe('sequence ranges (behaviour 15)', () => {
  it.each([
    [1000, [1, 2], [1001, 1002]],
    [100, [1, 2], [101, 102]],
  ])('batch %i: A issues %j, B started afterwards issues %j', async (seqNumBatchSize, fromA, fromB) => {
    const a = await pool.make({ seqNumBatchSize });
    const a1 = await a.createToken({ owner: 'x' });
    const a2 = await a.createToken({ owner: 'x' });
    const b = await pool.make({ seqNumBatchSize });
    const b1 = await b.createToken({ owner: 'x' });
    const b2 = await b.createToken({ owner: 'x' });
    const seq = (t: Token): number => a.decodeToken(t).identifier.sequenceNumber;
    expect([seq(a1), seq(a2)]).toEqual(fromA);
    expect([seq(b1), seq(b2)]).toEqual(fromB);
  });
});

it('restart (behaviour 16): live tokens are loaded, a cancelled one is not, an expired one goes with the scan', async () => {
  const clock = new ManualClock(T0);
  const options = {
    clock,
    tokenRenewIntervalMs: 5000,
    keyUpdateIntervalMs: 5000,
    removalScanIntervalMs: 1000,
  };
  const first = await pool.make(options);
  const live = await first.createToken({ owner: 'alice', renewer: 'yarn' });
  const cancelled = await first.createToken({ owner: 'alice', renewer: 'yarn' });
  const expiring = await first.createToken({ owner: 'alice', renewer: 'yarn' });
  await first.cancelToken(cancelled, 'alice');
  clock.advance(3000);
  await first.renewToken(live, 'yarn');
  await first.stop();

  const second = await pool.make(options);
  expect(second.tokenCount).toBe(2);
  await second.verify(live);
  await expect(second.verify(cancelled)).rejects.toMatchObject({ reason: 'not-found' });
  clock.advance(3000); // `expiring` is past its renew date, `live` is not
  const removed = await second.removeExpiredTokens();
  expect(removed.map((id) => id.sequenceNumber)).toEqual([
    second.decodeToken(expiring).identifier.sequenceNumber,
  ]);
  const client = await pool.client();
  expect(await zkGetChildren(client, second.paths.tokensRoot)).toEqual([
    `DT_${second.decodeToken(live).identifier.sequenceNumber}`,
  ]);
  await second.verify(live);
});

describe('watch-driven caches', () => {
  it('a token created, renewed and cancelled on A shows in B without B asking', async () => {
    const clock = new ManualClock(T0);
    const a = await pool.make({ clock });
    const b = await pool.make({ clock });
    const t = await a.createToken({ owner: 'alice', renewer: 'yarn' });
    const id = a.decodeToken(t).identifier;
    const seen = await waitFor('B to cache the new token', () => b.cachedTokenInfo(id));
    expect(seen.renewDate).toBe(T0 + DAY);
    expect(b.getTopTokenRealOwners(1)).toEqual([{ owner: 'alice', count: 1 }]);
    clock.advance(1000);
    const renewed = await a.renewToken(t, 'yarn');
    await waitFor('B to see the renewal', () => b.cachedTokenInfo(id)?.renewDate === renewed);
    await a.cancelToken(t, 'alice');
    await waitFor('B to drop the cancelled token', () => b.cachedTokenInfo(id) === undefined);
    expect(b.getTokenOwnerStats().size).toBe(0);
  });

  it('master keys rolled or removed on A show in B', async () => {
    const clock = new ManualClock(T0);
    const options = { clock, keyUpdateIntervalMs: 1000, tokenMaxLifetimeMs: 2000 };
    const a = await pool.make(options);
    const b = await pool.make(options);
    const ids = async (): Promise<number[]> =>
      (await b.getAllKeys()).map((k) => k.keyId).sort((x, y) => x - y);
    await waitFor('B to know both start keys', async () => (await ids()).join() === '1,2');
    await a.rollMasterKey();
    await waitFor('B to see the new key', async () => (await ids()).join() === '1,2,3');
    const retired = (await b.getAllKeys()).find((k) => k.keyId === 1);
    expect(retired?.expiryDate).toBe(T0 + 2000); // re-stored with its new expiry
    clock.advance(3001); // keys 1 (retired, T0+2000) and 2 (B's current... expiry T0+3000) expire
    await a.rollMasterKey(); // removes expired key 1 (A's retired key) from ZooKeeper
    await waitFor('B to forget the removed key', async () => !(await ids()).includes(1));
  });
});

it('digest ACL (behaviour 17): every znode carries exactly that ACL, and others cannot read tokens', async () => {
  const digest = { username: 'kms', password: 'secret-pw' };
  const m = await pool.make({ authType: 'digest', digest });
  const t = await m.createToken({ owner: 'alice' });
  const seq = m.decodeToken(t).identifier.sequenceNumber;
  const client = await pool.client();
  const authenticated = await pool.client();
  authenticated.addAuthInfo('digest', Buffer.from('kms:secret-pw'));
  const expected = `kms:${createHash('sha1').update('kms:secret-pw').digest('base64')}`;
  for (const path of [
    m.paths.workingPath,
    m.paths.root,
    m.paths.tokensRoot,
    `${m.paths.tokensRoot}/DT_${seq}`,
  ]) {
    const acls = await getAcl(authenticated, path);
    expect(
      acls.map((a) => ({
        perms: (a as unknown as { permission: number }).permission,
        scheme: a.id.scheme,
        id: a.id.id,
      })),
    ).toEqual([{ perms: 31, scheme: 'digest', id: expected }]);
  }
  await expect(zkGetData(client, `${m.paths.tokensRoot}/DT_${seq}`)).rejects.toMatchObject({ zkCode: -102 });
  // A second manager with the same credentials shares the tree.
  const peer = await pool.make({
    authType: 'digest',
    digest: { username: 'kms', password: new Redacted('secret-pw') },
  });
  await peer.verify(t);
  expect(String(peer.acl[0]?.id.id)).toBe(expected);
});

it('records ZooKeeper operation latency and lock metrics', async () => {
  const m = await pool.make();
  const t = await m.createToken({ owner: 'alice' });
  await m.verify(t);
  const text = await m.metrics.metrics();
  for (const series of [
    'token_manager_zookeeper_operation_seconds_count{operation="create"}',
    'token_manager_zookeeper_operation_seconds_count{operation="setData"}',
    'token_manager_zookeeper_operation_seconds_count{operation="addWatch"}',
    'token_manager_create_persist_seconds_count 1',
    'core_lock_hold_seconds_count{lock="token-manager-allocator",mode="exclusive"} 1',
    'core_lock_wait_seconds_count{lock="token-manager-global",mode="write"}',
  ]) {
    expect(text).toContain(series);
  }
});
