// TOKEN (DIGEST-MD5) against the test server's TOKEN mechanism: each QOP of hadoop.rpc.protection
// with calls through the security layer, the token chosen for the service, a wrong password refused,
// and a server offering weaker protection than the client requires refused by the client.
import { Redacted } from '@fastpath/core';
import { Token } from '@fastpath/hadoop-common';
import {
  createHadoopRpcClient,
  createTokenSaslMechanism,
  type HadoopRpcProtection,
  HadoopRpcSaslError,
  HadoopRpcSaslQopError,
  RemoteException,
  SIMPLE_SASL_MECHANISM,
} from '@fastpath/hadoop-rpc';
import {
  startHadoopRpcTestServer,
  TEST_RPC_PROTOCOL,
  testRpcMessages as m,
  testRpcProtocol,
  tokenTestSaslMechanism,
} from '@fastpath/hadoop-rpc/testing';

const PASSWORD = Buffer.from('a-token-password-of-twenty-bytes');
const IDENTIFIER = Buffer.from([0x00, 0x05, 0x61, 0x6c, 0x69, 0x63, 0x65, 0xff, 0x10]);

const tokenFor = (service: string, password: Buffer = PASSWORD, identifier: Buffer = IDENTIFIER): Token =>
  new Token({ identifier, password: new Redacted(password), kind: 'TESTING', service });

const secretManager = (identifier: Buffer): Buffer | undefined =>
  identifier.equals(IDENTIFIER) ? PASSWORD : undefined;

const echo = async (client: ReturnType<typeof createHadoopRpcClient>, address: string, message: string) =>
  m.EchoResponseProto.decode(
    await client.call({
      address,
      ...TEST_RPC_PROTOCOL,
      method: 'echo',
      request: m.EchoRequestProto.encode({ message }).finish(),
    }),
  ).message;

describe('TOKEN (DIGEST-MD5)', () => {
  const cases: [HadoopRpcProtection, 'auth' | 'auth-int' | 'auth-conf'][] = [
    ['authentication', 'auth'],
    ['integrity', 'auth-int'],
    ['privacy', 'auth-conf'],
  ];
  it.each(cases)('protection %s (QOP %s): authenticates and calls work', async (protection, qop) => {
    await using server = await startHadoopRpcTestServer({
      protocols: [testRpcProtocol()],
      authMethods: ['KERBEROS'],
      saslMechanism: tokenTestSaslMechanism({
        retrievePassword: secretManager,
        qop: ['auth-conf', 'auth-int', 'auth'],
      }),
    });
    await using client = createHadoopRpcClient({
      authProtocol: 'sasl',
      saslMechanisms: [
        createTokenSaslMechanism({ tokens: [tokenFor(server.address)], protection: [protection] }),
      ],
    });
    const big = 'x'.repeat(200_000);
    expect(await echo(client, server.address, 'hello')).toBe('hello');
    expect(await echo(client, server.address, big)).toBe(big);
    // With a security layer every frame after SUCCESS travels in WRAP messages; with auth none does.
    if (qop === 'auth') expect(server.wrapsReceived).toBe(0);
    else {
      // The 200 KB call cut to the server's maxbuf (64 KiB), every message within it.
      expect(server.wrapsReceived).toBeGreaterThanOrEqual(4);
      expect(server.largestWrapReceived).toBeLessThanOrEqual(65536);
    }
  });

  it('the token chosen is the one for the service; a token for another service is not used', async () => {
    await using server = await startHadoopRpcTestServer({
      protocols: [testRpcProtocol()],
      saslMechanism: tokenTestSaslMechanism({ retrievePassword: secretManager }),
    });
    const other = tokenFor(`1${server.address}`, Buffer.from('wrong'));
    await using wrongOnly = createHadoopRpcClient({
      authProtocol: 'sasl',
      saslMechanisms: [createTokenSaslMechanism({ tokens: [other] })],
    });
    const refused = await echo(wrongOnly, server.address, 'x').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(HadoopRpcSaslError);
    expect((refused as HadoopRpcSaslError).offered).toEqual(['TOKEN/DIGEST-MD5', 'SIMPLE']);
    await using client = createHadoopRpcClient({
      authProtocol: 'sasl',
      saslMechanisms: [
        createTokenSaslMechanism({ tokens: [other, tokenFor(`10.9.9.9:1,${server.address}`)] }),
        SIMPLE_SASL_MECHANISM,
      ],
    });
    expect(await echo(client, server.address, 'picked')).toBe('picked');
    // Connected by name, the token for the resolved ip:port is the one (Hadoop's use_ip default).
    await using byName = createHadoopRpcClient({
      authProtocol: 'sasl',
      saslMechanisms: [createTokenSaslMechanism({ tokens: [tokenFor(server.address)] })],
    });
    expect(await echo(byName, `localhost:${server.port}`, 'by name')).toBe('by name');
  });

  it('a wrong token password: the server refuses (FATAL), and the password appears nowhere in the error', async () => {
    await using server = await startHadoopRpcTestServer({
      protocols: [testRpcProtocol()],
      authMethods: ['KERBEROS'],
      saslMechanism: tokenTestSaslMechanism({ retrievePassword: secretManager }),
    });
    const secret = Buffer.from('not-the-password-at-all');
    await using client = createHadoopRpcClient({
      authProtocol: 'sasl',
      saslMechanisms: [createTokenSaslMechanism({ tokens: [tokenFor(server.address, secret)] })],
    });
    const error = await echo(client, server.address, 'x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RemoteException);
    expect((error as RemoteException).message).toMatch(/Mismatched response/);
    const printed = `${String(error)} ${JSON.stringify(error)} ${(error as Error).stack ?? ''}`;
    expect(printed).not.toContain(secret.toString('base64'));
    expect(printed).not.toContain(secret.toString());
  });

  it('downgrade: a server offering only weaker QOP than configured is refused by the client', async () => {
    await using server = await startHadoopRpcTestServer({
      protocols: [testRpcProtocol()],
      authMethods: ['KERBEROS'],
      saslMechanism: tokenTestSaslMechanism({ retrievePassword: secretManager, qop: ['auth-int', 'auth'] }),
    });
    await using client = createHadoopRpcClient({
      authProtocol: 'sasl',
      saslMechanisms: [
        createTokenSaslMechanism({ tokens: [tokenFor(server.address)], protection: ['privacy'] }),
      ],
    });
    const error = await echo(client, server.address, 'x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HadoopRpcSaslQopError);
    expect(error).toMatchObject({
      code: 'ERR_HADOOP_RPC_SASL_QOP',
      offered: ['auth-int', 'auth'],
      required: ['auth-conf'],
    });
    expect(server.callsReceived).toBe(0);
  });

  it('a server that does not prove the password (bad rspauth) is refused', async () => {
    const real = tokenTestSaslMechanism({ retrievePassword: secretManager });
    await using server = await startHadoopRpcTestServer({
      protocols: [testRpcProtocol()],
      authMethods: ['KERBEROS'],
      saslMechanism: () => {
        const mech = real();
        return {
          ...mech,
          evaluate: async (token: Uint8Array) => ({
            ...(await mech.evaluate(token)),
            token: Buffer.from('rspauth=' + '0'.repeat(32)),
          }),
        };
      },
    });
    await using client = createHadoopRpcClient({
      authProtocol: 'sasl',
      saslMechanisms: [createTokenSaslMechanism({ tokens: [tokenFor(server.address)] })],
    });
    const error = await echo(client, server.address, 'x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HadoopRpcSaslError);
    expect((error as Error).message).toMatch(/bad rspauth/);
    expect(server.callsReceived).toBe(0);
  });
});
