// Block tokens that stop passing while a key is open, on the embedded secure cluster (a real MIT
// KDC, datanodes checking every command's token): tokens past their lifetime make a read look
// the key up again once and carry on with the new tokens, on the ReadChunk path of positional
// reads and on the streaming ReadBlock path; datanodes that refuse every token give the typed
// error after that one lookup, never a loop. A write asks for no new token: its data moves to a
// new block, as Java's writer does on any container error. With read workers, the stream on the
// caller's thread makes the lookup for its workers' copies: one for all of them.
import { setTimeout as sleep } from 'node:timers/promises';
import { Token } from '@fastpath/hadoop-common';
import { useKdc } from '@fastpath/kerberos-fixture/jest';
import { setNativeEnvironment } from '@fastpath/kerberos-fixture';
import {
  createOzoneClient,
  newFileSystemInstance,
  OmStatusError,
  OzoneClosedError,
  ReplicasExhaustedError,
  type KeyBlockLocation,
  type KeyInputStream,
  type OzoneClient,
  type OzoneClientConfig,
} from '@fastpath/ozone-fs-client';
import { type MiniOzoneCluster, startMiniOzoneCluster } from '@fastpath/ozone-fs-client/testing';
import { contractKeyBytes } from '@fastpath/ozone-fs-client/testing/contract';
import { waitFor } from '@fastpath/test-support';
import { dn, hdds, om } from '../src/internal/proto/wire.js';
import { secureOmProperties } from './support/secure-om-login.js';

jest.setTimeout(120_000);

/** Long enough for a key to be written and first read with its tokens, short enough to wait out. */
const TOKEN_LIFETIME_MS = 4_000;
const KiB = 1024;

const kdc = useKdc({ processEnv: true });
let cluster: MiniOzoneCluster;
const clients: OzoneClient[] = [];
/** Two blocks of four chunks. */
const data = contractKeyBytes(1024 * KiB, 17);
/** One block, for the streaming reads. */
const small = contractKeyBytes(300 * KiB, 29);

function client(config: Partial<OzoneClientConfig> = {}): OzoneClient {
  const c = createOzoneClient({
    properties: {
      'ozone.om.address': cluster.omRpcAddress,
      ...secureOmProperties(kdc.realm, 'authentication'),
    },
    omTimeoutMs: 10_000,
    security: { kerberos: true },
    config,
  });
  clients.push(c);
  return c;
}

beforeAll(async () => {
  const principal = kdc.principal('om/localhost');
  cluster = await startMiniOzoneCluster({
    // Five for an erasure-coded key (rs-3-2); replicated blocks go to the first three.
    datanodes: 5,
    security: {
      kerberos: { principal, keytab: await kdc.keytab([principal]) },
      blockTokens: true,
      blockTokenLifetimeMs: TOKEN_LIFETIME_MS,
    },
  });
  await setNativeEnvironment({ KRB5CCNAME: await kdc.kinit('alice') });
  const alice = client();
  await alice.createVolume('tokvol');
  await alice.createBucket('tokvol', 'bkt');
  const out = await alice.createKey('tokvol', 'bkt', 'two-blocks', {
    chunkSizeBytes: 128 * KiB,
    blockSizeBytes: 512 * KiB,
  });
  await out.write(data);
  await out.close();
  await alice.writeKey('tokvol', 'bkt', 'one-block', small);
});

afterAll(async () => {
  for (const c of clients) c.close();
  await cluster?.close();
});

afterEach(() => {
  for (const d of cluster.datanodes) d.refuseBlockTokens(false);
  cluster.om.clearFaults();
});

/** Every replica of the cluster refusing block tokens in total. */
const refusals = () => cluster.datanodes.reduce((n, d) => n + d.counters.blockTokenRefusals, 0);
const lookups = () => cluster.om.requests.get('GetKeyInfo') ?? 0;

/** The client's `ozone_client_block_token_refreshes_total` (0 while it has none). */
async function refreshMetric(c: OzoneClient): Promise<number> {
  const m = /^ozone_client_block_token_refreshes_total\{client="[0-9a-f]+"\} (\d+)$/m.exec(
    await c.metrics.metrics(),
  );
  return Number(m?.[1] ?? 0);
}

/**
 * Waits until the given blocks' tokens are past the expiry written in them, after which the
 * datanodes refuse them: a known instant, so a wait for it rather than a poll.
 */
