// SASL negotiation through the one mechanism seam: SIMPLE with a SIMPLE-only server and with a
// server that offers more, a server that demands TOKEN/KERBEROS, and a mechanism other than
// SIMPLE chosen from the server's offer (the path KERBEROS and TOKEN will take).
import {
  createHadoopRpcClient,
  HadoopRpcSaslError,
  RemoteException,
  type SaslAuth,
  type SaslMechanism,
  SIMPLE_SASL_MECHANISM,
} from '@fastpath/hadoop-rpc';
import {
  CALL_CONTEXT_REQUEST,
  startHadoopRpcTestServer,
  TEST_RPC_PROTOCOL,
  testRpcMessages as m,
  testRpcProtocol,
} from '@fastpath/hadoop-rpc/testing';

const getUser = async (client: ReturnType<typeof createHadoopRpcClient>, address: string): Promise<string> =>
  m.UserResponseProto.decode(
    await client.call({ address, ...TEST_RPC_PROTOCOL, method: 'getAuthUser', request: new Uint8Array(0) }),
  ).user;

/** A TOKEN mechanism for tests: records the offer it was shown; `accept` decides whether it takes it. */
function recordingTokenMechanism(
  accept: boolean,
): SaslMechanism & { offers: SaslAuth[]; started: SaslAuth[] } {
  const offers: SaslAuth[] = [];
  const started: SaslAuth[] = [];
  return {
    method: 'TOKEN',
    mechanism: 'DIGEST-MD5',
    offers,
    started,
    accepts: (auth) => {
      offers.push(auth);
      return accept;
    },
    start: (auth) => {
      started.push(auth);
      return {
        completesWithoutReply: false,
        initialResponse: () => Promise.resolve(Buffer.from('first-response')),
        evaluateChallenge: () => Promise.resolve(undefined),
        complete: false,
        securityLayer: () => undefined,
        contextUser: {},
      };
    },
  };
}

