// Kerberos both ways, with a real MIT KDC: Hadoop's own KMSClientProvider (logged in from a keytab
// through UserGroupInformation) and KeyShell (from a ticket cache) against fastpath-kms in Kerberos
// mode and against Hadoop's KMS in Kerberos mode, answers compared side by side; fastpath's client
// against Hadoop's KMS in Kerberos mode; cookie validity 1 s forcing the re-login on both sides;
// a hadoop.auth cookie issued by one kind accepted by the other under a shared signer secret.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setNativeEnvironment } from '@fastpath/kerberos-fixture';
import { useKdc } from '@fastpath/kerberos-fixture/jest';
import { KmsClient } from '@fastpath/kms-client';

import {
  prepareHadoop,
  runHadoopClient,
  runKeyShell,
  startHadoopKms,
  type HadoopClientRequest,
  type HadoopInstallation,
  type HadoopKms,
} from '@fastpath/hadoop-fixture';
import { loadKerberos } from '@fastpath/hadoop-common';
import { waitFor } from '@fastpath/test-support';
import { normalise, SCENARIO_ACLS } from './client-scenario.js';
import { startFastpathKms, type FastpathKms } from './support-fastpath.js';
import { rawRequest } from './support-raw.js';

jest.setTimeout(900_000);

const kdc = useKdc({ processEnv: true });
const SECRET = 'shared-kerberos-signer-secret';
/** The `Accept` header of Java's HttpURLConnection, which Hadoop's client sends. */
const JAVA_ACCEPT = 'text/html, image/gif, image/jpeg, *; q=.2, */*; q=.2';

let installation: HadoopInstallation;
let keytabs: { http: string; client: string; clientHost: string };
let ccache: string;
let hadoop: HadoopKms;
let fastpath: FastpathKms;

/** Kerberos clients target HTTP/<host of the URL>: both servers are called as localhost. */
const localhost = (uri: string): string => uri.replace('127.0.0.1', 'localhost');

function kerberosSite(extra: Record<string, string> = {}): Record<string, string> {
  const auth = 'hadoop.kms.authentication.';
  return {
    [`${auth}type`]: 'kerberos',
    [`${auth}kerberos.keytab`]: keytabs.http,
    [`${auth}kerberos.principal`]: 'HTTP/localhost',
    [`${auth}kerberos.name.rules`]: 'DEFAULT',
    'hadoop.kms.proxyuser.client.users': 'foo',
    'hadoop.kms.proxyuser.client.hosts': '*',
    ...extra,
  };
}

async function startBoth(
  extra: Record<string, string> = {},
): Promise<{ hadoop: HadoopKms; fastpath: FastpathKms }> {
  const secretFile = join(kdc.dir, 'signer.secret');
  await writeFile(secretFile, SECRET);
  const auth = 'hadoop.kms.authentication.';
  const [h, f] = await Promise.all([
    startHadoopKms({
      acls: SCENARIO_ACLS,
      aclDefaults: false,
      site: kerberosSite(extra),
      signerSecret: SECRET,
      javaOptions: kdc.javaOptions(),
    }),
    startFastpathKms(
      {
        ...kerberosSite(extra),
        [`${auth}signer.secret.provider`]: 'file',
        [`${auth}signature.secret.file`]: secretFile,
        'hadoop.kms.http.host': '127.0.0.1',
      },
      SCENARIO_ACLS,
      kdc.env(),
    ),
  ]);
  return { hadoop: h, fastpath: f };
}

/** A Hadoop-client script's answers with what differs by nature normalised (materials, times). */
async function script(
  providerUri: string,
  requests: HadoopClientRequest[],
  principal = 'client',
): Promise<unknown[]> {
  const keytab = principal === 'client' ? keytabs.client : keytabs.clientHost;
  const answers = await runHadoopClient(installation, localhost(providerUri), requests, {
    kerberos: { principal: kdc.principal(principal), keytab },
    javaOptions: kdc.javaOptions(),
  });
  // The servers' own addresses (localhost:<port>) differ by nature, as 127.0.0.1:<port> does.
  return answers.map((a) =>
    normalise(JSON.parse(JSON.stringify(a).replace(/localhost:\d+/g, '127.0.0.1:0'))),
  );
}

