import { zkCreate, zkGetChildren, zkGetData } from '@fastpath/zookeeper-fixture';
import type { Client } from 'node-zookeeper-client';
import { encodeTokenNode, TokenStoreError, TokenStoreUnavailableError, type Token } from '../src/index.js';
import type { ZkDelegationTokenSecretManager } from '../src/zookeeper.js';
import { gate, waitFor } from '@fastpath/test-support';
import { useZooKeeper } from '@fastpath/zookeeper-fixture/jest';
import { ManagerPool, TOKEN_MANAGER_ZOOKEEPER } from './support/zookeeper.js';

// Creations that are ready to persist together go to ZooKeeper in one multi-operation: all
// confirmed, or all failed with nothing published and nothing half-written.
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

const N = 12;

/** Holds creations before persistence until `n` of them are there, then lets them go together. */
function holdTogether(n: number): {
  beforePersist: () => Promise<void>;
  allHeld: Promise<void>;
  release: () => void;
} {
  const g = gate();
  let arrived = 0;
  return {
    beforePersist: async () => {
      if (++arrived === n) g.arrive();
      await g.promise;
    },
    allHeld: g.reached,
    release: g.open,
  };
}

function metric(text: string, name: string): number {
  const m = new RegExp(`^${name.replace(/[{}"=]/g, '\\$&')} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : 0;
}

/** How many of `seqs` have a token node, from one listing (an atomic snapshot of the children). */
async function presentNodes(
  client: Client,
  m: ZkDelegationTokenSecretManager,
  seqs: number[],
): Promise<number> {
  const children = new Set(await zkGetChildren(client, m.paths.tokensRoot));
  return seqs.filter((s) => children.has(`DT_${s}`)).length;
}

it('creations ready together are written in one multi-operation, and each is verifiable after success', async () => {
  const hold = holdTogether(N);
  const m = await pool.make({ persistCoalescing: true, hooks: { beforePersist: hold.beforePersist } });
  const peer = await pool.make();
  const creations = Array.from({ length: N }, (_, i) =>
    m.createToken({ owner: `user${i}`, renewer: 'yarn' }),
  );
  await hold.allHeld;
  const before = await m.metrics.metrics();
  hold.release();
  const tokens: Token[] = await Promise.all(creations);
  const after = await m.metrics.metrics();
  const multi = 'token_manager_zookeeper_operation_seconds_count{operation="multi"}';
  expect(metric(after, multi) - metric(before, multi)).toBe(1);
  expect(
    metric(after, 'token_manager_persist_batch_size_sum') -
      metric(before, 'token_manager_persist_batch_size_sum'),
  ).toBe(N);
  const seqs = tokens.map((t) => m.decodeToken(t).identifier.sequenceNumber);
  expect(new Set(seqs).size).toBe(N);
  await Promise.all(tokens.map((t) => m.verify(t)));
  await Promise.all(tokens.map((t) => peer.verify(t)));
  const client = await pool.client();
  expect(await presentNodes(client, m, seqs)).toBe(N);
});

it('without coalescing, the same creations are written one request each', async () => {
  const hold = holdTogether(N);
  const m = await pool.make({ persistCoalescing: false, hooks: { beforePersist: hold.beforePersist } });
  const creations = Array.from({ length: N }, () => m.createToken({ owner: 'alice' }));
  await hold.allHeld;
  hold.release();
  await Promise.all(creations);
  const text = await m.metrics.metrics();
  expect(metric(text, 'token_manager_zookeeper_operation_seconds_count{operation="multi"}')).toBe(0);
  expect(
    metric(text, 'token_manager_zookeeper_operation_seconds_count{operation="create"}'),
  ).toBeGreaterThanOrEqual(N);
});

it('a batch holding a node that already exists fails every creation in it and writes none of them', async () => {
  const hold = holdTogether(N);
  const m = await pool.make({ persistCoalescing: true, hooks: { beforePersist: hold.beforePersist } });
  const peer = await pool.make();
  const client = await pool.client();
  const first = m.sequenceRange.current + 1;
  const seqs = Array.from({ length: N }, (_, i) => first + i);
  const conflict = seqs[5] as number;
  const foreign = encodeTokenNode({ identifier: Buffer.from([0]), renewDate: 1, password: Buffer.from('x') });
  await zkCreate(client, `${m.paths.tokensRoot}/DT_${conflict}`, foreign);

  const creations = Array.from({ length: N }, () => m.createToken({ owner: 'alice' }));
  await hold.allHeld;
  hold.release();
  const results = await Promise.allSettled(creations);
  for (const r of results) {
    expect(r.status).toBe('rejected');
    const reason = (r as PromiseRejectedResult).reason as TokenStoreError;
    expect(reason).toBeInstanceOf(TokenStoreError);
    expect(reason).toMatchObject({ code: 'ERR_TOKEN_STORE', zkCode: -110, retriable: false });
  }
  expect(await presentNodes(client, m, seqs)).toBe(1); // only the foreign node
  expect((await zkGetData(client, `${m.paths.tokensRoot}/DT_${conflict}`)).data.equals(foreign)).toBe(true);
  expect(m.tokenCount).toBe(0);
  expect(peer.tokenCount).toBe(0);
  expect(await m.metrics.metrics()).toContain(`token_manager_tokens_failed_total{operation="create"} ${N}`);

  const next = await m.createToken({ owner: 'alice' });
  await peer.verify(next);
});

it('a batch sent to a ZooKeeper paused past the session timeout fails entirely and leaves nothing behind', async () => {
  const hold = holdTogether(N);
  const quick = { sessionTimeoutMs: 1500, operationTimeoutMs: 800, connectionTimeoutMs: 800 };
  const m = await pool.make({
    ...quick,
    persistCoalescing: true,
    hooks: { beforePersist: hold.beforePersist },
  });
  const peer = await pool.make(quick);
  const client = await pool.client();
  const first = m.sequenceRange.current + 1;
  const seqs = Array.from({ length: N }, (_, i) => first + i);

  const creations = Array.from({ length: N }, () => m.createToken({ owner: 'alice' }));
  await hold.allHeld;
  await zk.fixture.pause(0);
  hold.release();
  const results = await Promise.allSettled(creations);
  for (const r of results) {
    expect(r.status).toBe('rejected');
    expect((r as PromiseRejectedResult).reason).toBeInstanceOf(TokenStoreUnavailableError);
    expect((r as PromiseRejectedResult).reason).toMatchObject({ retriable: true, outcomeUnknown: true });
  }
  expect(m.tokenCount).toBe(0);
  expect(m.pendingOrphanCleanups).toBe(N);
  // The fault itself: the server stays frozen for longer than the session timeout, so the session
  // the batch was sent on expires (the batch may or may not be applied when the server resumes).
  await new Promise((resolve) => setTimeout(resolve, 2 * quick.sessionTimeoutMs));
  await zk.fixture.resume(0);

  // Never half-written: at every look the batch is either wholly there or wholly gone; and once
  // the manager has reconnected, its cleanup makes it gone.
  const seen: number[] = [];
  await waitFor(
    'the failed batch to be gone from ZooKeeper',
    async () => {
      const present = await presentNodes(client, m, seqs);
      seen.push(present);
      return present === 0 && m.pendingOrphanCleanups === 0;
    },
    { timeoutMs: 20_000, intervalMs: 20 },
  );
  expect(seen.filter((count) => count !== 0 && count !== N)).toEqual([]);
  expect(m.tokenCount).toBe(0);
  await waitFor('the peer to reconnect', () => peer.connected, { timeoutMs: 20_000 });
  expect(peer.tokenCount).toBe(0);

  const next = await waitFor(
    'a creation after recovery',
    () => m.createToken({ owner: 'alice' }).catch(() => undefined),
    {
      timeoutMs: 20_000,
      intervalMs: 50,
    },
  );
  await m.verify(next);
  await waitFor('the peer to verify it', () => peer.verify(next).then(() => true), { timeoutMs: 20_000 });
});
