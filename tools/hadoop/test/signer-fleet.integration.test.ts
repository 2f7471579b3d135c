// A KMS fleet behind a load balancer, as during a rolling migration: one Apache Hadoop KMS and two
// fastpath-kms on one ZooKeeper, sharing the delegation-token store and the hadoop.auth cookie
// signer secrets (signer.secret.provider=zookeeper), with a round-robin proxy in front. A cookie
// minted by any instance is honoured by every other through two rollovers; a cookie signed with a
// secret older than the previous one is refused by all three. The ZooKeeper is Kerberized and
// requires SASL of every client (a real MIT KDC, zookeeper/localhost's keytab), and every
// instance, Hadoop's included, authenticates with Hadoop's `sasl` settings as kms/localhost: the
// znodes are for sasl:kms only, whoever created them.
import {
  DEFAULT_HADOOP_KMS_ACLS,
  startHadoopKms,
  startRoundRobinProxy,
  ROUND_ROBIN_BACKEND_HEADER,
  type HadoopKms,
  type RoundRobinProxy,
} from '@fastpath/hadoop-fixture';
import { setNativeEnvironment, startKdc, type Kdc } from '@fastpath/kerberos-fixture';
import {
  closeZooKeeperClient,
  connectZooKeeper,
  startZooKeeper,
  zkGetAcl,
  zkGetData,
  type ZooKeeperFixture,
} from '@fastpath/zookeeper-fixture';
import {
  kmsZooKeeperSasl,
  readSignerSecretsZnode,
  signHadoopAuthCookie,
  type SignerSecretsZnode,
} from '@fastpath/kms-server/testing';
import { waitFor } from '@fastpath/test-support';
import { startFastpathKms, zooKeeperTokenStore, type FastpathKms } from './support-fastpath.js';

jest.setTimeout(900_000);

const WORKING_PATH = 'fleet';
const SECRET_PATH = '/fleet-signer/secret';
/** token.validity, seconds: the cookie lifetime and the rollover interval. */
const VALIDITY_SEC = 4;
const NAMES = ['Hadoop', 'fastpath A', 'fastpath B'] as const;

let kdc: Kdc;
let zk: ZooKeeperFixture;
/** How this test's own ZooKeeper clients log in: as the fleet does. */
let sasl: ReturnType<typeof kmsZooKeeperSasl>;
let savedEnvironment: Record<string, string | undefined> | undefined;
let hadoop: HadoopKms;
let fastpath: FastpathKms[] = [];
let proxy: RoundRobinProxy;
/** The instances' `/kms` URLs, in the proxy's order. */
let urls: string[];

beforeAll(async () => {
  kdc = await startKdc();
  const server = kdc.principal('zookeeper/localhost');
  zk = await startZooKeeper({
    kerberos: { krb5ConfigPath: kdc.krb5ConfigPath, keytab: await kdc.keytab([server]), principal: server },
  });
  const principal = kdc.principal('kms/localhost');
  const keytab = await kdc.keytab([principal]);
  // This process's own clients (the GSS-API addon reads KRB5_CONFIG from the real environment).
  savedEnvironment = await setNativeEnvironment(kdc.env());
  sasl = kmsZooKeeperSasl({ keytab, principal });
  const auth = 'hadoop.kms.authentication.';
  const signer = {
    [`${auth}signer.secret.provider`]: 'zookeeper',
    [`${auth}signer.secret.provider.zookeeper.connection.string`]: zk.connectString,
    [`${auth}signer.secret.provider.zookeeper.path`]: SECRET_PATH,
    [`${auth}signer.secret.provider.zookeeper.auth.type`]: 'sasl',
    [`${auth}signer.secret.provider.zookeeper.kerberos.keytab`]: keytab,
    [`${auth}signer.secret.provider.zookeeper.kerberos.principal`]: principal,
    [`${auth}zk-dt-secret-manager.zkAuthType`]: 'sasl',
    [`${auth}zk-dt-secret-manager.kerberos.keytab`]: keytab,
    [`${auth}zk-dt-secret-manager.kerberos.principal`]: principal,
    [`${auth}token.validity`]: String(VALIDITY_SEC),
  };
  [hadoop, ...fastpath] = await Promise.all([
    startHadoopKms({
      acls: DEFAULT_HADOOP_KMS_ACLS,
      site: signer,
      zooKeeper: { connectString: zk.connectString, workingPath: WORKING_PATH },
      javaOptions: kdc.javaOptions(),
    }),
    startFastpathKms(
      { ...zooKeeperTokenStore(zk.connectString, WORKING_PATH), ...signer },
      DEFAULT_HADOOP_KMS_ACLS,
      kdc.env(),
    ),
    startFastpathKms(
      { ...zooKeeperTokenStore(zk.connectString, WORKING_PATH), ...signer },
      DEFAULT_HADOOP_KMS_ACLS,
      kdc.env(),
    ),
  ]);
  urls = [hadoop.url, ...fastpath.map((f) => f.url)];
  proxy = await startRoundRobinProxy({ targets: urls.map((u) => new URL(u).origin) });
}, 600_000);

