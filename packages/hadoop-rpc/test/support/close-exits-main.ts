// Run as a process by the close() test: makes calls (one still in flight), closes the client and
// prints "failed closed"; the process must then exit by itself (no socket or timer left holding it).
import { createHadoopRpcClient } from '@fastpath/hadoop-rpc';
import { TEST_RPC_PROTOCOL, testRpcMessages as m } from '@fastpath/hadoop-rpc/testing';

const [address] = process.argv.slice(2) as [string];
const client = createHadoopRpcClient({ user: 'child', pingIntervalMs: 10 });
const call = (method: string, request: Uint8Array): Promise<Uint8Array> =>
  client.call({ address, ...TEST_RPC_PROTOCOL, method, request });
await call('echo', m.EchoRequestProto.encode({ message: 'from a child process' }).finish());
const slow = call('sleep', m.SleepRequestProto.encode({ milliSeconds: 600_000 }).finish()).catch(
  () => 'failed',
);
await call('ping', m.EmptyRequestProto.encode({}).finish());
await client.close();
console.log(await slow, 'closed');
