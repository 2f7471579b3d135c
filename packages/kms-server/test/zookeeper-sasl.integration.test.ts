// Kerberos (SASL) to a real ZooKeeper that requires it (sessionRequireClientSASLAuth, the keytab
// of zookeeper/localhost from a real MIT KDC), through zookeeper-client's SASL exchange and
// hadoop-rpc's GSSAPI mechanism as kms-server wires them: requests run only once authenticated,
// a reconnection authenticates again, the sasl ACL keeps another principal out, an unauthenticated
// client is refused, and bad credentials fail the connect with ERR_ZOOKEEPER_SASL within its
// bound. Then two fastpath-kms instances share cookie signer secrets and delegation tokens through
// that ZooKeeper with Hadoop's `sasl` settings, every znode they create carrying `sasl:kms`.
import { createKerberosSaslMechanism } from '@fastpath/hadoop-rpc';
import { setNativeEnvironment } from '@fastpath/kerberos-fixture';
import { useKdc } from '@fastpath/kerberos-fixture/jest';
import {
  closeZooKeeperClient,
  connectZooKeeper,
  saslOwnerAcl,
  zkCreate,
  zkExists,
  zkGetAcl,
  zkGetChildren,
  zkGetData,
  ZooKeeperOperationError,
  ZooKeeperSaslError,
  type ZooKeeperSaslOptions,
} from '@fastpath/zookeeper-client';
import { startZooKeeper, type ZooKeeperFixture } from '@fastpath/zookeeper-fixture';
import { waitFor } from '@fastpath/test-support';
import type { Client } from 'node-zookeeper-client';
import { KmsKerberosError, KmsConfigError } from '../src/index.js';
import { zooKeeperSaslMechanism } from '../src/internal/kerberos/zookeeper-kerberos.js';
import { kmsZooKeeperSasl } from '../src/testing.js';
import { startTestKms, type TestKms } from './support/test-kms.js';
import { tokenUrlOf } from './support/kms-json.js';

const kdc = useKdc({ processEnv: true });
let zk: ZooKeeperFixture;
let kmsKeytab: string;
let otherKeytab: string;
let paths = 0;

beforeAll(async () => {
  const server = kdc.principal('zookeeper/localhost');
  zk = await startZooKeeper({
    kerberos: { krb5ConfigPath: kdc.krb5ConfigPath, keytab: await kdc.keytab([server]), principal: server },
  });
  kmsKeytab = await kdc.keytab([kdc.principal('kms/localhost')]);
  otherKeytab = await kdc.keytab([kdc.principal('other/localhost')]);
}, 60_000);
afterAll(async () => {
  await zk?.close();
});

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => closeZooKeeperClient(c)));
});

function kerberos(principal: string, keytab: string, serviceName = 'zookeeper'): ZooKeeperSaslOptions {
  return kmsZooKeeperSasl({ principal: kdc.principal(principal), keytab, serviceName });
}

async function connect(sasl?: ZooKeeperSaslOptions): Promise<Client> {
  const client = await connectZooKeeper(zk.connectString, {
    timeoutMs: 5000,
    retries: 0,
    ...(sasl === undefined ? {} : { sasl }),
  });
  clients.push(client);
  return client;
}

