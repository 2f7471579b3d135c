// Run as a process by the close() test: writes, watches, closes the client and prints "closed";
// the process must then exit by itself (nothing left open, no timer left).
import { createRaftClient } from '@fastpath/ratis-client';

const [groupId, peers] = process.argv.slice(2) as [string, string];
const client = createRaftClient({
  groupId,
  peers: JSON.parse(peers) as Array<{ id: string; address: string }>,
});
const reply = await client.send(Buffer.from('from-a-child-process'));
await client.watch(reply.logIndex, { replication: 'MAJORITY_COMMITTED' });
await client.close();
console.log('closed');