async function tokensExpired(blocks: readonly KeyBlockLocation[]): Promise<void> {
  const expiry = Math.max(
    ...blocks.map((b) =>
      Number(
        hdds.BlockTokenSecretProto.decode(Token.fromUrlString(b.encodedToken as string).identifier)
          .expiryDate,
      ),
    ),
  );
  const waitMs = expiry + 1 - Date.now();
  // A token issued in this very millisecond leaves its whole lifetime and the 1 ms past it.
  expect(waitMs).toBeLessThanOrEqual(TOKEN_LIFETIME_MS + 1);
  if (waitMs > 0) await sleep(waitMs);
}

function refuseEverywhere(): void {
  for (const d of cluster.datanodes) d.refuseBlockTokens(true);
}

function expectRefusedAfterOneLookup(err: unknown, attempts: number): void {
  expect(err).toBeInstanceOf(ReplicasExhaustedError);
  const { attempts: tried } = err as ReplicasExhaustedError;
  expect(tried).toHaveLength(attempts);
  for (const a of tried) expect(a).toMatchObject({ result: 'BLOCK_TOKEN_VERIFICATION_FAILED' });
}

/**
 * With every datanode refusing every token: a positional read of `c` fails typed after one
 * lookup (GetBlock on each of the three replicas with the token from the open, then with the new
 * one), and the next read of the stream gets its own lookup and its own typed error.
 */
async function expectEveryReadRefusedAfterOneLookup(c: OzoneClient): Promise<void> {
  const stream = await c.openKey('tokvol', 'bkt', 'one-block');
  try {
    refuseEverywhere();
    const [lookupsBefore, refusalsBefore] = [lookups(), refusals()];
    expectRefusedAfterOneLookup(await stream.readFully(0, 100).catch((e: unknown) => e), 6);
    expect(refusals()).toBe(refusalsBefore + 6);
    expect(stream.stats.locationRefreshes).toBe(1);
    expect(lookups()).toBe(lookupsBefore + 1);
    expect(await refreshMetric(c)).toBe(1);
    expectRefusedAfterOneLookup(await stream.readFully(0, 100).catch((e: unknown) => e), 6);
    expect(stream.stats.locationRefreshes).toBe(2);
    expect(lookups()).toBe(lookupsBefore + 2);
  } finally {
    stream.close();
  }
}

