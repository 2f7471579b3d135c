// KERBEROS (SASL GSSAPI) against Apache Hadoop's own RPC.Server logged in from a keytab, on a real
// MIT KDC, once per hadoop.rpc.protection: the server sees the client's principal, calls (a large
// one included) run through the negotiated security layer; and the client's refusals, each
// typed, each before any call is sent: no ticket, an expired ticket, a server advertising another
// principal than the configured one, a server offering a weaker protection than required.
import { setNativeEnvironment } from '@fastpath/kerberos-fixture';
import { useKdc } from '@fastpath/kerberos-fixture/jest';
import { startHadoopRpcPeer, type HadoopRpcPeer } from '@fastpath/hadoop-fixture';
import {
  createHadoopRpcClient,
  createKerberosSaslMechanism,
  type HadoopRpcProtection,
  HadoopRpcKerberosError,
  HadoopRpcSaslQopError,
  type KerberosSaslMechanismOptions,
  RemoteException,
} from '@fastpath/hadoop-rpc';
import {
  sendingAsKerberos,
  tapped,
  TEST_RPC_PROTOCOL,
  testRpcMessages as m,
} from '@fastpath/hadoop-rpc/testing';
import { randomBytes } from 'node:crypto';

const kdc = useKdc({ processEnv: true });
const empty = new Uint8Array(0);

async function startPeer(protection: string): Promise<HadoopRpcPeer> {
  const principal = kdc.principal('hrpc/localhost');
  return startHadoopRpcPeer({
    kerberos: {
      protection,
      principal,
      keytab: await kdc.keytab([principal]),
      javaOptions: kdc.javaOptions(),
    },
  });
}

function clientFor(options: Partial<KerberosSaslMechanismOptions>) {
  const server =
    options.serverPrincipalPattern === undefined ? { serverPrincipal: `hrpc/_HOST@${kdc.realm}` } : {};
  return createHadoopRpcClient({
    authProtocol: 'sasl',
    saslMechanisms: [createKerberosSaslMechanism({ ...server, ...options })],
  });
}

async function loggedInAs(user: string, lifetimeSeconds = 600): Promise<void> {
  await setNativeEnvironment({ KRB5CCNAME: await kdc.kinit(user, { lifetimeSeconds }) });
}

describe.each<HadoopRpcProtection>(['authentication', 'integrity', 'privacy'])(
  'KERBEROS against Apache Hadoop’s RPC.Server, hadoop.rpc.protection=%s',
  (protection) => {
    it('logs in with the ticket cache; the server sees the principal; calls run through the layer', async () => {
      await using peer = await startPeer(protection);
      await loggedInAs('alice');
      await using client = clientFor({ protection: [protection] });
      const call = (method: string, request: Uint8Array = empty) =>
        client.call({ address: peer.address, ...TEST_RPC_PROTOCOL, method, request });
      // The server's authenticated user: the full principal (a SIMPLE call would name the OS user).
      expect(m.UserResponseProto.decode(await call('getAuthUser')).user).toBe(`alice@${kdc.realm}`);
      const big = 'k'.repeat(300_000);
      const echoes = await Promise.all(
        [big, 'a', 'b'].map((message) => call('echo', m.EchoRequestProto.encode({ message }).finish())),
      );
      expect(echoes.map((e) => m.EchoResponseProto.decode(e).message)).toEqual([big, 'a', 'b']);
    }, 180_000);
  },
);

