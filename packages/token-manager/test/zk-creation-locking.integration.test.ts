import { zkCreate, zkGetChildren, zkGetData } from '@fastpath/zookeeper-fixture';
import {
  decodeSharedCount,
  encodeTokenNode,
  TokenStoreError,
  type CreationLocking,
  type Token,
} from '../src/index.js';
import type { ZkDelegationTokenSecretManager } from '../src/zookeeper.js';
import { gate, isPending, waitFor } from '@fastpath/test-support';
import { useZooKeeper } from '@fastpath/zookeeper-fixture/jest';
import { ManagerPool, TOKEN_MANAGER_ZOOKEEPER } from './support/zookeeper.js';

// The six tests of HADOOP-20045, against a real ZooKeeper.
const zk = useZooKeeper(TOKEN_MANAGER_ZOOKEEPER);
let pool: ManagerPool;
beforeEach(() => {
  pool = new ManagerPool(zk);
});
afterEach(async () => {
  try {
    await zk.fixture.resume(0);
  } finally {
    await pool.close();
  }
});

const seqOf = (m: ZkDelegationTokenSecretManager, t: Token): number =>
  m.decodeToken(t).identifier.sequenceNumber;

describe('verification of a cached token while another creation is held', () => {
  type Hold = 'allocation (hook)' | 'persistence (hook)' | 'persistence (ZooKeeper paused)';
  const cases: Array<[CreationLocking, Hold]> = [];
  for (const mode of ['staged', 'global'] as const) {
    for (const hold of [
      'allocation (hook)',
      'persistence (hook)',
      'persistence (ZooKeeper paused)',
    ] as const) {
      cases.push([mode, hold]);
    }
  }

  it.each(cases)('%s creation, held in %s', async (creationLocking, hold) => {
    const held = gate();
    let armed = false;
    const take = async (): Promise<void> => {
      if (!armed) return;
      armed = false;
      if (hold === 'persistence (ZooKeeper paused)') {
        await zk.fixture.pause(0);
        held.arrive();
        return; // the write goes out to a server that answers nothing until resumed
      }
      held.arrive();
      await held.promise;
    };
    const m = await pool.make({
      creationLocking,
      // Every creation reserves a range, so each one passes through a refill.
      seqNumBatchSize: 1,
      // The pause must not look like a dead connection: generous bounds for this test.
      sessionTimeoutMs: 20_000,
      operationTimeoutMs: 20_000,
      hooks: hold === 'allocation (hook)' ? { beforeRefill: take } : { beforePersist: take },
    });
    const cached = await m.createToken({ owner: 'alice', renewer: 'yarn' });
    await m.verify(cached);
    expect(m.tokenCount).toBe(1);

    armed = true;
    const creation = m.createToken({ owner: 'bob', renewer: 'yarn' });
    await held.reached;
    const verification = m.verify(cached);
    if (creationLocking === 'staged') {
      // Never waits on the creator: resolves while the creation is still held.
      await expect(verification).resolves.toMatchObject({ owner: 'alice' });
      expect(await isPending(creation)).toBe(true);
    } else {
      // The pre-fix behaviour: the creator's write lock keeps the reader out.
      expect(await isPending(verification)).toBe(true);
      expect(await isPending(creation)).toBe(true);
    }
    if (hold === 'persistence (ZooKeeper paused)') await zk.fixture.resume(0);
    else held.open();
    const created = await creation;
    await expect(verification).resolves.toMatchObject({ owner: 'alice' });
    await m.verify(created);
  });
});

