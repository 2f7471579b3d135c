// One ZooKeeper, two implementations: a Hadoop KMS and a fastpath KMS with the same token-store
// working path and the same cookie signing secret, as during a migration from one to the other.
import { randomBytes } from 'node:crypto';
import { startHadoopKms, type HadoopKms } from '@fastpath/hadoop-fixture';
import {
  closeZooKeeperClient,
  connectZooKeeper,
  startZooKeeper,
  zkGetChildren,
  type ZooKeeperFixture,
} from '@fastpath/zookeeper-fixture';
import { eventually } from '@fastpath/test-support';
import { rejected, Rest, type IssuedToken } from './support-rest.js';
import { startFastpathKms, zooKeeperTokenStore, type FastpathKms } from './support-fastpath.js';

jest.setTimeout(900_000);

const WORKING_PATH = 'migration';
// Master keys roll every 3 s on both sides, so that the test sees keys rolled by each.
const UPDATE_INTERVAL_SEC = '3';
const ACLS = {
  'default.key.acl.MANAGEMENT': '*',
  'default.key.acl.GENERATE_EEK': '*',
  'default.key.acl.DECRYPT_EEK': '*',
  'default.key.acl.READ': '*',
};

let zk: ZooKeeperFixture;
let hadoop: HadoopKms;
let fastpath: FastpathKms;
let viaHadoop: Rest;
let viaFastpath: Rest;

beforeAll(async () => {
  zk = await startZooKeeper();
  const signerSecret = randomBytes(24).toString('hex');
  const site = { 'hadoop.kms.authentication.delegation-token.update-interval.sec': UPDATE_INTERVAL_SEC };
  hadoop = await startHadoopKms({
    acls: ACLS,
    site,
    signerSecret,
    zooKeeper: { connectString: zk.connectString, workingPath: WORKING_PATH },
  });
  fastpath = await startFastpathKms(
    {
      ...zooKeeperTokenStore(zk.connectString, WORKING_PATH),
      ...site,
      'hadoop.kms.authentication.signer.secret.provider': 'string',
      'hadoop.kms.authentication.signature.secret': signerSecret,
    },
    ACLS,
  );
  viaHadoop = new Rest(hadoop.url, 'client');
  viaFastpath = new Rest(fastpath.url, 'client');
});

afterAll(async () => {
  await fastpath?.close();
  await hadoop?.close();
  await zk?.close();
});

async function tokenNodes(): Promise<string[]> {
  const client = await connectZooKeeper(zk.connectString);
  try {
    return await zkGetChildren(client, `/${WORKING_PATH}/ZKDTSMRoot/ZKDTSMTokensRoot`);
  } finally {
    await closeZooKeeperClient(client);
  }
}

describe.each([
  ['Hadoop', 'fastpath', () => viaHadoop, () => viaFastpath],
  ['fastpath', 'Hadoop', () => viaFastpath, () => viaHadoop],
])('a token issued by %s', (_issuer, _other, issuerOf, otherOf) => {
  it('is accepted, renewed and cancelled through the other; then refused by both', async () => {
    const issuer = issuerOf();
    const other = otherOf();
    const token = await issuer.getDelegationToken('client');
    expect(token.kind).toBe('kms-dt');
    // Accepted by the other: a call authenticated by the token alone.
    await eventually(() => other.keyNamesWithToken(token), { timeoutMs: 10_000, intervalMs: 250 });
    const renewed = await other.renewDelegationToken(token);
    expect(renewed).toBeGreaterThan(Date.now());
    // The renewal is in ZooKeeper: the issuer renews again from there.
    expect(await issuer.renewDelegationToken(token)).toBeGreaterThanOrEqual(renewed);
    await other.cancelDelegationToken(token);
    expect((await rejected(other.keyNamesWithToken(token))).status).toBe(403);
    // The issuer learns of the cancellation through ZooKeeper's watch.
    await eventually(
      async () => {
        const err = await rejected(issuer.keyNamesWithToken(token));
        expect(err.status).toBe(403);
      },
      { timeoutMs: 15_000, intervalMs: 250 },
    );
    expect((await rejected(issuer.renewDelegationToken(token))).status).toBe(403);
  });
});