beforeAll(async () => {
  installation = await prepareHadoop();
  keytabs = {
    http: await kdc.keytab(['HTTP/localhost']),
    client: await kdc.keytab(['client']),
    clientHost: await kdc.keytab(['client/host']),
  };
  ccache = await kdc.kinit('client', { keytab: keytabs.client });
  await setNativeEnvironment({ ...kdc.env(), KRB5CCNAME: ccache });
  ({ hadoop, fastpath } = await startBoth());
}, 600_000);

afterAll(async () => {
  await Promise.allSettled([hadoop?.close(), fastpath?.close()]);
});

describe("Hadoop's client logged in from a keytab, against both KMSs in Kerberos mode", () => {
  const steps: Array<[string, HadoopClientRequest]> = [
    ['create k1', { op: 'createKey', name: 'k1', length: 128 }],
    ['keys', { op: 'getKeys' }],
    ['roll k1', { op: 'rollNewVersion', name: 'k1' }],
    ['current k1', { op: 'getCurrentKey', name: 'k1' }],
    ['metadata k1', { op: 'getMetadata', name: 'k1' }],
    ['generate EEK', { op: 'generateEek', name: 'k1', num: 1 }],
    ['token for client', { op: 'getDelegationToken', renewer: 'client' }],
    ['delete k1 (admin only)', { op: 'deleteKey', name: 'k1' }],
    ['create as foo (proxy)', { op: 'createKey', name: 'k-foo', doAs: 'foo' }],
    ['create as bar (not allowed)', { op: 'createKey', name: 'k-bar', doAs: 'bar' }],
  ];

  it('answers the same step by step', async () => {
    const [onHadoop, onFastpath] = await Promise.all([
      script(
        hadoop.providerUri,
        steps.map(([, r]) => r),
      ),
      script(
        fastpath.providerUri,
        steps.map(([, r]) => r),
      ),
    ]);
    const compared = steps.map(([label], i) => ({ label, hadoop: onHadoop[i], fastpath: onFastpath[i] }));
    for (const step of compared)
      expect({ label: step.label, answer: step.fastpath }).toEqual({
        label: step.label,
        answer: step.hadoop,
      });
    expect((onFastpath[0] as { ok: boolean }).ok).toBe(true);
    expect((onFastpath[8] as { ok: boolean }).ok).toBe(true);
    // A refused doAs fails the client's OPTIONS log-in (403) on both, as Hadoop's client reports it.
    expect(onFastpath[9]).toMatchObject({
      ok: false,
      message: expect.stringContaining('Error while authenticating with endpoint') as unknown,
    });
  });

  it('client/host@REALM acts as client on both', async () => {
    const refusals: unknown[] = [];
    for (const kms of [hadoop, fastpath]) {
      const [created, deleted] = await script(
        kms.providerUri,
        [
          { op: 'createKey', name: 'k-host' },
          { op: 'deleteKey', name: 'k-host' },
        ],
        'client/host',
      );
      expect(created).toMatchObject({ ok: true });
      refusals.push(deleted);
    }
    // The DELETE ACL (admin only) judges the short name: both refuse "client".
    expect(refusals[1]).toEqual(refusals[0]);
    expect(JSON.stringify(refusals[1])).toContain('User:client not allowed');
    // Both audit the creation by the principal, while the ACLs saw the short name.
    const audits: Array<[string, () => Promise<string>]> = [
      ['k-host', () => hadoop.auditLog()],
      ['k-host', () => readFile(join(fastpath.process.dataDir, 'kms-audit.log'), 'utf8')],
    ];
    for (const [key, read] of audits) {
      const pattern = new RegExp(`OK\\[op=CREATE_KEY, key=${key}, user=client/host@${kdc.realm}\\]`);
      await waitFor(`the audit line of ${key}`, async () => (pattern.test(await read()) ? true : undefined), {
        timeoutMs: 30_000,
      }).catch(async (error: unknown) => {
        throw new Error(`${String(error)}\n${(await read()).slice(-2000)}`);
      });
    }
  });

  it('KeyShell logged in from a ticket cache creates and lists keys on both', async () => {
    for (const kms of [hadoop, fastpath]) {
      const uri = localhost(kms.providerUri);
      const options = { kerberos: { ccache }, javaOptions: kdc.javaOptions() };
      const created = await runKeyShell(
        installation,
        uri,
        ['create', 'k-shell', '-size', '128'],
        'client',
        options,
      );
      expect({ code: created.code, out: created.stdout }).toMatchObject({
        code: 0,
        out: expect.stringContaining('k-shell has been successfully created') as unknown,
      });
      const listed = await runKeyShell(installation, uri, ['list'], 'client', options);
      expect(listed.stdout).toContain('k-shell');
    }
  });
});