/** The error `fn` rejects with, checked to be a `type`. */
async function rejection<E extends Error>(
  fn: () => Promise<unknown>,
  type: abstract new (...args: never[]) => E,
): Promise<E> {
  const error: unknown = await fn().then(
    () => new Error(`expected a ${type.name}, but it resolved`),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(type);
  return error as E;
}

const unique = (label: string): string => `/fastpath-sasl-${label}-${process.pid}-${++paths}`;

describe('zookeeper-client with SASL (Kerberos)', () => {
  it('authenticates before any request, and again after a reconnection', async () => {
    const client = await connect(kerberos('kms/localhost', kmsKeytab));
    const authentications: number[] = [];
    client.on('saslAuthenticated', () => authentications.push(Date.now()));
    const path = unique('owned');
    // A sasl-only znode: readable only by a connection authenticated as kms.
    await zkCreate(client, path, 'secret', undefined, saslOwnerAcl(kdc.principal('kms/localhost')));
    expect(await zkGetAcl(client, path)).toEqual([{ permission: 31, id: { scheme: 'sasl', id: 'kms' } }]);

    // The connection drops; the library reconnects to the same session. A read queued while it
    // is down must wait until the new connection has authenticated: sent before, the server would
    // answer -124 and drop the connection (it requires SASL), and the ACL refuses anyone but kms.
    const sessionId = client.getSessionId().toString('hex');
    const disconnected = new Promise<void>((resolve) => client.once('disconnected', () => resolve()));
    (
      client as unknown as { connectionManager: { socket: { destroy(): void } } }
    ).connectionManager.socket.destroy();
    await disconnected;
    const read = zkGetData(client, path);
    const bound = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error('the queued read got no answer within 10 s')), 10_000).unref(),
    );
    expect((await Promise.race([read, bound])).data.toString()).toBe('secret');
    expect(client.getSessionId().toString('hex')).toBe(sessionId);
    expect(authentications).toHaveLength(1);
  }, 30_000);

  it('keeps another principal out of a sasl znode, and refuses an unauthenticated client', async () => {
    const owner = await connect(kerberos('kms/localhost', kmsKeytab));
    const path = unique('private');
    await zkCreate(owner, path, 'x', undefined, saslOwnerAcl(kdc.principal('kms/localhost')));

    const other = await connect(kerberos('other/localhost', otherKeytab));
    expect(await zkExists(other, path)).not.toBeNull(); // exists is not checked against the ACL
    const refused = await rejection(() => zkGetData(other, path), ZooKeeperOperationError);
    expect(refused.zkName).toBe('NO_AUTH');

    // Without SASL the session is made, but the server answers its first request with -124
    // (SESSIONCLOSEDREQUIRESASLAUTH) and drops the connection; so again after each reconnection.
    const anonymous = await connect();
    const dropped = new Promise<void>((resolve) => anonymous.once('disconnected', () => resolve()));
    let answered = false;
    void zkGetChildren(anonymous, '/').then(
      () => (answered = true),
      () => undefined,
    );
    await dropped;
    expect(answered).toBe(false);
  }, 30_000);

  it('fails the connect with ERR_ZOOKEEPER_SASL, within its bound, on credentials that do not work', async () => {
    const started = Date.now();
    // A keytab without the principal: no ticket can be had.
    const wrongKeytab = await rejection(
      () => connect(kerberos('kms/localhost', otherKeytab)),
      ZooKeeperSaslError,
    );
    expect(wrongKeytab.code).toBe('ERR_ZOOKEEPER_SASL');
    expect(wrongKeytab.reason).toBe('mechanism');
    expect(wrongKeytab.retriable).toBe(false);

    // No keytab and an empty ticket cache.
    const previous = await setNativeEnvironment({ KRB5CCNAME: `FILE:${kdc.dir}/no-such-cache` });
    try {
      const noTicket = await rejection(
        () =>
          connect({
            mechanism: zooKeeperSaslMechanism(
              createKerberosSaslMechanism({ serverPrincipalPattern: 'zookeeper/*' }),
            ),
          }),
        ZooKeeperSaslError,
      );
      expect(noTicket.reason).toBe('mechanism');
      expect(noTicket.mechanismReason).toBe('no-ticket');
    } finally {
      await setNativeEnvironment({ KRB5CCNAME: previous['KRB5CCNAME'] });
    }

    // A ticket for a service the server holds no key of (other/localhost is in the realm): the
    // server refuses the exchange.
    const refused = await rejection(
      () => connect(kerberos('kms/localhost', kmsKeytab, 'other')),
      ZooKeeperSaslError,
    );
    expect(refused.reason).toBe('refused');
    expect(refused.zkCode).toBe(-124);
    expect(Date.now() - started).toBeLessThan(15_000);
  }, 30_000);
});

