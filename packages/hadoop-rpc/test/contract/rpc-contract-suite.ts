// The client's contract, run against every server that speaks Hadoop IPC here: the Node test
// server of `/testing` and Apache Hadoop's own RPC.Server (tools/hadoop), both serving Hadoop's
// IPC test service. A server gives its address; the suite makes its own clients.
import {
  createHadoopRpcClient,
  type HadoopRpcCall,
  type HadoopRpcClient,
  HadoopRpcClientClosedError,
  type HadoopRpcClientOptions,
  RemoteException,
} from '@fastpath/hadoop-rpc';
import { CALL_CONTEXT_REQUEST, TEST_RPC_PROTOCOL, testRpcMessages as m } from '@fastpath/hadoop-rpc/testing';
import { eventually, waitFor } from '@fastpath/test-support';

/** A server under test. */
export interface ContractServer {
  readonly address: string;
  close(): Promise<void>;
}

export function describeHadoopRpcContract(name: string, start: () => Promise<ContractServer>): void {
  describe(`Hadoop RPC contract: ${name}`, () => {
    let server: ContractServer;
    const clients: HadoopRpcClient[] = [];
    const client = (options: HadoopRpcClientOptions = {}): HadoopRpcClient => {
      const c = createHadoopRpcClient({ user: 'alice', ...options });
      clients.push(c);
      return c;
    };
    const call = (
      c: HadoopRpcClient,
      method: string,
      request: Uint8Array,
      extra: Partial<HadoopRpcCall> = {},
    ) => c.call({ address: server.address, ...TEST_RPC_PROTOCOL, method, request, ...extra });
    const echo = async (
      c: HadoopRpcClient,
      message: string,
      extra: Partial<HadoopRpcCall> = {},
    ): Promise<string> =>
      m.EchoResponseProto.decode(
        await call(c, 'echo', m.EchoRequestProto.encode({ message }).finish(), extra),
      ).message;
    const sleep = (c: HadoopRpcClient, milliSeconds: number): Promise<Uint8Array> =>
      call(c, 'sleep', m.SleepRequestProto.encode({ milliSeconds }).finish());
    const callContext = async (c: HadoopRpcClient, extra: Partial<HadoopRpcCall> = {}): Promise<string[]> =>
      m.EchoResponseProto2.decode(
        await call(
          c,
          'echo2',
          m.EchoRequestProto2.encode({ message: [CALL_CONTEXT_REQUEST] }).finish(),
          extra,
        ),
      ).message;
    const remoteError = async (p: Promise<unknown>): Promise<RemoteException> => {
      const error: unknown = await p.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(RemoteException);
      return error as RemoteException;
    };

    beforeAll(async () => {
      server = await start();
    }, 180_000);
    afterEach(async () => {
      await Promise.all(clients.splice(0).map((c) => c.close()));
    });
    afterAll(async () => {
      await server?.close();
    });

    it('echoes, and answers an empty message with an empty message', async () => {
      const c = client();
      expect(await echo(c, 'hello, hadoop')).toBe('hello, hadoop');
      expect(await call(c, 'ping', m.EmptyRequestProto.encode({}).finish())).toHaveLength(0);
      expect(await echo(c, 'é ✓ '.repeat(10_000))).toBe('é ✓ '.repeat(10_000));
    });

    it('matches many calls in flight on one connection by call id, answered out of order', async () => {
      const c = client();
      const slow = sleep(c, 300);
      const messages = Array.from({ length: 64 }, (_, i) => `message-${i}`);
      expect(await Promise.all(messages.map((msg) => echo(c, msg)))).toEqual(messages);
      expect(c.connectionsOpen).toBe(1);
      await slow;
    });

    it('runs calls as the context’s user', async () => {
      const c = client({ user: 'bob' });
      const { user } = m.UserResponseProto.decode(
        await call(c, 'getAuthUser', m.EmptyRequestProto.encode({}).finish()),
      );
      expect(user).toBe('bob');
    });

    it('negotiates SIMPLE over SASL', async () => {
      const c = client({ authProtocol: 'sasl', user: 'carol' });
      expect(await echo(c, 'over sasl')).toBe('over sasl');
      const { user } = m.UserResponseProto.decode(
        await call(c, 'getAuthUser', m.EmptyRequestProto.encode({}).finish()),
      );
      expect(user).toBe('carol');
    });

    it('shows the server its client id, the call id and the retry count a caller chose', async () => {
      const c = client();
      const callId = c.nextCallId();
      const first = await callContext(c, { callId, retryCount: 0 });
      const again = await callContext(c, { callId, retryCount: 3 });
      const hex = Buffer.from(c.clientId).toString('hex');
      expect(first).toEqual(['alice', hex, String(callId), '0']);
      expect(again).toEqual(['alice', hex, String(callId), '3']);
      const fresh = await callContext(c);
      expect(Number(fresh[2])).not.toBe(callId);
      expect(fresh[3]).toBe('0');
      const other = client();
      expect((await callContext(other))[1]).not.toBe(hex);
    });

    it('fails a call with the server’s exception, keeping the connection', async () => {
      const c = client();
      const error = await remoteError(call(c, 'error', m.EmptyRequestProto.encode({}).finish()));
      expect(error).toMatchObject({
        code: 'ERR_HADOOP_RPC_REMOTE',
        className: 'org.apache.hadoop.ipc.RpcServerException',
        firstLine: 'error',
        errorDetail: 'ERROR_RPC_SERVER',
        status: 'ERROR',
        retriable: false,
        address: server.address,
      });
      expect(await echo(c, 'still here')).toBe('still here');
      expect(c.connectionsOpen).toBe(1);
    });

    it('says a RetriableException is retriable, with its message apart from the stack trace', async () => {
      const c = client();
      const error = await remoteError(call(c, 'error2', m.EmptyRequestProto.encode({}).finish()));
      expect(error.className).toBe('org.apache.hadoop.ipc.RetriableException');
      expect(error.retriable).toBe(true);
      expect(error.firstLine).toBe('server too busy, try again');
      expect(error.errorDetail).toBe('ERROR_APPLICATION');
      expect(error.stackTrace).toMatch(/^\s+at /);
    });

    it('names an unknown method, protocol or version as Hadoop does', async () => {
      const c = client();
      const empty = m.EmptyRequestProto.encode({}).finish();
      const method = await remoteError(call(c, 'noSuchMethod', empty));
      expect(method.className).toBe('org.apache.hadoop.ipc.RpcNoSuchMethodException');
      expect(method.errorDetail).toBe('ERROR_NO_SUCH_METHOD');
      const protocol = await remoteError(call(c, 'ping', empty, { protocol: 'org.example.NoSuchProtocol' }));
      expect(protocol.className).toBe('org.apache.hadoop.ipc.RpcNoSuchProtocolException');
      expect(protocol.errorDetail).toBe('ERROR_NO_SUCH_PROTOCOL');
      const version = await remoteError(call(c, 'ping', empty, { protocolVersion: 7 }));
      expect(version.className).toBe('org.apache.hadoop.ipc.RPC$VersionMismatch');
      expect(version.errorDetail).toBe('ERROR_RPC_VERSION_MISMATCH');
    });

    it('pings while a call waits in silence', async () => {
      const c = client({ pingIntervalMs: 50, name: 'pinging' });
      const slow = sleep(c, 2_000);
      await waitFor('a ping', async () =>
        /hadoop_rpc_client_pings_total\{client="pinging"\} [1-9]/.test(await c.metrics.metrics()),
      );
      await slow;
    });

    it('closes a connection idle for maxIdleTimeMs, and opens a new one for the next call', async () => {
      const c = client({ maxIdleTimeMs: 100 });
      expect(await echo(c, 'one')).toBe('one');
      await waitFor('the idle connection to close', () => c.connectionsOpen === 0);
      expect(await echo(c, 'two')).toBe('two');
      expect(c.connectionsOpen).toBe(1);
    });

    it('fails calls in flight at close() and refuses calls after it', async () => {
      const c = client();
      const slow = sleep(c, 2_000);
      await eventually(() => expect(c.connectionsOpen).toBe(1));
      await c.close();
      await expect(slow).rejects.toBeInstanceOf(HadoopRpcClientClosedError);
      await expect(echo(c, 'late')).rejects.toBeInstanceOf(HadoopRpcClientClosedError);
      expect(c.connectionsOpen).toBe(0);
    });
  });
}
