// What the client does beyond the contract suite, against the /testing server: connections per
// server sharing one client id, refused connections, argument checks, close() not holding the process.
import { execFile } from 'node:child_process';
import { Socket } from 'node:net';
import { jest } from '@jest/globals';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  createHadoopRpcClient,
  HadoopRpcConnectError,
  HadoopRpcInvalidArgumentError,
  RemoteException,
} from '@fastpath/hadoop-rpc';
import {
  CALL_CONTEXT_REQUEST,
  JavaExceptionReply,
  startHadoopRpcTestServer,
  TEST_RPC_PROTOCOL,
  testRpcMessages as m,
  testRpcProtocol,
} from '@fastpath/hadoop-rpc/testing';

const contextOf = async (
  client: ReturnType<typeof createHadoopRpcClient>,
  address: string,
  extra: { callId?: number; retryCount?: number } = {},
): Promise<string[]> =>
  m.EchoResponseProto2.decode(
    await client.call({
      address,
      ...TEST_RPC_PROTOCOL,
      method: 'echo2',
      request: m.EchoRequestProto2.encode({ message: [CALL_CONTEXT_REQUEST] }).finish(),
      ...extra,
    }),
  ).message;

describe('HadoopRpcClient', () => {
  it('shares one client id across its connections, so a call re-sent to another server keeps its identity', async () => {
    await using a = await startHadoopRpcTestServer({ protocols: [testRpcProtocol()] });
    await using b = await startHadoopRpcTestServer({ protocols: [testRpcProtocol()] });
    await using client = createHadoopRpcClient({ user: 'alice' });
    const callId = client.nextCallId();
    const onA = await contextOf(client, a.address, { callId, retryCount: 0 });
    const onB = await contextOf(client, b.address, { callId, retryCount: 1 });
    expect(onB).toEqual([onA[0], onA[1], String(callId), '1']);
    expect(onA[1]).toBe(Buffer.from(client.clientId).toString('hex'));
    expect(client.connectionsOpen).toBe(2);
  });

  it('lets a server keep a retry cache by client id and call id', async () => {
    const applied = new Map<string, string>();
    let runs = 0;
    await using server = await startHadoopRpcTestServer({
      protocols: [
        {
          name: 'org.example.Counter',
          version: 1,
          methods: {
            increment: (_request, context) => {
              const key = `${context.clientId.toString('hex')}:${context.callId}`;
              let answer = applied.get(key);
              if (answer === undefined) {
                answer = String(++runs);
                applied.set(key, answer);
              }
              return Promise.resolve(Buffer.from(answer));
            },
          },
        },
      ],
    });
    await using client = createHadoopRpcClient({ user: 'alice' });
    const increment = (callId?: number, retryCount?: number) =>
      client.call({
        address: server.address,
        protocol: 'org.example.Counter',
        protocolVersion: 1,
        method: 'increment',
        request: new Uint8Array(0),
        ...(callId === undefined ? {} : { callId }),
        ...(retryCount === undefined ? {} : { retryCount }),
      });
    const callId = client.nextCallId();
    const first = Buffer.from(await increment(callId, 0)).toString();
    const resent = Buffer.from(await increment(callId, 1)).toString();
    const other = Buffer.from(await increment()).toString();
    expect([first, resent, other]).toEqual(['1', '1', '2']);
  });

  it('answers ERROR with the class a handler names, in Ozone’s ipc_ package where asked', async () => {
    await using server = await startHadoopRpcTestServer({
      ipcPackage: 'org.apache.hadoop.ipc_',
      protocols: [
        {
          name: 'org.example.Busy',
          version: 1,
          methods: {
            call: () =>
              Promise.reject(
                new JavaExceptionReply('org.apache.hadoop.ipc_.RetriableException', 'Server too busy'),
              ),
          },
        },
      ],
    });
    await using client = createHadoopRpcClient({ user: 'alice' });
    const busy = await client
      .call({
        address: server.address,
        protocol: 'org.example.Busy',
        protocolVersion: 1,
        method: 'call',
        request: new Uint8Array(0),
      })
      .catch((e: unknown) => e);
    expect(busy).toBeInstanceOf(RemoteException);
    expect(busy).toMatchObject({
      className: 'org.apache.hadoop.ipc_.RetriableException',
      retriable: true,
      firstLine: 'Server too busy',
    });
    const unknown = await client
      .call({
        address: server.address,
        protocol: 'org.example.Busy',
        protocolVersion: 1,
        method: 'nope',
        request: new Uint8Array(0),
      })
      .catch((e: unknown) => e);
    expect(unknown).toMatchObject({ className: 'org.apache.hadoop.ipc_.RpcNoSuchMethodException' });
  });

  it('says a refused connection was refused', async () => {
    const server = await startHadoopRpcTestServer({ protocols: [testRpcProtocol()] });
    const address = server.address;
    await server.close();
    await using client = createHadoopRpcClient({ user: 'alice' });
    const error = await client
      .call({ address, ...TEST_RPC_PROTOCOL, method: 'ping', request: new Uint8Array(0) })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HadoopRpcConnectError);
    expect(error).toMatchObject({
      code: 'ERR_HADOOP_RPC_CONNECT',
      reason: 'refused',
      syscallCode: 'ECONNREFUSED',
      retriable: true,
    });
    expect(client.connectionsOpen).toBe(0);
  });

  it.each([
    ['address', { address: 'no-port' }],
    ['address', { address: 'host:70000' }],
    ['protocol', { protocol: '' }],
    ['method', { method: '' }],
    ['callId', { callId: -1 }],
    ['callId', { callId: 2 ** 31 }],
    ['retryCount', { retryCount: 1.5 }],
    ['request', { request: 'text' }],
  ])('refuses a bad %s before connecting', async (argument, bad) => {
    await using client = createHadoopRpcClient({ user: 'alice' });
    const call = {
      address: '127.0.0.1:1',
      ...TEST_RPC_PROTOCOL,
      method: 'ping',
      request: new Uint8Array(0),
      ...bad,
    };
    const error = await client.call(call as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HadoopRpcInvalidArgumentError);
    expect((error as HadoopRpcInvalidArgumentError).argument).toBe(argument);
    expect(client.connectionsOpen).toBe(0);
  });

  it('refuses a call id already in flight on the connection', async () => {
    await using server = await startHadoopRpcTestServer({ protocols: [testRpcProtocol()] });
    await using client = createHadoopRpcClient({ user: 'alice' });
    const callId = client.nextCallId();
    const sleep = m.SleepRequestProto.encode({ milliSeconds: 200 }).finish();
    const first = client.call({
      address: server.address,
      ...TEST_RPC_PROTOCOL,
      method: 'sleep',
      request: sleep,
      callId,
    });
    const second = await client
      .call({ address: server.address, ...TEST_RPC_PROTOCOL, method: 'sleep', request: sleep, callId })
      .catch((e: unknown) => e);
    expect(second).toBeInstanceOf(HadoopRpcInvalidArgumentError);
    await first;
  });

  it('sends the calls made in one turn of the event loop in one write, and each alone when made apart', async () => {
    await using server = await startHadoopRpcTestServer({ protocols: [testRpcProtocol()] });
    await using client = createHadoopRpcClient({ user: 'alice' });
    await contextOf(client, server.address); // connected, its handshake written
    // The stream API's two ways down to the socket: _write for one buffered chunk, _writev for more.
    const single = jest.spyOn(Socket.prototype, '_write');
    const vector = jest.spyOn(Socket.prototype, '_writev');
    try {
      const echo = (i: number) =>
        client.call({
          address: server.address,
          ...TEST_RPC_PROTOCOL,
          method: 'echo',
          request: m.EchoRequestProto.encode({ message: `m${i}` }).finish(),
        });
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => echo(i)));
      expect(answers.map((a) => m.EchoResponseProto.decode(a).message)).toEqual(
        Array.from({ length: 10 }, (_, i) => `m${i}`),
      );
      // The server answers on sockets of this process too: only the client's writes count.
      const toServer = (mock: { contexts: unknown[]; calls: unknown[][] }) =>
        mock.calls.filter((_, i) => {
          const socket = mock.contexts[i] as Socket;
          return `${socket.remoteAddress}:${socket.remotePort}` === server.address;
        });
      // The ten frames joined into one buffer, one write.
      expect(toServer(vector.mock)).toHaveLength(0);
      expect(toServer(single.mock)).toHaveLength(1);
      const joined = toServer(single.mock)[0]![0] as Buffer;
      let frames = 0;
      for (let at = 0; at < joined.length; at += 4 + joined.readUInt32BE(at)) frames++;
      expect(frames).toBe(10);
      // One call in a turn goes out alone, at once.
      await echo(10);
      await echo(11);
      expect(toServer(single.mock)).toHaveLength(3);
      expect(toServer(vector.mock)).toHaveLength(0);
    } finally {
      single.mockRestore();
      vector.mockRestore();
    }
  });

  it('close() leaves nothing that keeps the process alive', async () => {
    await using server = await startHadoopRpcTestServer({ protocols: [testRpcProtocol()] });
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        '--import',
        'tsx',
        '--conditions=development',
        join(__dirname, 'support', 'close-exits-main.ts'),
        server.address,
      ],
      { timeout: 60_000 },
    );
    expect(stdout.trim()).toBe('failed closed');
  });

  it('exports its metrics: calls, errors by class, latency, connections open', async () => {
    await using server = await startHadoopRpcTestServer({ protocols: [testRpcProtocol()] });
    await using client = createHadoopRpcClient({ user: 'alice', name: 'metered' });
    const empty = m.EmptyRequestProto.encode({}).finish();
    await client.call({ address: server.address, ...TEST_RPC_PROTOCOL, method: 'ping', request: empty });
    await client
      .call({ address: server.address, ...TEST_RPC_PROTOCOL, method: 'error2', request: empty })
      .catch(() => {});
    const text = await client.metrics.metrics();
    expect(text).toContain('hadoop_rpc_client_calls_total{client="metered",method="ping"} 1');
    expect(text).toContain(
      'hadoop_rpc_client_errors_total{client="metered",method="error2",exception="org.apache.hadoop.ipc.RetriableException"} 1',
    );
    expect(text).toContain('hadoop_rpc_client_call_seconds_count{client="metered",method="ping"} 1');
    expect(text).toContain('hadoop_rpc_client_connections_open{client="metered"} 1');
  });
});
