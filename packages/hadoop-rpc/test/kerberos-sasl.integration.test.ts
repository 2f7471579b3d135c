// KERBEROS (SASL GSSAPI) between fastpath's client and the Node test server's GSSAPI acceptor, on
// a real MIT KDC: every hadoop.rpc.protection with calls through its layer, the server seeing the
// ticket's principal; and the refusals either side must make: a ticket for another service, a server offering less protection than the client
// requires, a server whose wrapped answers are tampered with.
import { setNativeEnvironment } from '@fastpath/kerberos-fixture';
import { useKdc } from '@fastpath/kerberos-fixture/jest';
import {
  createHadoopRpcClient,
  createKerberosSaslMechanism,
  createTokenSaslMechanism,
  type HadoopRpcProtection,
  HadoopRpcProtocolError,
  HadoopRpcSaslQopError,
  RemoteException,
  RPC_PROTECTION_QOP,
  SIMPLE_SASL_MECHANISM,
} from '@fastpath/hadoop-rpc';
import { Redacted } from '@fastpath/core';
import { Token } from '@fastpath/hadoop-common';
import {
  kerberosTestSaslMechanism,
  sendingAsKerberos,
  startHadoopRpcTestServer,
  tapped,
  tokenTestSaslMechanism,
  TEST_RPC_PROTOCOL,
  testRpcMessages as m,
  testRpcProtocol,
} from '@fastpath/hadoop-rpc/testing';
import type { SaslQop } from '../src/internal/sasl/digest-md5.js';

const kdc = useKdc({ processEnv: true });
const empty = new Uint8Array(0);

async function startServer(qop: readonly SaslQop[], principalName = 'hrpc/localhost') {
  const principal = kdc.principal(principalName);
  return startHadoopRpcTestServer({
    protocols: [testRpcProtocol()],
    authMethods: [],
    saslMechanism: kerberosTestSaslMechanism({ principal, keytab: await kdc.keytab([principal]), qop }),
  });
}

function kerberosClient(protection: readonly HadoopRpcProtection[], serverPrincipal = 'hrpc/_HOST') {
  return createHadoopRpcClient({
    authProtocol: 'sasl',
    saslMechanisms: [
      createKerberosSaslMechanism({ serverPrincipal: `${serverPrincipal}@${kdc.realm}`, protection }),
    ],
  });
}

beforeAll(async () => {
  await setNativeEnvironment({ KRB5CCNAME: await kdc.kinit('alice', { lifetimeSeconds: 3600 }) });
});

describe.each<HadoopRpcProtection>(['authentication', 'integrity', 'privacy'])(
  'KERBEROS with the test server, %s',
  (protection) => {
    it('authenticates the ticket’s principal and runs calls through the layer', async () => {
      await using server = await startServer([RPC_PROTECTION_QOP[protection]]);
      await using client = kerberosClient([protection]);
      const call = (method: string, request: Uint8Array = empty) =>
        client.call({ address: server.address, ...TEST_RPC_PROTOCOL, method, request });
      expect(m.UserResponseProto.decode(await call('getAuthUser')).user).toBe(kdc.principal('alice'));
      const before = server.wrapsReceived;
      const messages = ['x'.repeat(200_000), 'y', 'z'];
      const echoes = await Promise.all(
        messages.map((message) => call('echo', m.EchoRequestProto.encode({ message }).finish())),
      );
      expect(echoes.map((e) => m.EchoResponseProto.decode(e).message)).toEqual(messages);
      if (protection === 'authentication') {
        expect(server.wrapsReceived).toBe(0);
        return;
      }
      // The three calls of one turn went through the layer together, cut to the 64 KiB receive
      // buffer the server announced: 200 KB in four messages, not one per call, none too long.
      expect(server.wrapsReceived - before).toBe(4);
      expect(server.largestWrapReceived).toBeLessThanOrEqual(65536);
    });
  },
);

it('prefers the first protection the server offers of the client’s list', async () => {
  await using server = await startServer(['auth', 'auth-int']);
  await using client = kerberosClient(['privacy', 'integrity']);
  await client.call({ address: server.address, ...TEST_RPC_PROTOCOL, method: 'ping', request: empty });
  // A layer was chosen (integrity): the context and the call went wrapped.
  expect(server.wrapsReceived).toBeGreaterThan(0);
});

it('downgrade: a server offering only weaker protection than required is refused by the client', async () => {
  await using server = await startServer(['auth', 'auth-int']);
  await using client = kerberosClient(['privacy']);
  const error = await client
    .call({ address: server.address, ...TEST_RPC_PROTOCOL, method: 'ping', request: empty })
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(HadoopRpcSaslQopError);
  expect(error).toMatchObject({ offered: ['auth', 'auth-int'], required: ['auth-conf'] });
  expect(server.callsReceived).toBe(0);
});

