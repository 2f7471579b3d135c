// Every fault of the test server gives the client a typed error, never a hang or a crash; the
// calls in flight on a broken connection fail with the same error, and the next call gets a new
// connection that works.
import {
  createHadoopRpcClient,
  HadoopRpcCallTimeoutError,
  type HadoopRpcClient,
  type HadoopRpcClientOptions,
  HadoopRpcConnectionLostError,
  HadoopRpcConnectTimeoutError,
  HadoopRpcProtocolError,
  HadoopRpcResponseTooLargeError,
  RemoteException,
} from '@fastpath/hadoop-rpc';
import {
  type HadoopRpcTestServer,
  startHadoopRpcTestServer,
  TEST_RPC_PROTOCOL,
  testRpcMessages as m,
  testRpcProtocol,
} from '@fastpath/hadoop-rpc/testing';
import { waitFor } from '@fastpath/test-support';

let server: HadoopRpcTestServer;
const clients: HadoopRpcClient[] = [];
const client = (options: HadoopRpcClientOptions = {}): HadoopRpcClient => {
  const c = createHadoopRpcClient({ user: 'alice', ...options });
  clients.push(c);
  return c;
};
const echo = async (c: HadoopRpcClient, message: string): Promise<string> =>
  m.EchoResponseProto.decode(
    await c.call({
      address: server.address,
      ...TEST_RPC_PROTOCOL,
      method: 'echo',
      request: m.EchoRequestProto.encode({ message }).finish(),
    }),
  ).message;
const sleeping = (c: HadoopRpcClient, milliSeconds: number): Promise<unknown> =>
  c
    .call({
      address: server.address,
      ...TEST_RPC_PROTOCOL,
      method: 'sleep',
      request: m.SleepRequestProto.encode({ milliSeconds }).finish(),
    })
    .catch((e: unknown) => e);

beforeEach(async () => {
  server = await startHadoopRpcTestServer({ protocols: [testRpcProtocol()] });
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await server.close();
});

/** Runs a call into `fault` with another call in flight beside it; both must fail with `type`. */
async function faultFailsConnection<E extends Error>(
  fault: Parameters<HadoopRpcTestServer['injectFault']>[0],
  type: abstract new (...args: never[]) => E,
): Promise<E> {
  const c = client();
  expect(await echo(c, 'warm')).toBe('warm');
  const inFlight = sleeping(c, 5_000);
  await waitFor('the sleep to reach the server', () => server.callsReceived === 2);
  server.injectFault(fault);
  const error = await echo(c, 'faulted').catch((e: unknown) => e);
  expect(error).toBeInstanceOf(type);
  expect(await inFlight).toBe(error);
  expect(c.connectionsOpen).toBe(0);
  expect(await echo(c, 'after')).toBe('after');
  return error as E;
}