afterAll(async () => {
  await proxy?.close();
  await Promise.allSettled([hadoop?.close(), ...fastpath.map((f) => f.close())]);
  await zk?.close();
  if (savedEnvironment !== undefined) await setNativeEnvironment(savedEnvironment);
  await kdc?.stop();
});

async function znode(): Promise<SignerSecretsZnode> {
  const client = await connectZooKeeper(zk.connectString, { sasl });
  try {
    return readSignerSecretsZnode((await zkGetData(client, SECRET_PATH)).data);
  } finally {
    await closeZooKeeperClient(client);
  }
}

/**
 * The znode once the fleet is clear of a rollover (at least 500 ms after one and 1500 ms before
 * the next): every instance then holds the same two secrets, whoever rolled first.
 */
function betweenRollovers(): Promise<SignerSecretsZnode> {
  return waitFor(
    'a moment between two rollovers',
    async () => {
      const state = await znode();
      const untilNext = state.nextRolloverMs - Date.now();
      return untilNext > 1500 && untilNext < VALIDITY_SEC * 1000 - 500 ? state : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 100 },
  );
}

/** A cookie signed with `secret` (as any instance signs one), valid for an hour. */
const forged = (secret: Buffer): string =>
  signHadoopAuthCookie({ secret, user: 'mallory', expiresMs: Date.now() + 3_600_000 });

/**
 * A moment between rollovers when every instance has rolled to the znode's current secret: each
 * rolls on its own timer, which a loaded machine may run late.
 */
function settled(): Promise<SignerSecretsZnode> {
  return waitFor(
    'every instance on the current secret',
    async () => {
      const state = await betweenRollovers();
      for (const url of urls) {
        const res = await fetch(`${url}/v1/keys/names`, { headers: { cookie: forged(state.current) } });
        await res.arrayBuffer();
        if (res.status !== 200) return undefined;
      }
      return state;
    },
    { timeoutMs: 60_000, intervalMs: 50 },
  );
}

/** One request through the proxy: who served it, the status, and the cookie it set. */
async function viaProxy(
  query: string,
  cookie?: string,
): Promise<{ backend: string; status: number; cookie: string | undefined }> {
  const res = await fetch(`${proxy.url}/kms/v1/keys/names${query}`, {
    headers: cookie === undefined ? {} : { cookie },
  });
  await res.arrayBuffer();
  const set = res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0] as string)
    .find((c) => c.startsWith('hadoop.auth=') && c !== 'hadoop.auth=');
  const index = Number(res.headers.get(ROUND_ROBIN_BACKEND_HEADER));
  return { backend: NAMES[index] ?? String(index), status: res.status, cookie: set };
}