describe('unique sequence numbers across two managers creating concurrently', () => {
  it.each([
    [100, 10, 100],
    [1, 5, 100],
  ])('batch size %i: 2 managers × %i clients × %i creations', async (seqNumBatchSize, clients, perClient) => {
    const a = await pool.make({ seqNumBatchSize });
    const b = await pool.make({ seqNumBatchSize });
    const run = (m: ZkDelegationTokenSecretManager): Promise<Token[]> =>
      Promise.all(
        Array.from({ length: clients }, async () => {
          const mine: Token[] = [];
          for (let i = 0; i < perClient; i++) mine.push(await m.createToken({ owner: 'alice' }));
          return mine;
        }),
      ).then((lists) => lists.flat());
    const [fromA, fromB] = await Promise.all([run(a), run(b)]);
    const total = 2 * clients * perClient;
    const seqs = [...fromA.map((t) => seqOf(a, t)), ...fromB.map((t) => seqOf(b, t))];
    expect(new Set(seqs).size).toBe(total);

    const client = await pool.client();
    const counter = decodeSharedCount((await zkGetData(client, a.paths.seqNumRoot)).data);
    expect(Math.max(...seqs)).toBeLessThanOrEqual(counter);
    const nodes = await zkGetChildren(client, a.paths.tokensRoot);
    expect(nodes).toHaveLength(total);
    expect(new Set(nodes)).toEqual(new Set(seqs.map((s) => `DT_${s}`)));
    // Each manager verifies the other's tokens.
    await Promise.all(fromA.map((t) => b.verify(t)));
    await Promise.all(fromB.map((t) => a.verify(t)));
  });
});