describe('faults', () => {
  it('garbage bytes: a protocol error for every call on the connection', async () => {
    const error = await faultFailsConnection('garbage', HadoopRpcProtocolError);
    expect(error).toMatchObject({ code: 'ERR_HADOOP_RPC_PROTOCOL', retriable: false });
    expect(error.message).toMatch(/undecodable response/);
  });

  it('a truncated frame: the connection is lost in the middle of a frame', async () => {
    const error = await faultFailsConnection('truncated-frame', HadoopRpcConnectionLostError);
    expect(error).toMatchObject({ code: 'ERR_HADOOP_RPC_CONNECTION_LOST', retriable: true });
    expect(error.message).toMatch(/middle of a frame \(14 bytes of it received\)/);
  });

  it('a 2 GiB length: refused from its 4 bytes, against ipc.maximum.response.length', async () => {
    const error = await faultFailsConnection('huge-length', HadoopRpcResponseTooLargeError);
    expect(error).toMatchObject({ lengthBytes: 2 ** 31 - 1, maxBytes: 134_217_728 });
  });

  it('a reply to a call id never sent: a protocol error, never another call’s answer', async () => {
    const error = await faultFailsConnection('unknown-call-id', HadoopRpcProtocolError);
    expect(error.message).toMatch(/not in flight/);
  });

  it('a FATAL reply: the server’s exception for every call on the connection, which closes', async () => {
    const error = await faultFailsConnection('fatal', RemoteException);
    expect(error).toMatchObject({
      status: 'FATAL',
      className: 'org.apache.hadoop.ipc.IpcException',
      errorDetail: 'FATAL_UNKNOWN',
      firstLine: 'injected FATAL reply',
    });
    await waitFor('the server to see the connection closed', () => server.connectionsOpen === 1);
  });

  it('a server that stops answering a call: the call’s deadline, the connection kept', async () => {
    const c = client();
    expect(await echo(c, 'warm')).toBe('warm');
    server.injectFault('silent');
    const error = await c
      .call({
        address: server.address,
        ...TEST_RPC_PROTOCOL,
        method: 'echo',
        request: m.EchoRequestProto.encode({ message: 'lost' }).finish(),
        timeoutMs: 200,
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HadoopRpcCallTimeoutError);
    expect(error).toMatchObject({
      code: 'ERR_HADOOP_RPC_CALL_TIMEOUT',
      timeoutMs: 200,
      method: 'echo',
      retriable: true,
    });
    expect(await echo(c, 'after')).toBe('after');
    expect(server.connectionsAccepted).toBe(1);
  });

  it('calls with different deadlines on one connection each time out at their own', async () => {
    const c = client();
    expect(await echo(c, 'warm')).toBe('warm');
    const settled: string[] = [];
    const call = (name: string, milliSeconds: number, timeoutMs: number) =>
      c
        .call({
          address: server.address,
          ...TEST_RPC_PROTOCOL,
          method: 'sleep',
          request: m.SleepRequestProto.encode({ milliSeconds }).finish(),
          timeoutMs,
        })
        .then(
          () => settled.push(`${name} answered`),
          (e: unknown) =>
            settled.push(
              `${name} ${(e as HadoopRpcCallTimeoutError).code} ${(e as HadoopRpcCallTimeoutError).timeoutMs}`,
            ),
        );
    // The first call's deadline is the latest; the later calls' earlier ones must still hold.
    await Promise.all([call('a', 800, 5000), call('b', 3000, 150), call('c', 3000, 400)]);
    expect(settled).toEqual([
      'b ERR_HADOOP_RPC_CALL_TIMEOUT 150',
      'c ERR_HADOOP_RPC_CALL_TIMEOUT 400',
      'a answered',
    ]);
    expect(server.connectionsAccepted).toBe(1);
  });

  it('a connection busy for longer than maxIdleTimeMs stays open; idle that long, it closes', async () => {
    const c = client({ maxIdleTimeMs: 150 });
    // Six calls of 100 ms one after another: 600 ms in all, the connection idle between them
    // only for the moment the next call takes to start.
    for (let i = 0; i < 6; i++) expect(await sleeping(c, 100)).toBeInstanceOf(Uint8Array);
    expect(server.connectionsAccepted).toBe(1);
    await waitFor('the idle connection to close', () => c.connectionsOpen === 0);
    expect(await echo(c, 'again')).toBe('again');
    expect(server.connectionsAccepted).toBe(2);
  });

  it('a late answer to a call that timed out is dropped, not taken for a protocol error', async () => {
    const c = client({ callTimeoutMs: 100 });
    const error = await sleeping(c, 400);
    expect(error).toBeInstanceOf(HadoopRpcCallTimeoutError);
    const calls = server.callsReceived;
    // The sleep's answer comes while this call waits on the same connection.
    const slower = await c
      .call({
        address: server.address,
        ...TEST_RPC_PROTOCOL,
        method: 'sleep',
        request: m.SleepRequestProto.encode({ milliSeconds: 600 }).finish(),
        timeoutMs: 0,
      })
      .then(() => 'answered');
    expect(slower).toBe('answered');
    expect(server.callsReceived).toBe(calls + 1);
    expect(server.connectionsAccepted).toBe(1);
  });

  it('a server that accepts and never answers the handshake: the connect deadline', async () => {
    const c = client({ authProtocol: 'sasl', connectTimeoutMs: 200 });
    server.injectFault('silent-handshake');
    const error = await echo(c, 'never').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HadoopRpcConnectTimeoutError);
    expect(error).toMatchObject({ code: 'ERR_HADOOP_RPC_CONNECT_TIMEOUT', timeoutMs: 200, retriable: true });
    expect(c.connectionsOpen).toBe(0);
    expect(await echo(c, 'after')).toBe('after');
  });

  it('a response above a small maxResponseBytes: refused, the connection closed', async () => {
    const c = client({ maxResponseBytes: 1024 });
    const error = await echo(c, 'x'.repeat(2048)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HadoopRpcResponseTooLargeError);
    expect(error).toMatchObject({ maxBytes: 1024 });
    expect((error as HadoopRpcResponseTooLargeError).lengthBytes).toBeGreaterThan(2048);
    expect(await echo(c, 'small')).toBe('small');
  });
});