describe('a block token past its lifetime', () => {
  it('a positional read looks the key up once and reads with the new tokens (ReadChunk)', async () => {
    const c = client();
    const stream = await c.openKey('tokvol', 'bkt', 'two-blocks');
    try {
      // Both blocks' GetBlock done while the tokens pass: what follows is ReadChunk only.
      expect((await stream.readFully(0, 10)).equals(data.subarray(0, 10))).toBe(true);
      expect((await stream.readFully(600 * KiB, 10)).equals(data.subarray(600 * KiB, 600 * KiB + 10))).toBe(
        true,
      );
      const before = stream.blocks.map((b) => b.encodedToken);
      await tokensExpired(stream.blocks);
      const [lookupsBefore, refusalsBefore, getBlocks] = [lookups(), refusals(), stream.stats.getBlockCalls];

      // Across both blocks and several chunks of each: every ReadChunk refused, one lookup shared.
      const got = await stream.readFully(100 * KiB, 900 * KiB);
      expect(got.equals(data.subarray(100 * KiB, 1000 * KiB))).toBe(true);
      expect(stream.stats.locationRefreshes).toBe(1);
      expect(lookups()).toBe(lookupsBefore + 1);
      expect(await refreshMetric(c)).toBe(1);
      expect(refusals()).toBeGreaterThan(refusalsBefore);
      expect(stream.stats.getBlockCalls).toBe(getBlocks);
      // As Ozone's RpcClient asks for it: the OM to refresh its container cache from SCM first.
      const asked = cluster.om.exchanges
        .map((e) => om.OMRequest.decode(e.request))
        .filter((r) => r.cmdType === om.Type.GetKeyInfo)
        .at(-1);
      expect(asked?.GetKeyInfoRequest?.keyArgs).toMatchObject({
        keyName: 'two-blocks',
        forceUpdateContainerCacheFromSCM: true,
      });
      const after = stream.blocks.map((b) => b.encodedToken);
      expect(after.every((t, i) => t !== undefined && t !== before[i])).toBe(true);
    } finally {
      stream.close();
    }
  });

  it('a first read of the key, refused at GetBlock, looks it up once', async () => {
    const c = client();
    const stream = await c.openKey('tokvol', 'bkt', 'two-blocks');
    try {
      await tokensExpired(stream.blocks);
      const lookupsBefore = lookups();
      expect((await stream.readFully(0, data.length)).equals(data)).toBe(true);
      expect(stream.stats.locationRefreshes).toBe(1);
      expect(lookups()).toBe(lookupsBefore + 1);
      expect(await refreshMetric(c)).toBe(1);
    } finally {
      stream.close();
    }
  });

  it('a streaming ReadBlock looks the key up once and reads with the new token', async () => {
    const c = client({ streamReadBlockEnabled: true });
    const stream = await c.openKey('tokvol', 'bkt', 'one-block');
    try {
      expect((await stream.readFully(0, 10)).equals(small.subarray(0, 10))).toBe(true);
      // The stream left open holds what the datanode already let through: ended, the next read
      // needs a new ReadBlock, which carries the token.
      stream.unbuffer();
      await tokensExpired(stream.blocks);
      const [lookupsBefore, readBlocks] = [lookups(), stream.stats.readBlockCalls];

      const got = await stream.readFully(10, small.length - 10);
      expect(got.equals(small.subarray(10))).toBe(true);
      expect(stream.stats).toMatchObject({ locationRefreshes: 1, readChunkCalls: 0, getBlockCalls: 1 });
      // Every replica refused the old token, then the first one took the new one.
      expect(stream.stats.readBlockCalls).toBe(readBlocks + 3 + 1);
      expect(lookups()).toBe(lookupsBefore + 1);
      expect(await refreshMetric(c)).toBe(1);
    } finally {
      stream.close();
    }
  });

  it('a file read through its cursor (ofs, streaming ReadBlock) looks the key up once', async () => {
    const fs = newFileSystemInstance(`ofs://${cluster.omRpcAddress}`, {
      properties: secureOmProperties(kdc.realm, 'authentication'),
      security: { kerberos: true },
      config: { streamReadBlockEnabled: true },
    });
    try {
      const file = await fs.open('/tokvol/bkt/one-block');
      // Its tokens were issued before open returned.
      const issuedBy = Date.now();
      const head = Buffer.alloc(10);
      expect(await file.read(head)).toBe(10);
      file.unbuffer();
      await sleep(issuedBy + TOKEN_LIFETIME_MS + 1 - Date.now());
      const lookupsBefore = lookups();
      const rest = Buffer.alloc(small.length - 10);
      expect(await file.read(rest)).toBe(rest.length);
      expect(Buffer.concat([head, rest]).equals(small)).toBe(true);
      expect(file.stats.locationRefreshes).toBe(1);
      expect(lookups()).toBe(lookupsBefore + 1);
      file.close();
    } finally {
      fs.close();
    }
  });
});

describe('a key written with a token past its lifetime', () => {
  it('moves to a new block with a fresh token, as Java’s KeyOutputStream does, and looks nothing up', async () => {
    const c = client();
    const out = await c.createKey('tokvol', 'bkt', 'late-writer', { sizeBytes: 1000 });
    // The block CreateKey handed out came with a token issued before createKey returned.
    const issuedBy = Date.now();
    await sleep(issuedBy + TOKEN_LIFETIME_MS + 1 - Date.now());
    const [lookupsBefore, allocationsBefore, refusalsBefore] = [
      lookups(),
      cluster.om.requests.get('AllocateBlock') ?? 0,
      refusals(),
    ];
    const late = contractKeyBytes(1000, 41);
    await out.write(late);
    await out.close();
    expect(refusals()).toBeGreaterThan(refusalsBefore);
    expect(cluster.om.requests.get('AllocateBlock')).toBe(allocationsBefore + 1);
    expect(lookups()).toBe(lookupsBefore);
    expect((await c.readKey('tokvol', 'bkt', 'late-writer')).equals(late)).toBe(true);
  });
});