describe('a failed persist publishes nothing', () => {
  it.each([
    ['ZkDelegationTokenSecretManager', false],
    ['RouterZkDelegationTokenSecretManager', true],
  ])(
    '%s: the creation fails, no cache entry, no znode of its own, a token failure counted',
    async (_name, router) => {
      const m = router
        ? await pool.makeRouter({ persistCoalescing: false })
        : await pool.make({ persistCoalescing: false });
      const peer = await pool.make();
      const client = await pool.client();
      const next = m.sequenceRange.current + 1;
      // Someone else's node already sits where the next token would go.
      const foreign = encodeTokenNode({
        identifier: Buffer.from([0]),
        renewDate: 1,
        password: Buffer.from('x'),
      });
      await zkCreate(client, `${m.paths.tokensRoot}/DT_${next}`, foreign);
      const before = m.tokenCount;

      const failure = await m.createToken({ owner: 'alice' }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(TokenStoreError);
      expect(failure).toMatchObject({ code: 'ERR_TOKEN_STORE', zkCode: -110, retriable: false });
      expect(m.tokenCount).toBe(before);
      expect((await zkGetData(client, `${m.paths.tokensRoot}/DT_${next}`)).data.equals(foreign)).toBe(true);
      expect(await m.metrics.metrics()).toContain('token_manager_tokens_failed_total{operation="create"} 1');

      // The manager goes on with the next number; the peer never saw a token for the failed one.
      const t = await m.createToken({ owner: 'alice' });
      expect(seqOf(m, t)).toBe(next + 1);
      await peer.verify(t);
      expect(peer.tokenCount).toBe(before + 1);
    },
  );
});

describe('an aborted range refill hands out nothing', () => {
  it('aborted while waiting to reserve: the counter is untouched and the next number comes from a new range', async () => {
    const held = gate();
    let armed = false;
    const m = await pool.make({
      seqNumBatchSize: 2,
      hooks: {
        beforeRefill: async () => {
          if (!armed) return;
          armed = false;
          held.arrive();
          await held.promise;
        },
      },
    });
    const client = await pool.client();
    const counter = async (): Promise<number> =>
      decodeSharedCount((await zkGetData(client, m.paths.seqNumRoot)).data);
    const first = await m.createToken({ owner: 'a' });
    const second = await m.createToken({ owner: 'a' });
    expect([seqOf(m, first), seqOf(m, second)]).toEqual([1, 2]);
    expect(await counter()).toBe(2);

    armed = true;
    const controller = new AbortController();
    const aborted = m.createToken({ owner: 'a' }, { signal: controller.signal });
    await held.reached;
    controller.abort(new Error('caller went away'));
    held.open();
    await expect(aborted).rejects.toMatchObject({ code: 'ERR_TOKEN_CREATION_ABORTED', retriable: true });
    // Hadoop's bug handed out 3 here, outside any reserved range; nothing was reserved or issued.
    expect(await counter()).toBe(2);
    expect(await zkGetChildren(client, m.paths.tokensRoot)).toHaveLength(2);

    const third = await m.createToken({ owner: 'a' });
    expect(seqOf(m, third)).toBe(3);
    expect(await counter()).toBe(4);
  });

  it('aborted while the compare-and-set is in flight: rejects at once, and no number outside a reserved range', async () => {
    const m = await pool.make({ seqNumBatchSize: 1, sessionTimeoutMs: 20_000, operationTimeoutMs: 20_000 });
    const peer = await pool.make({
      seqNumBatchSize: 1,
      sessionTimeoutMs: 20_000,
      operationTimeoutMs: 20_000,
    });
    const client = await pool.client();
    const first = await m.createToken({ owner: 'a' });

    await zk.fixture.pause(0);
    const controller = new AbortController();
    const aborted = m.createToken({ owner: 'a' }, { signal: controller.signal });
    expect(await isPending(aborted)).toBe(true);
    controller.abort(new Error('deadline'));
    await expect(aborted).rejects.toMatchObject({ code: 'ERR_TOKEN_CREATION_ABORTED' });
    await zk.fixture.resume(0);

    const issued = [
      first,
      ...(await Promise.all([m, peer, m, peer].map((x) => x.createToken({ owner: 'a' })))),
    ];
    const seqs = issued.map((t) => seqOf(m, t));
    expect(new Set(seqs).size).toBe(seqs.length);
    const counter = decodeSharedCount((await zkGetData(client, m.paths.seqNumRoot)).data);
    for (const seq of seqs) expect(seq).toBeLessThanOrEqual(counter);
    const nodes = new Set(await zkGetChildren(client, m.paths.tokensRoot));
    expect(nodes).toEqual(new Set(seqs.map((s) => `DT_${s}`)));
  });
});

it('a master-key roll between preparation and persistence leaves the token verifiable and renewable', async () => {
  const held = gate();
  let armed = false;
  const m = await pool.make({
    hooks: {
      beforePersist: async () => {
        if (!armed) return;
        armed = false;
        held.arrive();
        await held.promise;
      },
    },
  });
  const peer = await pool.make();
  armed = true;
  const creation = m.createToken({ owner: 'alice', renewer: 'yarn' });
  await held.reached;
  const keyOfToken = m.currentKeyId;
  await m.rollMasterKey(); // not blocked: the creation holds no lock while persisting
  expect(m.currentKeyId).not.toBe(keyOfToken);
  held.open();
  const token = await creation;
  expect(m.decodeToken(token).identifier.masterKeyId).toBe(keyOfToken);
  await m.verify(token);
  await peer.verify(token);
  await expect(peer.renewToken(token, 'yarn')).resolves.toBeGreaterThan(0);
  await m.renewToken(token, 'yarn');
});

describe('Router: creation with token watchers off', () => {
  it('publishes nothing before persistence, nor after it, and verifies at once through the cache-miss read', async () => {
    const held = gate();
    let armed = false;
    // No scheduled rebuild during the test: only creation and the cache-miss read may fill the cache.
    const r1 = await pool.makeRouter({
      tokenSyncIntervalMs: 600_000,
      hooks: {
        beforePersist: async () => {
          if (!armed) return;
          armed = false;
          held.arrive();
          await held.promise;
        },
      },
    });
    const r2 = await pool.makeRouter({ tokenSyncIntervalMs: 600_000 });
    armed = true;
    const creation = r1.createToken({ owner: 'alice', renewer: 'router' });
    await held.reached;
    expect(r1.tokenCount).toBe(0);
    held.open();
    const token = await creation;
    expect(r1.tokenCount).toBe(0); // not published after persistence either
    const misses = (text: string): number =>
      Number(/token_manager_cache_misses_total (\d+)/.exec(text)?.[1] ?? Number.NaN);
    const before = misses(await r1.metrics.metrics());
    await expect(r1.verify(token)).resolves.toMatchObject({ owner: 'alice' });
    expect(misses(await r1.metrics.metrics())).toBe(before + 1);
    expect(r1.tokenCount).toBe(1); // the cache-miss read filled the cache
    await r2.verify(token);
    await r2.renewToken(token, 'router');
    await r1.verify(token);
  });

  it('a rebuild does not bring back a token cancelled meanwhile', async () => {
    const r1 = await pool.makeRouter({ tokenSyncIntervalMs: 600_000 });
    const t = await r1.createToken({ owner: 'alice', renewer: 'router' });
    await r1.verify(t);
    const rebuild = r1.rebuildTokenCache();
    await r1.cancelToken(t, 'alice');
    await rebuild;
    await expect(r1.verify(t)).rejects.toMatchObject({ code: 'ERR_INVALID_TOKEN' });
    await waitFor('the next rebuild', () => r1.rebuildTokenCache().then(() => true));
    expect(r1.tokenCount).toBe(0);
  });
});