describe('KERBEROS refusals, against Apache Hadoop’s RPC.Server (hadoop.rpc.protection=authentication)', () => {
  let peer: HadoopRpcPeer;
  beforeAll(async () => {
    peer = await startPeer('authentication');
  }, 180_000);
  afterAll(async () => {
    await peer?.close();
  });
  const ping = async (options: Partial<KerberosSaslMechanismOptions>) => {
    await using client = clientFor(options);
    return await client
      .call({ address: peer.address, ...TEST_RPC_PROTOCOL, method: 'ping', request: empty })
      .then(
        () => 'answered',
        (e: unknown) => e,
      );
  };

  it('logs in from a keytab alone, without the process environment', async () => {
    await setNativeEnvironment({ KRB5CCNAME: `FILE:${kdc.dir}/no-such-cache` });
    const keytab = await kdc.keytab([kdc.principal('carol')]);
    await using client = clientFor({ keytab, principal: kdc.principal('carol') });
    const whoAmI = async () =>
      m.UserResponseProto.decode(
        await client.call({
          address: peer.address,
          ...TEST_RPC_PROTOCOL,
          method: 'getAuthUser',
          request: empty,
        }),
      ).user;
    expect(await whoAmI()).toBe(kdc.principal('carol'));
    const asRequests = async () =>
      (await kdcLogLines()).filter((l) => l.includes('AS_REQ') && l.includes('carol@')).length;
    expect(await asRequests()).toBe(1);
    // Without a principal, the keytab's first one.
    expect(await ping({ keytab })).toBe('answered');
  });

  it('without a ticket: no-ticket', async () => {
    await setNativeEnvironment({ KRB5CCNAME: `FILE:${kdc.dir}/no-such-cache` });
    const error = await ping({});
    expect(error).toBeInstanceOf(HadoopRpcKerberosError);
    expect(error).toMatchObject({
      code: 'ERR_HADOOP_RPC_KERBEROS',
      reason: 'no-ticket',
      address: peer.address,
    });
  });

  it('with an expired ticket: expired-ticket', async () => {
    await loggedInAs('bob', 1);
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    const error = await ping({});
    expect(error).toMatchObject({ reason: 'expired-ticket' });
  });

  it('a server advertising another principal than the configured one is refused before a ticket is asked for', async () => {
    await loggedInAs('alice');
    const before = await kdcLogLines();
    const error = await ping({ serverPrincipal: `om/_HOST@${kdc.realm}` });
    expect(error).toBeInstanceOf(HadoopRpcKerberosError);
    expect(error).toMatchObject({ reason: 'server-principal' });
    expect((error as Error).message).toContain(
      `Server has invalid Kerberos principal: hrpc/localhost@${kdc.realm}`,
    );
    const after = await kdcLogLines();
    expect(after.slice(before.length).filter((l) => l.includes('TGS_REQ'))).toEqual([]);
    // The pattern form accepts it.
    expect(await ping({ serverPrincipalPattern: `hrpc/*@${kdc.realm}` })).toBe('answered');
  });

  it('a replayed AP-REQ and garbage in its place are refused by Hadoop (FATAL); the server serves on', async () => {
    await loggedInAs('alice');
    const taken: Uint8Array[] = [];
    const real = createKerberosSaslMechanism({ serverPrincipal: `hrpc/_HOST@${kdc.realm}` });
    await using genuine = createHadoopRpcClient({
      authProtocol: 'sasl',
      saslMechanisms: [tapped(real, taken)],
    });
    const ping = (client: typeof genuine) =>
      client.call({ address: peer.address, ...TEST_RPC_PROTOCOL, method: 'ping', request: empty });
    await ping(genuine);
    for (const token of [taken[0] as Uint8Array, randomBytes(600), new Uint8Array(0)]) {
      await using attacker = createHadoopRpcClient({
        authProtocol: 'sasl',
        saslMechanisms: [sendingAsKerberos(token)],
      });
      const refused = await ping(attacker).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(RemoteException);
      expect((refused as RemoteException).errorDetail).toBe('FATAL_UNAUTHORIZED');
    }
    await using later = clientFor({});
    expect(await ping(later)).toBeDefined();
  });

  it('a client requiring privacy refuses a server offering only authentication (no downgrade)', async () => {
    await loggedInAs('alice');
    const error = await ping({ protection: ['privacy'] });
    expect(error).toBeInstanceOf(HadoopRpcSaslQopError);
    expect(error).toMatchObject({ offered: ['auth'], required: ['auth-conf'] });
  });
});

async function kdcLogLines(): Promise<string[]> {
  const { readFile } = await import('node:fs/promises');
  return (await readFile(kdc.logFile, 'utf8')).split('\n');
}