it('a ticket for another service is refused by the server (FATAL_UNAUTHORIZED), and it stays up', async () => {
  // The server holds only the key of hrpc/localhost; a client made to aim at another service's
  // principal (the pattern lets it accept any) presents a ticket the server cannot read.
  await kdc.addPrincipal('other/localhost');
  const principal = kdc.principal('hrpc/localhost');
  const wrongKeys = await kdc.keytab([kdc.principal('other/localhost')]);
  await using server = await startHadoopRpcTestServer({
    protocols: [testRpcProtocol()],
    authMethods: [],
    saslMechanism: kerberosTestSaslMechanism({ principal, keytab: wrongKeys }),
  });
  await using client = kerberosClient(['authentication']);
  const error = await client
    .call({ address: server.address, ...TEST_RPC_PROTOCOL, method: 'ping', request: empty })
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(RemoteException);
  expect((error as RemoteException).errorDetail).toBe('FATAL_UNAUTHORIZED');
  expect(server.callsReceived).toBe(0);
  // Still serving: a SIMPLE client is refused in words, not by a dead socket.
  await using simple = createHadoopRpcClient({
    authProtocol: 'sasl',
    saslMechanisms: [SIMPLE_SASL_MECHANISM],
  });
  const refused = await simple
    .call({ address: server.address, ...TEST_RPC_PROTOCOL, method: 'ping', request: empty })
    .catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(Error);
  expect((refused as Error).message).toMatch(/KERBEROS/);
});

it('a wrapped answer altered on the way is refused, not read', async () => {
  await using server = await startServer(['auth-conf']);
  await using client = kerberosClient(['privacy']);
  const call = () =>
    client.call({ address: server.address, ...TEST_RPC_PROTOCOL, method: 'ping', request: empty });
  await call();
  server.injectFault('corrupt-wrap');
  const error = await call().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(HadoopRpcProtocolError);
  expect((error as Error).message).toMatch(/did not unwrap/);
});

it('a server offering [TOKEN, KERBEROS] as a secure Hadoop server does: a token holder uses its token, the rest Kerberos', async () => {
  const principal = kdc.principal('hrpc/localhost');
  const password = Buffer.from('token-password');
  await using server = await startHadoopRpcTestServer({
    protocols: [testRpcProtocol()],
    authMethods: [],
    saslMechanisms: [
      tokenTestSaslMechanism({
        retrievePassword: (id) => (id.toString() === 'id-of-bob' ? password : undefined),
        userOf: (id) => id.toString().slice('id-of-'.length),
      }),
      kerberosTestSaslMechanism({ principal, keytab: await kdc.keytab([principal]) }),
    ],
  });
  const whoAmI = async (client: ReturnType<typeof createHadoopRpcClient>) =>
    m.UserResponseProto.decode(
      await client.call({
        address: server.address,
        ...TEST_RPC_PROTOCOL,
        method: 'getAuthUser',
        request: empty,
      }),
    ).user;
  await using kerberosOnly = kerberosClient(['authentication']);
  expect(await whoAmI(kerberosOnly)).toBe(kdc.principal('alice'));
  const token = new Token({
    identifier: Buffer.from('id-of-bob'),
    password: new Redacted(password),
    kind: 'TEST',
    service: server.address,
  });
  await using withToken = createHadoopRpcClient({
    authProtocol: 'sasl',
    saslMechanisms: [
      createTokenSaslMechanism({ tokens: [token] }),
      createKerberosSaslMechanism({ serverPrincipal: `hrpc/_HOST@${kdc.realm}` }),
    ],
  });
  // The token's user, not a Kerberos principal: the token was used.
  expect(await whoAmI(withToken)).toBe('bob');
  expect(server.connectionsAccepted).toBe(2);
});

it('a replayed GSSAPI token (an AP-REQ captured from another connection) is refused, and the server stays up', async () => {
  await using server = await startServer(['auth']);
  const taken: Uint8Array[] = [];
  const real = createKerberosSaslMechanism({ serverPrincipal: `hrpc/_HOST@${kdc.realm}` });
  await using genuine = createHadoopRpcClient({
    authProtocol: 'sasl',
    saslMechanisms: [tapped(real, taken)],
  });
  await genuine.call({ address: server.address, ...TEST_RPC_PROTOCOL, method: 'ping', request: empty });
  expect(taken[0]?.length).toBeGreaterThan(100);
  // The attacker sends the captured AP-REQ on a connection of its own.
  await using attacker = createHadoopRpcClient({
    authProtocol: 'sasl',
    saslMechanisms: [sendingAsKerberos(taken[0] as Uint8Array)],
  });
  const refused = await attacker
    .call({ address: server.address, ...TEST_RPC_PROTOCOL, method: 'ping', request: empty })
    .catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(RemoteException);
  expect((refused as RemoteException).errorDetail).toBe('FATAL_UNAUTHORIZED');
  expect((refused as RemoteException).errorMessage).toMatch(/replay/i);
  expect(server.callsReceived).toBe(1);
  // Still serving the genuine client.
  await genuine.call({ address: server.address, ...TEST_RPC_PROTOCOL, method: 'ping', request: empty });
});