describe('two fastpath-kms instances sharing a Kerberized ZooKeeper', () => {
  const SIGNER = 'hadoop.kms.authentication.signer.secret.provider';
  const ZK_DT = 'hadoop.kms.authentication.zk-dt-secret-manager.';
  const servers: TestKms[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await s[Symbol.asyncDispose]();
  });

  function site(signerPath: string, workingPath: string): Record<string, string> {
    return {
      [SIGNER]: 'zookeeper',
      [`${SIGNER}.zookeeper.connection.string`]: zk.connectString,
      [`${SIGNER}.zookeeper.path`]: signerPath,
      [`${SIGNER}.zookeeper.auth.type`]: 'sasl',
      [`${SIGNER}.zookeeper.kerberos.keytab`]: kmsKeytab,
      [`${SIGNER}.zookeeper.kerberos.principal`]: 'kms/localhost',
      [`${ZK_DT}enable`]: 'true',
      [`${ZK_DT}zkConnectionString`]: zk.connectString,
      [`${ZK_DT}znodeWorkingPath`]: workingPath,
      [`${ZK_DT}zkAuthType`]: 'sasl',
      [`${ZK_DT}kerberos.keytab`]: kmsKeytab,
      [`${ZK_DT}kerberos.principal`]: kdc.principal('kms/localhost'),
    };
  }

  it('share cookies and tokens, and every znode they create is for sasl:kms only', async () => {
    const signerPath = `${unique('signer')}/secret`;
    const workingPath = unique('zkdtsm').slice(1);
    const a = await startTestKms({ site: site(signerPath, workingPath) });
    servers.push(a);
    const b = await startTestKms({ site: site(signerPath, workingPath) });
    servers.push(b);

    const minted = await a.call('GET', '/kms/v1/keys/names', { user: 'alice' });
    expect(minted.statusCode).toBe(200);
    const cookie = (
      [minted.headers['set-cookie'] ?? []].flat().find((c) => c.startsWith('hadoop.auth=')) ?? ''
    ).split(';')[0] as string;
    expect(cookie).toMatch(/^hadoop\.auth=/);
    expect((await b.call('GET', '/kms/v1/keys/names', { headers: { cookie } })).statusCode).toBe(200);

    const got = await a.call('GET', '/kms/v1/?op=GETDELEGATIONTOKEN&renewer=alice', { user: 'alice' });
    expect(got.statusCode).toBe(200);
    const token = tokenUrlOf(got.json());
    await waitFor(
      'the token to reach the second KMS',
      async () => (await b.call('GET', `/kms/v1/keys/names?delegation=${token}`)).statusCode === 200,
    );

    const reader = await connect(kerberos('kms/localhost', kmsKeytab));
    const owned = [{ permission: 31, id: { scheme: 'sasl', id: 'kms' } }];
    const root = `/${workingPath}/ZKDTSMRoot`;
    const tokens = await zkGetChildren(reader, `${root}/ZKDTSMTokensRoot`);
    expect(tokens.length).toBeGreaterThan(0);
    for (const node of [
      signerPath.slice(0, signerPath.lastIndexOf('/')),
      signerPath,
      `/${workingPath}`,
      root,
      `${root}/ZKDTSMSeqNumRoot`,
      `${root}/ZKDTSMTokensRoot`,
      `${root}/ZKDTSMTokensRoot/${tokens[0] as string}`,
      `${root}/ZKDTSMMasterKeyRoot`,
    ]) {
      expect({ node, acl: await zkGetAcl(reader, node) }).toEqual({ node, acl: owned });
    }
    // Another principal reads none of it.
    const other = await connect(kerberos('other/localhost', otherKeytab));
    expect((await rejection(() => zkGetData(other, signerPath), ZooKeeperOperationError)).zkName).toBe(
      'NO_AUTH',
    );
  }, 60_000);

  it('refuses to start with sasl and no keytab, or a principal the keytab does not hold', async () => {
    const base = site(unique('signer-bad'), 'unused');
    const noKeytab = { ...base, [`${SIGNER}.zookeeper.kerberos.keytab`]: '' };
    const missing = await rejection(() => startTestKms({ site: noKeytab }), KmsConfigError);
    expect(missing.property).toBe(`${SIGNER}.zookeeper.kerberos.keytab`);
    const wrong = { ...base, [`${ZK_DT}kerberos.keytab`]: otherKeytab };
    const notInKeytab = await rejection(() => startTestKms({ site: wrong }), KmsKerberosError);
    expect(notInKeytab.property).toBe(`${ZK_DT}kerberos.principal`);
    expect(notInKeytab.message).toContain('is not in the keytab');
  });
});