describe('SASL negotiation', () => {
  it('a server that demands TOKEN or KERBEROS: a typed error naming what it offered', async () => {
    await using server = await startHadoopRpcTestServer({
      protocols: [testRpcProtocol()],
      authMethods: ['TOKEN', 'KERBEROS'],
    });
    await using client = createHadoopRpcClient({ user: 'alice', authProtocol: 'sasl' });
    const error = await getUser(client, server.address).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HadoopRpcSaslError);
    expect(error).toMatchObject({
      code: 'ERR_HADOOP_RPC_SASL',
      offered: ['TOKEN/DIGEST-MD5', 'KERBEROS/GSSAPI'],
      retriable: false,
    });
    expect((error as Error).message).toMatch(/cannot authenticate via:\[TOKEN, KERBEROS\]/);
    expect(client.connectionsOpen).toBe(0);
  });

  it('the same server to a client without SASL: FATAL AccessControlException, as Hadoop answers', async () => {
    await using server = await startHadoopRpcTestServer({
      protocols: [testRpcProtocol()],
      authMethods: ['TOKEN', 'KERBEROS'],
    });
    await using client = createHadoopRpcClient({ user: 'alice' });
    const error = await getUser(client, server.address).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RemoteException);
    expect(error).toMatchObject({
      status: 'FATAL',
      callId: -1,
      className: 'org.apache.hadoop.security.AccessControlException',
      errorDetail: 'FATAL_UNAUTHORIZED',
      firstLine: 'SIMPLE authentication is not enabled.  Available:[TOKEN, KERBEROS]',
    });
  });

  it('a server that offers SIMPLE among others: INITIATE SIMPLE, after walking past a mechanism that declines', async () => {
    await using server = await startHadoopRpcTestServer({
      protocols: [testRpcProtocol()],
      authMethods: ['TOKEN', 'SIMPLE'],
    });
    const token = recordingTokenMechanism(false);
    await using client = createHadoopRpcClient({
      user: 'dave',
      authProtocol: 'sasl',
      saslMechanisms: [token, SIMPLE_SASL_MECHANISM],
    });
    expect(await getUser(client, server.address)).toBe('dave');
    expect(token.offers).toEqual([
      { method: 'TOKEN', mechanism: 'DIGEST-MD5', protocol: '', serverId: 'default', challenge: undefined },
    ]);
    expect(token.started).toEqual([]);
  });

  it('a mechanism that accepts the offer is started and INITIATE names its method', async () => {
    await using server = await startHadoopRpcTestServer({
      protocols: [testRpcProtocol()],
      authMethods: ['TOKEN', 'SIMPLE'],
    });
    const token = recordingTokenMechanism(true);
    await using client = createHadoopRpcClient({
      user: 'erin',
      authProtocol: 'sasl',
      saslMechanisms: [token, SIMPLE_SASL_MECHANISM],
    });
    // The test server knows no DIGEST-MD5: it refuses the INITIATE as Hadoop refuses a method it
    // does not serve, which shows the exchange went through the mechanism.
    const error = await getUser(client, server.address).catch((e: unknown) => e);
    expect(token.started).toHaveLength(1);
    expect(error).toBeInstanceOf(RemoteException);
    expect(error).toMatchObject({
      status: 'FATAL',
      callId: -33,
      className: 'org.apache.hadoop.security.AccessControlException',
      firstLine: 'TOKEN authentication is not enabled.  Available:[TOKEN, SIMPLE]',
    });
  });

  it('a client without SIMPLE refuses a server that falls back to it', async () => {
    await using server = await startHadoopRpcTestServer({ protocols: [testRpcProtocol()] });
    await using client = createHadoopRpcClient({
      user: 'alice',
      authProtocol: 'sasl',
      saslMechanisms: [recordingTokenMechanism(true)],
    });
    const error = await getUser(client, server.address).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HadoopRpcSaslError);
    expect((error as Error).message).toMatch(/fall back to SIMPLE/);
  });

  it('a mechanism with a challenge round and a security layer: every frame after SUCCESS goes wrapped', async () => {
    // A toy layer (XOR with a per-direction byte, a marker in front) shows the wrapping, not security.
    const layer = (out: number, inn: number) => ({
      wrap: (plain: Uint8Array) => Buffer.concat([Buffer.from('W'), Buffer.from(plain.map((b) => b ^ out))]),
      unwrap: (wrapped: Uint8Array) => {
        if (wrapped[0] !== 0x57) throw new Error('not wrapped');
        return Buffer.from(wrapped.subarray(1).map((b) => b ^ inn));
      },
    });
    const seen: string[] = [];
    await using server = await startHadoopRpcTestServer({
      protocols: [testRpcProtocol()],
      saslMechanism: {
        method: 'TOKEN',
        mechanism: 'TEST-MECH',
        protocol: '',
        serverId: 'default',
        evaluate: (token) => {
          seen.push(Buffer.from(token).toString());
          return seen.length === 1
            ? { done: false, token: Buffer.from('challenge-1') }
            : { done: true, token: Buffer.from('ok') };
        },
        securityLayer: layer(0x33, 0x5a),
      },
    });
    const clientSaw: string[] = [];
    let complete = false;
    const mechanism: SaslMechanism = {
      method: 'TOKEN',
      mechanism: 'TEST-MECH',
      accepts: () => true,
      start: () => ({
        completesWithoutReply: false,
        initialResponse: () => Promise.resolve(Buffer.from('initial')),
        evaluateChallenge: (challenge) => {
          clientSaw.push(Buffer.from(challenge).toString());
          if (clientSaw.length === 1) return Promise.resolve(Buffer.from('response-1'));
          complete = true;
          return Promise.resolve(undefined);
        },
        get complete() {
          return complete;
        },
        securityLayer: () => layer(0x5a, 0x33),
        contextUser: { effectiveUser: 'token-user' },
      }),
    };
    await using client = createHadoopRpcClient({
      user: 'alice',
      authProtocol: 'sasl',
      saslMechanisms: [mechanism],
    });
    const context = m.EchoResponseProto2.decode(
      await client.call({
        address: server.address,
        ...TEST_RPC_PROTOCOL,
        method: 'echo2',
        request: m.EchoRequestProto2.encode({ message: [CALL_CONTEXT_REQUEST] }).finish(),
      }),
    ).message;
    expect(seen).toEqual(['initial', 'response-1']);
    expect(clientSaw).toEqual(['challenge-1', 'ok']);
    expect(context[0]).toBe('token-user');
    expect(context[1]).toBe(Buffer.from(client.clientId).toString('hex'));
    const before = server.wrapsReceived;
    const many = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        client
          .call({
            address: server.address,
            ...TEST_RPC_PROTOCOL,
            method: 'echo',
            request: m.EchoRequestProto.encode({ message: `w${i}` }).finish(),
          })
          .then((r) => m.EchoResponseProto.decode(r).message),
      ),
    );
    expect(many).toEqual(Array.from({ length: 20 }, (_, i) => `w${i}`));
    // The 20 calls were made in one turn of the event loop: one WRAP message carried them all.
    expect(server.wrapsReceived - before).toBe(1);
  });
});