it('a cookie minted by any instance is accepted by every other, through two rollovers', async () => {
  const periods: Array<{ secret: string; accepted: string[] }> = [];
  const secrets = new Set<string>();
  while (secrets.size < 3) {
    const state = await settled();
    const secret = state.current.toString('hex');
    if (secrets.has(secret)) continue;
    const accepted: string[] = [];
    // Requests go round: mint on one, present the cookie (alone) to the next two, then once more
    // to the issuer so that the next mint lands on the next instance.
    for (let issuer = 0; issuer < NAMES.length; issuer++) {
      const minted = await viaProxy('?user.name=alice');
      expect(minted).toMatchObject({
        status: 200,
        cookie: expect.stringMatching(/^hadoop\.auth=/) as unknown,
      });
      for (let n = 0; n < NAMES.length; n++) {
        const presented = await viaProxy('', minted.cookie);
        if (presented.status === 200 && presented.backend !== minted.backend) {
          accepted.push(`${minted.backend} -> ${presented.backend}`);
        } else if (presented.status !== 200) {
          accepted.push(`${minted.backend} -> ${presented.backend}: refused ${presented.status}`);
        }
      }
    }
    // A rollover that came in between leaves the period to be done again.
    if (!(await znode()).current.equals(state.current)) continue;
    secrets.add(secret);
    periods.push({ secret, accepted: accepted.sort() });
  }
  const everyPair = NAMES.flatMap((from) =>
    NAMES.filter((to) => to !== from).map((to) => `${from} -> ${to}`),
  ).sort();
  expect(periods.map((p) => p.accepted)).toEqual([everyPair, everyPair, everyPair]);
  // Each instance served a share of the requests.
  expect(proxy.served().every((n) => n > 0)).toBe(true);
});

it('cookies signed with the current or the previous secret are accepted by all, an older one refused by all', async () => {
  const oldest = await betweenRollovers();
  const state = await waitFor(
    'two rollovers',
    async () => {
      const s = await settled();
      const seen = [s.current, s.previous].some((x) => x?.equals(oldest.current));
      return seen ? undefined : s;
    },
    { timeoutMs: 60_000, intervalMs: 100 },
  );
  const answers: Record<string, Record<string, number>> = {};
  for (const [label, secret] of [
    ['current', state.current],
    ['previous', state.previous as Buffer],
    ['older than previous', oldest.current],
  ] as const) {
    const row: Record<string, number> = {};
    for (const [i, url] of urls.entries()) {
      const res = await fetch(`${url}/v1/keys/names`, { headers: { cookie: forged(secret) } });
      await res.arrayBuffer();
      row[NAMES[i] as string] = res.status;
    }
    answers[label] = row;
  }
  const all = (status: number): Record<string, number> => Object.fromEntries(NAMES.map((n) => [n, status]));
  expect(answers).toEqual({ current: all(200), previous: all(200), 'older than previous': all(401) });
});

it('a delegation token from any instance authenticates through the proxy at every instance', async () => {
  const got = await fetch(`${hadoop.url}/v1/?op=GETDELEGATIONTOKEN&renewer=client&user.name=client`);
  expect(got.status).toBe(200);
  const { Token } = (await got.json()) as { Token: { urlString: string } };
  const served = new Set<string>();
  await waitFor(
    'the token at every instance',
    async () => {
      const res = await viaProxy(`?delegation=${Token.urlString}`);
      if (res.status === 200) served.add(res.backend);
      return served.size === NAMES.length ? true : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 50 },
  );
  expect([...served].sort()).toEqual([...NAMES].sort());
});

it('every znode of the fleet is for sasl:kms only, whichever instance created it', async () => {
  const client = await connectZooKeeper(zk.connectString, { sasl });
  try {
    const owned = [{ permission: 31, id: { scheme: 'sasl', id: 'kms' } }];
    for (const node of [
      '/fleet-signer',
      SECRET_PATH,
      `/${WORKING_PATH}/ZKDTSMRoot/ZKDTSMTokensRoot`,
      `/${WORKING_PATH}/ZKDTSMRoot/ZKDTSMSeqNumRoot`,
    ]) {
      expect({ node, acl: await zkGetAcl(client, node) }).toEqual({ node, acl: owned });
    }
  } finally {
    await closeZooKeeperClient(client);
  }
});
