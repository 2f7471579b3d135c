import { ManualClock } from '@fastpath/core';
import { zkGetChildren } from '@fastpath/zookeeper-fixture';
import { InvalidTokenError } from '../src/index.js';
import type { RouterZkDelegationTokenSecretManager } from '../src/zookeeper.js';
import { waitFor } from '@fastpath/test-support';
import { useZooKeeper } from '@fastpath/zookeeper-fixture/jest';
import { ManagerPool, TOKEN_MANAGER_ZOOKEEPER } from './support/zookeeper.js';

// The HDFS Router variant: token watchers off, the cache rebuilt from ZooKeeper on a schedule.
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

it.each([
  ['r1', 'r2'],
  ['r2', 'r1'],
])(
  'behaviour 18: created on %s, verified and renewed on the other, cancelled on the creator',
  async (first) => {
    const r1 = await pool.makeRouter({ tokenSyncIntervalMs: 200 });
    const r2 = await pool.makeRouter({ tokenSyncIntervalMs: 200 });
    const [creator, other] = first === 'r1' ? [r1, r2] : [r2, r1];
    const t = await creator.createToken({ owner: 'alice', renewer: 'router' });
    await other.verify(t);
    await other.renewToken(t, 'router');
    await creator.verify(t);
    await creator.cancelToken(t, 'alice');
    await expect(creator.verify(t)).rejects.toBeInstanceOf(InvalidTokenError);
    // The other router learns of it at its next rebuild.
    await waitFor('the other router to drop the cancelled token', () =>
      other.verify(t).then(
        () => false,
        () => true,
      ),
    );
  },
);

it('loads tokens at start and rebuilds on schedule, dropping the ones that are gone', async () => {
  const maker = await pool.make();
  const kept = await maker.createToken({ owner: 'alice', renewer: 'router' });
  const dropped = await maker.createToken({ owner: 'bob', renewer: 'router' });
  const r = await pool.makeRouter({ tokenSyncIntervalMs: 100 });
  expect(r.tokenCount).toBe(2);
  await maker.cancelToken(dropped, 'bob');
  const added = await maker.createToken({ owner: 'carol', renewer: 'router' });
  await waitFor(
    'a scheduled rebuild',
    () => r.tokenCount === 2 && r.cachedTokenInfo(r.decodeToken(added).identifier),
  );
  expect(r.cachedTokenInfo(r.decodeToken(dropped).identifier)).toBeUndefined();
  await r.verify(kept);
});

it("behaviour 19: a token renewed on a peer survives another router's expiry scan and still verifies there", async () => {
  const clock = new ManualClock(T0);
  const options = { clock, tokenRenewIntervalMs: 1000, tokenSyncIntervalMs: 600_000 };
  const r1: RouterZkDelegationTokenSecretManager = await pool.makeRouter(options);
  const r2 = await pool.makeRouter(options);
  const t = await r1.createToken({ owner: 'alice', renewer: 'router' });
  await r1.verify(t); // cached on r1 with renew date T0 + 1000
  clock.advance(900);
  expect(await r2.renewToken(t, 'router')).toBe(T0 + 1900);
  clock.advance(200); // past r1's cached renew date, before the renewed one
  const removed = await r1.removeExpiredTokens();
  expect(removed).toHaveLength(1); // dropped from r1's cache...
  const client = await pool.client();
  const seq = r1.decodeToken(t).identifier.sequenceNumber;
  expect(await zkGetChildren(client, r1.paths.tokensRoot)).toContain(`DT_${seq}`); // ...but not from ZooKeeper
  await r1.verify(t); // r1 has not synced: found again by the ZooKeeper read
  expect(r1.cachedTokenInfo(r1.decodeToken(t).identifier)?.renewDate).toBe(T0 + 1900);
});