describe("fastpath's client against Hadoop's KMS in Kerberos mode", () => {
  it('logs in from the ticket cache and runs keys, EEKs and tokens', async () => {
    await using kms = new KmsClient({ url: localhost(hadoop.url), kerberos: true });
    await kms.createKey('k-node');
    const [eek] = await kms.generateEncryptedKeys('k-node', 1);
    expect((await kms.decryptEncryptedKey(eek!)).material?.unwrap()).toHaveLength(16);
    expect(await kms.getKeyNames()).toContain('k-node');
    const token = await kms.getDelegationToken({ renewer: 'client' });
    expect({ owner: token.owner, kind: token.kind }).toEqual({
      owner: 'client',
      kind: 'kms-dt',
    });
    expect(await kms.withAuth({ delegationToken: token }).getKeyNames()).toContain('k-node');
  });
});

describe('a cookie validity of 1 s forces the re-login path', () => {
  let short: { hadoop: HadoopKms; fastpath: FastpathKms };
  beforeAll(async () => {
    short = await startBoth({ 'hadoop.kms.authentication.token.validity': '1' });
  }, 600_000);
  afterAll(async () => {
    await Promise.allSettled([short?.hadoop.close(), short?.fastpath.close()]);
  });

  it("Hadoop's client logs in again on both", async () => {
    for (const kms of [short.hadoop, short.fastpath]) {
      const answers = await script(kms.providerUri, [
        { op: 'getKeys' },
        { op: 'waitUntil', afterPreviousMs: 2_500 },
        { op: 'createKey', name: `k-late-${kms === short.hadoop ? 'h' : 'f'}` },
        { op: 'getKeys' },
      ]);
      expect(answers).toMatchObject([{ ok: true }, { ok: true }, { ok: true }, { ok: true }]);
    }
  });

  it("fastpath's client logs in again on both", async () => {
    for (const url of [short.hadoop.url, short.fastpath.url]) {
      await using kms = new KmsClient({ url: localhost(url), kerberos: true });
      await kms.getKeyNames();
      const first = Date.now();
      await waitFor('the cookie to expire', () => (Date.now() - first > 2_500 ? true : undefined), {
        timeoutMs: 10_000,
      });
      await kms.createKey(`k-relogin-${url === short.hadoop.url ? 'h' : 'f'}`);
    }
  });
});