describe('an erasure-coded key', () => {
  it("carries its group's block token on every WriteChunk and PutBlock, and every replica accepts it", async () => {
    const c = client();
    for (const d of cluster.datanodes) d.received.length = 0;
    const refusalsBefore = refusals();
    await c.writeKey('tokvol', 'bkt', 'ec', contractKeyBytes(20_000, 51), { replication: 'rs-3-2-1024k' });
    expect(refusals()).toBe(refusalsBefore);
    const writes = cluster.datanodes.flatMap((d) =>
      d.received
        .map((raw) => dn.ContainerCommandRequestProto.decode(raw))
        .filter((r) => r.cmdType === dn.Type.WriteChunk || r.cmdType === dn.Type.PutBlock),
    );
    // A cell on replicas 1, 4 and 5 and a PutBlock on all five.
    expect(writes).toHaveLength(8);
    const blockIds = new Set(
      writes.map(
        (r) => hdds.BlockTokenSecretProto.decode(Token.fromUrlString(r.encodedToken).identifier).blockId,
      ),
    );
    const id = writes[0]!.writeChunk?.blockID ?? writes[0]!.putBlock!.blockData.blockID;
    expect([...blockIds]).toEqual([`conID: ${String(id.containerID)} locID: ${String(id.localID)}`]);
  });
});

describe('datanodes that refuse every token', () => {
  it('a positional read fails typed after exactly one lookup', async () => {
    await expectEveryReadRefusedAfterOneLookup(client());
  });

  it('a streaming ReadBlock fails typed after exactly one lookup', async () => {
    const c = client({ streamReadBlockEnabled: true });
    const stream = await c.openKey('tokvol', 'bkt', 'one-block');
    try {
      expect((await stream.readFully(0, 10)).equals(small.subarray(0, 10))).toBe(true);
      stream.unbuffer();
      refuseEverywhere();
      const lookupsBefore = lookups();
      const err = await stream.readFully(10, 1000).catch((e: unknown) => e);
      expectRefusedAfterOneLookup(err, 6);
      expect(stream.stats.locationRefreshes).toBe(1);
      expect(lookups()).toBe(lookupsBefore + 1);
      expect(await refreshMetric(c)).toBe(1);
    } finally {
      stream.close();
    }
  });
});

