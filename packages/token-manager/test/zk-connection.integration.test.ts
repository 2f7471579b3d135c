import { zkGetChildren, zkGetData } from '@fastpath/zookeeper-fixture';
import { decodeTokenNode, TokenStoreUnavailableError, type Token } from '../src/index.js';
import {
  ZkDelegationTokenSecretManager,
  type ZkDelegationTokenSecretManagerOptions,
} from '../src/zookeeper.js';
import { waitFor } from '@fastpath/test-support';
import { useZooKeeper } from '@fastpath/zookeeper-fixture/jest';
import { ManagerPool, TOKEN_MANAGER_ZOOKEEPER } from './support/zookeeper.js';

// Connection loss and session expiry: retriable errors while ZooKeeper is out of reach, cached
// tokens keep verifying, and the manager recovers by itself.
const quick = { sessionTimeoutMs: 1500, operationTimeoutMs: 800, connectionTimeoutMs: 800 };

const retriableFailure = async (p: Promise<unknown>): Promise<TokenStoreUnavailableError> => {
  const outcome = await p.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(TokenStoreUnavailableError);
  expect(outcome).toMatchObject({ code: 'ERR_TOKEN_STORE_UNAVAILABLE', retriable: true });
  return outcome as TokenStoreUnavailableError;
};

describe('a standalone ZooKeeper that stops answering', () => {
  const zk = useZooKeeper(TOKEN_MANAGER_ZOOKEEPER);
  let pool: ManagerPool;
  beforeEach(() => {
    pool = new ManagerPool(zk);
  });
  afterEach(async () => {
    try {
      if (zk.fixture.nodes[0]?.state === 'paused') await zk.fixture.resume(0);
      if (zk.fixture.nodes[0]?.state === 'stopped') await zk.fixture.restart(0);
    } finally {
      await pool.close();
    }
  });

  it('paused past the session timeout: retriable errors, cached tokens still verify, then recovery', async () => {
    const m = await pool.make(quick);
    const peer = await pool.make({ ...quick, tokenWatcherEnabled: false });
    const cached = await m.createToken({ owner: 'alice', renewer: 'yarn' });
    await m.verify(cached);

    await zk.fixture.pause(0);
    await retriableFailure(m.createToken({ owner: 'bob' }));
    expect(m.connected).toBe(false);
    await m.verify(cached); // from the cache, no ZooKeeper needed
    await retriableFailure(m.renewToken(cached, 'yarn'));
    await retriableFailure(peer.verify(cached)); // a cache miss needs ZooKeeper: retriable, not "invalid"
    // The fault: frozen for longer than the session timeout, so the sessions expire.
    await new Promise((resolve) => setTimeout(resolve, 2 * quick.sessionTimeoutMs));
    await zk.fixture.resume(0);

    const fresh = await waitFor(
      'a creation after recovery',
      () => m.createToken({ owner: 'bob' }).catch(() => undefined),
      {
        timeoutMs: 20_000,
        intervalMs: 50,
      },
    );
    expect(m.connected).toBe(true);
    await waitFor('the peer to recover', () => peer.verify(fresh).then(() => true), { timeoutMs: 20_000 });
    await peer.verify(cached);
    await m.renewToken(cached, 'yarn');
    // The watches are back: a token made by the peer reaches this manager's cache unasked.
    const fromPeer = await peer.createToken({ owner: 'carol' });
    await waitFor('the recovered watch to deliver it', () =>
      m.cachedTokenInfo(m.decodeToken(fromPeer).identifier),
    );
  });

  it('killed and restarted: the manager reconnects and its tokens survive', async () => {
    const m = await pool.make(quick);
    const before = await m.createToken({ owner: 'alice' });
    await zk.fixture.kill(0);
    await retriableFailure(m.createToken({ owner: 'alice' }));
    await zk.fixture.restart(0);
    const after = await waitFor(
      'a creation after the restart',
      () => m.createToken({ owner: 'alice' }).catch(() => undefined),
      {
        timeoutMs: 20_000,
        intervalMs: 50,
      },
    );
    await m.verify(before);
    await m.verify(after);
  });

  it('cannot start without a ZooKeeper: a retriable error after its bounded attempts', async () => {
    const m = new ZkDelegationTokenSecretManager({
      connectionString: '127.0.0.1:1',
      connectionTimeoutMs: 200,
      connectRetries: 1,
      taskIntervalMs: 0,
    });
    await retriableFailure(m.start());
    expect(m.running).toBe(false);
  });
});

describe('a 3-node ensemble whose leader is killed while tokens are created', () => {
  const ensemble = useZooKeeper({ fixture: { ...TOKEN_MANAGER_ZOOKEEPER.fixture, nodes: 3 } });
  let ensemblePool: ManagerPool | undefined;
  // Before the ensemble stops (useZooKeeper's afterAll), so the managers stop against a live one.
  afterEach(async () => {
    await ensemblePool?.close();
  });

  it('hands out no sequence number twice and reports no token that ZooKeeper does not hold', async () => {
    const pool = new ManagerPool(ensemble);
    ensemblePool = pool;
    const options: Partial<ZkDelegationTokenSecretManagerOptions> = {
      sessionTimeoutMs: 4000,
      operationTimeoutMs: 2000,
      connectionTimeoutMs: 1000,
      seqNumBatchSize: 20,
    };
    const a = await pool.make(options);
    const b = await pool.make(options);
    const created: Token[] = [];
    const failures: unknown[] = [];
    const perClient = 60;
    let killed = false;
    const client = async (m: ZkDelegationTokenSecretManager): Promise<void> => {
      let mine = 0;
      while (mine < perClient) {
        try {
          created.push(await m.createToken({ owner: 'alice' }));
          mine++;
        } catch (error) {
          failures.push(error);
          if (!(error instanceof TokenStoreUnavailableError)) throw error;
          // A short pause before retrying, as any client of a store that is failing over would.
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
      }
    };
    const load = Promise.all([a, a, a, b, b, b].map((m) => client(m)));
    await waitFor('some tokens before the kill', () => created.length >= 60, { timeoutMs: 30_000 });
    const leader = await ensemble.fixture.leader();
    await ensemble.fixture.kill(leader);
    killed = true;
    await load;
    expect(killed).toBe(true);
    expect(created).toHaveLength(6 * perClient);

    const seqs = created.map((t) => a.decodeToken(t).identifier.sequenceNumber);
    expect(new Set(seqs).size).toBe(seqs.length);
    const zkClient = await pool.client();
    const nodes = new Set(await zkGetChildren(zkClient, a.paths.tokensRoot));
    const missing = seqs.filter((s) => !nodes.has(`DT_${s}`));
    expect(missing).toEqual([]);
    // Each reported token is the one stored (same identifier bytes and password).
    for (const t of created.slice(0, 50)) {
      const seq = a.decodeToken(t).identifier.sequenceNumber;
      const stored = decodeTokenNode(
        'kms-dt',
        (await zkGetData(zkClient, `${a.paths.tokensRoot}/DT_${seq}`)).data,
      );
      expect(stored.identifier.bytes.equals(t.identifier)).toBe(true);
      expect(stored.password.equals(t.password.unwrap())).toBe(true);
    }
    await waitFor(
      'both managers to verify every token',
      async () => {
        await Promise.all(created.map((t) => a.verify(t)));
        await Promise.all(created.map((t) => b.verify(t)));
        return true;
      },
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    // Failures during the fail-over were all of the retriable kind.
    expect(failures.filter((f) => !(f instanceof TokenStoreUnavailableError))).toEqual([]);
  });
});