describe('cookies cross between the two kinds under a shared signer secret', () => {
  it('a cookie issued by one is accepted by the other', async () => {
    const kerberos = await loadKerberos();
    const login = async (url: string): Promise<string> => {
      const client = await kerberos.initializeClient('HTTP@localhost', {
        mechOID: kerberos.GSS_MECH_OID_KRB5,
        gssFlag: kerberos.GSS_C_MUTUAL_FLAG,
      });
      const res = await fetch(`${localhost(url)}/v1/keys/names`, {
        method: 'OPTIONS',
        headers: { authorization: `Negotiate ${await client.step('')}` },
      });
      expect(res.status).toBe(200);
      const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      expect(cookie).toMatch(/^hadoop\.auth="?u=client&p=client@.*&t=kerberos-dt&/);
      return cookie;
    };
    const fromFastpath = await login(fastpath.url);
    const fromHadoop = await login(hadoop.url);
    const onHadoop = await fetch(`${localhost(hadoop.url)}/v1/keys/names`, {
      headers: { cookie: fromFastpath },
    });
    expect(onHadoop.status).toBe(200);
    const onFastpath = await fetch(`${localhost(fastpath.url)}/v1/keys/names`, {
      headers: { cookie: fromHadoop },
    });
    expect(onFastpath.status).toBe(200);
  });
});

describe('SPNEGO refusals, answered side by side', () => {
  interface Raw {
    status: number | undefined;
    reason: string | undefined;
    contentType: string | undefined;
    body: string;
    cookie: string | undefined;
    challenge: string | undefined;
    cacheControl: string | undefined;
  }
  /** The raw answer to `GET <url>/v1/keys/names` with `headers`, as Java's client asks (Accept). */
  const raw = async (url: string, headers: Record<string, string>): Promise<Raw> => {
    const res = await rawRequest(`${localhost(url)}/v1/keys/names`, {
      headers: { accept: JAVA_ACCEPT, ...headers },
    });
    return {
      status: res.status,
      reason: res.reason,
      contentType: res.headers['content-type'],
      body: res.body,
      cookie: res.headers['set-cookie']?.join(' | '),
      challenge: res.headers['www-authenticate'],
      cacheControl: res.headers['cache-control'],
    };
  };

  it('the same status, reason phrase, headers and body from both', async () => {
    const kerberos = await loadKerberos();
    await kdc.keytab(['HTTP/otherhost', 'host/localhost']);
    const token = async (service = 'HTTP@localhost'): Promise<string> =>
      (
        await kerberos.initializeClient(service, {
          mechOID: kerberos.GSS_MECH_OID_KRB5,
          gssFlag: kerberos.GSS_C_MUTUAL_FLAG,
        })
      ).step('');
    const good = Buffer.from(await token(), 'base64');
    const cases: Record<string, () => Promise<string>> = {
      garbage: () => Promise.resolve(Buffer.from('garbage').toString('base64')),
      'truncated ticket': () => Promise.resolve(good.subarray(0, good.length >> 1).toString('base64')),
      'ticket for another HTTP service': () => token('HTTP@otherhost'),
      'ticket for a service that is not HTTP': () => token('host@localhost'),
    };
    const answers: Record<string, { hadoop: Raw; fastpath: Raw }> = {};
    for (const [label, make] of Object.entries(cases)) {
      const value = await make();
      answers[label] = {
        hadoop: await raw(hadoop.url, { authorization: `Negotiate ${value}` }),
        fastpath: await raw(fastpath.url, { authorization: `Negotiate ${value}` }),
      };
    }
    for (const accept of ['*/*', 'application/json', 'text/plain', 'application/json, text/html']) {
      const value = await token('host@localhost');
      answers[`not HTTP, Accept: ${accept}`] = {
        hadoop: await raw(hadoop.url, { authorization: `Negotiate ${value}`, accept }),
        fastpath: await raw(fastpath.url, { authorization: `Negotiate ${value}`, accept }),
      };
    }
    // A token that is no Kerberos token at all: Hadoop's DER reader fails inside Java's
    // ByteBuffer (`newLimit > capacity: (97 > 5)`), fastpath says "Malformed gss token" (D11 in
    // docs/hadoop-interop.md); everything else of the answer is the same.
    const malformed = new Set(['garbage', 'truncated ticket']);
    const shown = (answer: Raw, label: string): Raw => {
      if (!malformed.has(label) || answer.reason === undefined) return answer;
      const quoted = answer.reason.replace(/&/g, '&amp;').replace(/>/g, '&gt;');
      return {
        ...answer,
        reason: '<reason>',
        body: answer.body.split(quoted.replace(/&/g, '&amp;')).join('<reason>'),
      };
    };
    for (const [label, { hadoop: h, fastpath: f }] of Object.entries(answers)) {
      expect({ label, answer: shown(f, label) }).toEqual({ label, answer: shown(h, label) });
    }
    expect(answers['garbage']?.fastpath.reason).toBe('Malformed gss token');
    expect(answers['garbage']?.hadoop.reason).toMatch(
      /^java\.lang\.IllegalArgumentException: newLimit > capacity/,
    );
  });
});