describe('reads on read workers', () => {
  // Worker threads start by compiling the sources (tsx): slow on a loaded machine.
  const SLOW = 180_000;

  /** A client whose reads run on `threads` workers, started (and compiled) before a test's tokens are issued. */
  async function onWorkers(threads: number): Promise<OzoneClient> {
    const c = client({ readWorkerThreads: threads });
    const warm = await c.openKey('tokvol', 'bkt', 'one-block');
    // As many reads at once as workers: one on each (a read goes to the worker with the fewest).
    await Promise.all(Array.from({ length: threads }, (_, i) => warm.readFully(i, 1)));
    warm.close();
    expect(c.readWorkerStats).toMatchObject({ started: threads, running: threads, crashed: 0 });
    return c;
  }

  it(
    'a token past its lifetime: the caller’s stream looks the key up once, the worker reads on with the new tokens',
    async () => {
      const c = await onWorkers(1);
      const stream = await c.openKey('tokvol', 'bkt', 'two-blocks');
      try {
        const before = stream.blocks.map((b) => b.encodedToken);
        await tokensExpired(stream.blocks);
        const [lookupsBefore, refusalsBefore] = [lookups(), refusals()];
        expect((await stream.readFully(0, data.length)).equals(data)).toBe(true);
        expect(stream.stats.locationRefreshes).toBe(1);
        expect(lookups()).toBe(lookupsBefore + 1);
        expect(await refreshMetric(c)).toBe(1);
        expect(refusals()).toBeGreaterThan(refusalsBefore);
        // The reads ran on the worker (the client's own datanode channels carried none), and the
        // lookup's tokens are the stream's own now too.
        expect(c.datanodeStreamStats.opened).toBe(0);
        const after = stream.blocks.map((b) => b.encodedToken);
        expect(after.every((t, i) => t !== undefined && t !== before[i])).toBe(true);
      } finally {
        stream.close();
      }
    },
    SLOW,
  );

  it(
    'concurrent reads refused on two workers share one lookup, and both workers’ copies read on with its tokens',
    async () => {
      const c = await onWorkers(2);
      // Without cached windows every read reaches the datanodes, with whatever token its copy holds.
      const stream = await c.openKey('tokvol', 'bkt', 'two-blocks', { windowCacheBytes: 0 });
      // Four reads at once go two to each worker, and each worker's two cover both blocks.
      const ranges = [
        [0, 200 * KiB],
        [300 * KiB, 200 * KiB],
        [520 * KiB, 200 * KiB],
        [800 * KiB, 224 * KiB],
      ] as const;
      const readAll = async (): Promise<void> => {
        const got = await Promise.all(ranges.map(([p, n]) => stream.readFully(p, n)));
        got.forEach((g, i) => {
          const [p, n] = ranges[i] as readonly [number, number];
          expect(g.equals(data.subarray(p, p + n))).toBe(true);
        });
      };
      try {
        // Both workers open a copy of the stream, with the tokens of the open, and know both blocks.
        await readAll();
        await tokensExpired(stream.blocks);
        const [lookupsBefore, refusalsBefore] = [lookups(), refusals()];

        await readAll();
        expect(stream.stats.locationRefreshes).toBe(1);
        expect(lookups()).toBe(lookupsBefore + 1);
        expect(await refreshMetric(c)).toBe(1);
        expect(refusals()).toBeGreaterThan(refusalsBefore);

        // Each copy holds the new tokens: reads on both workers, of both blocks, are refused no more.
        const refusalsAfter = refusals();
        await readAll();
        expect(refusals()).toBe(refusalsAfter);
        expect(lookups()).toBe(lookupsBefore + 1);
        expect(c.readWorkerStats).toMatchObject({ started: 2, crashed: 0 });
      } finally {
        stream.close();
      }
    },
    SLOW,
  );

  it(
    'datanodes refusing every token: a read on a worker fails typed after exactly one lookup',
    async () => {
      await expectEveryReadRefusedAfterOneLookup(await onWorkers(1));
    },
    SLOW,
  );

  it(
    'a lookup that fails joins the refusals the read on the worker reports',
    async () => {
      const c = await onWorkers(1);
      const stream = await c.openKey('tokvol', 'bkt', 'one-block');
      try {
        refuseEverywhere();
        cluster.om.injectFault({ command: 'GetKeyInfo', status: 'KEY_NOT_FOUND', times: 1 });
        const lookupsBefore = lookups();
        const err = await stream.readFully(0, 100).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(ReplicasExhaustedError);
        const { attempts } = err as ReplicasExhaustedError;
        expect(attempts).toHaveLength(4);
        for (const a of attempts.slice(0, 3))
          expect(a).toMatchObject({ result: 'BLOCK_TOKEN_VERIFICATION_FAILED' });
        expect(attempts[3]).toBeInstanceOf(OmStatusError);
        expect(attempts[3]).toMatchObject({ code: 'ERR_OZONE_KEY_NOT_FOUND', status: 'KEY_NOT_FOUND' });
        expect(stream.stats.locationRefreshes).toBe(1);
        expect(lookups()).toBe(lookupsBefore + 1);
      } finally {
        stream.close();
      }
    },
    SLOW,
  );

  it(
    'a worker waiting for the lookup: closing the stream, or the client, fails its read ERR_OZONE_CLOSED',
    async () => {
      const pendingLookup = async (
        c: OzoneClient,
      ): Promise<{ stream: KeyInputStream; read: Promise<unknown> }> => {
        const stream = await c.openKey('tokvol', 'bkt', 'one-block');
        cluster.om.injectFault({ command: 'GetKeyInfo', response: 'never', times: 1 });
        const lookupsBefore = lookups();
        let over = false;
        const read = stream
          .readFully(0, 100)
          .catch((e: unknown) => e)
          .finally(() => (over = true));
        await waitFor('the lookup at the OM, or the read over', () => over || lookups() > lookupsBefore, {
          timeoutMs: SLOW,
        });
        expect({ over, lookups: lookups() }).toEqual({ over: false, lookups: lookupsBefore + 1 });
        return { stream, read };
      };
      const c = await onWorkers(1);
      refuseEverywhere();
      // The OM never answers: only the close ends the worker's wait.
      const first = await pendingLookup(c);
      first.stream.close();
      expect(await first.read).toBeInstanceOf(OzoneClosedError);
      const second = await pendingLookup(c);
      c.close();
      expect(await second.read).toBeInstanceOf(OzoneClosedError);
      expect(c.readWorkerStats.inFlight).toBe(0);
    },
    SLOW,
  );
});