// Both sign with the shared secret alike and write the type of Hadoop's delegation-token-aware
// pseudo handler (t=simple-dt), so a cookie issued by either authenticates at the other. Until
// fastpath-kms wrote simple-dt (it wrote simple), each refused the other's cookie with 401
// "Invalid AuthenticationToken type" (D6 in docs/hadoop-interop.md).
it("cookies: each accepts the other's hadoop.auth cookie under the shared secret", async () => {
  const seen: Record<string, [string | undefined, number, string]> = {};
  for (const [name, from, to] of [
    ['Hadoop to fastpath', hadoop.url, fastpath.url],
    ['fastpath to Hadoop', fastpath.url, hadoop.url],
  ] as const) {
    const first = await fetch(`${from}/v1/keys/names?user.name=cookie-user`);
    expect(first.status).toBe(200);
    const cookie = (first.headers.getSetCookie?.() ?? [])
      .map((c) => c.split(';')[0] as string)
      .find((c) => c.startsWith('hadoop.auth='));
    // No user.name: the cookie alone authenticates.
    const second = await fetch(`${to}/v1/keys/names`, { headers: { cookie: cookie ?? '' } });
    const body = await second.text();
    seen[name] = [
      /&t=([^&]+)&/.exec(cookie ?? '')?.[1],
      second.status,
      second.status === 200 ? `names ${JSON.stringify(JSON.parse(body))}` : body.slice(0, 200),
    ];
  }
  expect(seen).toEqual({
    'Hadoop to fastpath': ['simple-dt', 200, 'names []'],
    'fastpath to Hadoop': ['simple-dt', 200, 'names []'],
  });
});

it('master keys rolled by either are used by both', async () => {
  const first = await viaHadoop.getDelegationToken('client');
  const firstFastpath = await viaFastpath.getDelegationToken('client');
  // Wait for each side to roll its own master key at least once (interval 3 s).
  const rolledHadoop = await eventually(
    async () => {
      const t = await viaHadoop.getDelegationToken('client');
      if (t.masterKeyId === first.masterKeyId) throw new Error('Hadoop has not rolled yet');
      return t;
    },
    { timeoutMs: 60_000, intervalMs: 1_000 },
  );
  const rolledFastpath = await eventually(
    async () => {
      const t = await viaFastpath.getDelegationToken('client');
      if (t.masterKeyId === firstFastpath.masterKeyId) throw new Error('fastpath has not rolled yet');
      return t;
    },
    { timeoutMs: 60_000, intervalMs: 1_000 },
  );
  // Key ids come from one shared counter: no two keys share an id.
  expect(
    new Set([
      first.masterKeyId,
      rolledHadoop.masterKeyId,
      firstFastpath.masterKeyId,
      rolledFastpath.masterKeyId,
    ]).size,
  ).toBe(4);
  for (const token of [first, rolledHadoop, firstFastpath, rolledFastpath]) {
    for (const client of [viaHadoop, viaFastpath]) {
      await eventually(() => client.keyNamesWithToken(token), { timeoutMs: 10_000, intervalMs: 250 });
    }
  }
});

it('sequence numbers never collide under concurrent issuance on both', async () => {
  const before = new Set(await tokenNodes());
  const perSide = 40;
  const issue = (client: Rest): Promise<IssuedToken[]> =>
    Promise.all(Array.from({ length: perSide }, () => client.getDelegationToken('client')));
  const [fromHadoop, fromFastpath] = await Promise.all([issue(viaHadoop), issue(viaFastpath)]);
  const sequenceNumbers = [...fromHadoop, ...fromFastpath].map((t) => t.sequenceNumber);
  expect(sequenceNumbers).toHaveLength(2 * perSide);
  expect(new Set(sequenceNumbers).size).toBe(2 * perSide);
  const added = (await tokenNodes()).filter((n) => !before.has(n));
  expect(added).toHaveLength(2 * perSide);
  expect(new Set(added)).toEqual(new Set(sequenceNumbers.map((n) => `DT_${n}`)));
  process.stderr.write(
    `shared-zookeeper: Hadoop issued ${Math.min(...fromHadoop.map((t) => t.sequenceNumber))}..${Math.max(...fromHadoop.map((t) => t.sequenceNumber))}, ` +
      `fastpath ${Math.min(...fromFastpath.map((t) => t.sequenceNumber))}..${Math.max(...fromFastpath.map((t) => t.sequenceNumber))}\n`,
  );
});
