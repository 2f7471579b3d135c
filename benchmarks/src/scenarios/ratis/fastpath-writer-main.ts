// fastpath's Ratis client in its own process, so that its CPU time is its own: the scenario opens
// a client on a group, then runs loads of pipelined writes, each measured here (wall time,
// process CPU, every write's latency) the way the Java driver measures Ratis's own client.
import { randomBytes } from 'node:crypto';
import { createRaftClient, type RaftClient, type RaftPeer } from '@fastpath/ratis-client';
import { serveCalls } from '../../harness/index.js';
import { runProfiled } from '../../harness/thread-profiles.js';
import type { LoadSample } from './load-figures.js';

export type WriterCall =
  | { op: 'open'; groupId: string; peers: RaftPeer[]; window: number }
  | { op: 'load'; sizeBytes: number; writes: number; window: number; profilePath?: string }
  | { op: 'close' };

let client: RaftClient | undefined;

async function load(sizeBytes: number, writes: number, window: number): Promise<LoadSample> {
  if (client === undefined) throw new Error('load before open');
  const raft = client;
  // One payload for every write, as the Java driver does: the bytes are not what is measured.
  const payload = randomBytes(sizeBytes);
  const latenciesUs = new Array<number>(writes).fill(0);
  let next = 0;
  // `window` loops, each with one write outstanding: at most `window` in flight, refilled as each
  // reply arrives (the Java driver's semaphore does the same).
  const loop = async (): Promise<void> => {
    while (next < writes) {
      const i = next++;
      const sent = process.hrtime.bigint();
      await raft.send(payload);
      latenciesUs[i] = Number(process.hrtime.bigint() - sent) / 1000;
    }
  };
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: Math.min(window, writes) }, loop));
  const wallNs = Number(process.hrtime.bigint() - started);
  const used = process.cpuUsage(cpu);
  return { writes, wallNs, cpuNs: (used.user + used.system) * 1000, latenciesUs };
}

serveCalls(async (call: WriterCall) => {
  switch (call.op) {
    case 'open':
      await client?.close();
      client = createRaftClient({
        groupId: call.groupId,
        peers: call.peers,
        maxOutstandingRequests: call.window,
      });
      return { clientId: client.clientId };
    case 'load': {
      const work = (): Promise<LoadSample> => load(call.sizeBytes, call.writes, call.window);
      if (call.profilePath === undefined) return work();
      const { result, profile } = await runProfiled(call.profilePath, work);
      return { ...result, profile };
    }
    case 'close':
      await client?.close();
      client = undefined;
      return {};
  }
});
