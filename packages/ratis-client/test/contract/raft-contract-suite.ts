// The contract every Raft group this client talks to must keep, written once and run against the
// embedded group and against a real Apache Ratis group. Each case starts its own client (a new
// client id) behind a fault proxy that sits in front of every member, so that lost replies, bad
// answers and killed streams are the same faults on both servers. The group's state machine is
// the append-only log (see AppendLogStateMachine): a write answers its index and position.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { l, v } from '@fastpath/test-support';
import {
  createRaftClient,
  type RaftClient,
  type RaftClientOptions,
  type RaftGrpcTransport,
  type RaftWatchReply,
} from '@fastpath/ratis-client';
import { decodeAppendReply, decodeLogStatus, encodeLogRead } from '@fastpath/ratis-client/testing';
import { type RaftFaultProxy, startRaftFaultProxy } from './raft-fault-proxy.js';

/** A Raft group under test: the embedded group, or the real Ratis fixture. */
export interface RaftGroupUnderTest {
  readonly groupId: string;
  readonly peers: ReadonlyArray<{ id: string; address: string }>;
  leaderId(): Promise<string>;
  stopPeer(id: string): Promise<void>;
  restartPeer(id: string): Promise<void>;
  pausePeer(id: string): Promise<void>;
  resumePeer(id: string): Promise<void>;
  transferLeadership(id: string): Promise<void>;
  close(): Promise<void>;
}

export interface RaftContractOptions {
  /** Starts the group; the suite closes it. */
  start(): Promise<RaftGroupUnderTest>;
  /** Per-case bound, ms (a real group elects and writes slower). */
  caseTimeoutMs: number;
  /** The sessions the client's streams take, every case once per each. Default: Node's http2 only. */
  transports?: readonly RaftGrpcTransport[];
}

// Short attempt timeouts so that a lost reply is re-sent quickly; long totals so that nothing
// fails on a loaded machine for want of time.
const CLIENT_OPTIONS: Partial<RaftClientOptions> = {
  rpcRequestTimeoutMs: 2_000,
  // Longer than either server's watch timeout (3 s real, 1 s embedded), short enough that a watch
  // sent to a member that stopped answering goes to another one within the case.
  rpcWatchRequestTimeoutMs: 10_000,
  writeTimeoutMs: 90_000,
  readTimeoutMs: 90_000,
  watchTimeoutMs: 90_000,
  retryPauseMs: 100,
};

export function describeRaftContract(name: string, options: RaftContractOptions): void {
  describe(`Raft client contract: ${name}`, () => {
    let group: RaftGroupUnderTest;
    let proxy: RaftFaultProxy;
    const clients: RaftClient[] = [];

    beforeAll(async () => {
      group = await options.start();
      proxy = await startRaftFaultProxy(group.peers);
    }, 180_000);
    afterAll(async () => {
      await Promise.all(clients.map((c) => c.close()));
      await proxy?.close();
      await group?.close();
    }, 60_000);

    let clientTransport: RaftGrpcTransport = 'http2';
    const client = (extra: Partial<RaftClientOptions> = {}): RaftClient => {
      const c = createRaftClient({
        ...CLIENT_OPTIONS,
        groupId: group.groupId,
        peers: proxy.peers,
        transport: clientTransport,
        ...extra,
      });
      clients.push(c);
      return c;
    };
    const status = async (c: RaftClient): Promise<{ lastAppliedIndex: number; length: number }> =>
      decodeLogStatus((await c.sendReadOnly(Buffer.alloc(0))).content);
    const readLog = async (c: RaftClient, position: number, length: number): Promise<Buffer> =>
      (await c.sendReadOnly(encodeLogRead(position, length))).content;
    /**
     * A watch at ALL_COMMITTED that may first have to wait for a member catching up (restarted or
     * resumed by an earlier step): watched again while the server answers NotReplicated, up to a bound.
     */
    const watchAllCommitted = async (c: RaftClient, index: number): Promise<RaftWatchReply> => {
      const deadline = Date.now() + 60_000;
      for (;;) {
        try {
          return await c.watch(index, { replication: 'ALL_COMMITTED' });
        } catch (error) {
          if ((error as { code?: string }).code !== 'ERR_RATIS_NOT_REPLICATED' || Date.now() > deadline)
            throw error;
        }
      }
    };
    const follower = async (): Promise<string> => {
      const leader = await group.leaderId();
      return (group.peers.find((p) => p.id !== leader) as { id: string }).id;
    };

    /** Checks that `payloads` were each applied once, in order, from `start` on, and nothing between them. */
    const expectAppliedInOrder = async (
      c: RaftClient,
      start: number,
      payloads: Buffer[],
      replies: Array<{ logIndex: number; content: Buffer }>,
    ): Promise<void> => {
      let position = start;
      let lastIndex = 0;
      replies.forEach((reply, i) => {
        const applied = decodeAppendReply(reply.content);
        expect(applied).toEqual({ index: reply.logIndex, position });
        expect(reply.logIndex).toBeGreaterThan(lastIndex);
        lastIndex = reply.logIndex;
        position += (payloads[i] as Buffer).length;
      });
      expect(await readLog(c, start, position - start)).toEqual(Buffer.concat(payloads));
      expect((await status(c)).length).toBe(position);
    };

    // Every case once per HTTP/2 session the client's streams can take, on the same group.
    for (const transport of options.transports ?? (['http2'] as const)) {
      describe(`streams on ${transport === 'socket' ? "@fastpath/grpc-http2's socket session" : "Node's http2"}`, () => {
        beforeAll(() => {
          clientTransport = transport;
        });

        it(
          'answers writes with their log index and position, and read-only queries from the applied log',
          async () => {
            const c = client();
            const before = await status(c);
            const a = await c.send(Buffer.from('alpha'));
            const b = await c.send(Buffer.from('beta'));
            await expectAppliedInOrder(c, before.length, [Buffer.from('alpha'), Buffer.from('beta')], [a, b]);
            expect((await status(c)).lastAppliedIndex).toBeGreaterThanOrEqual(b.logIndex);
            // A read past the end is clipped to it.
            expect((await readLog(c, before.length + 5, 100)).toString()).toBe('beta');
            expect(c.leaderId).toBe(await group.leaderId());
          },
          options.caseTimeoutMs,
        );

        it(
          'follows NotLeader from a follower to the leader',
          async () => {
            const from = await follower();
            const c = client({ leaderId: from });
            const reply = await c.send(Buffer.from('redirected'));
            expect(decodeAppendReply(reply.content).index).toBe(reply.logIndex);
            expect(reply.peerId).toBe(await group.leaderId());
            expect(c.leaderId).toBe(await group.leaderId());
            expect(await counter(c, 'ratis_client_resends_total', 'not_leader')).toBeGreaterThan(0);
          },
          options.caseTimeoutMs,
        );

        it(
          'applies a write once when its reply is lost and it is sent again with the same call id',
          async () => {
            const c = client();
            const before = await status(c);
            proxy.dropNextReply('ordered');
            const reply = await c.send(Buffer.from('exactly-once'));
            expect(await counter(c, 'ratis_client_resends_total', 'timeout')).toBeGreaterThan(0);
            await expectAppliedInOrder(c, before.length, [Buffer.from('exactly-once')], [reply]);
          },
          options.caseTimeoutMs,
        );

        it(
          'keeps the order of a pipeline of 32 across a leader change in its middle',
          async () => {
            const c = client({ maxOutstandingRequests: 32 });
            const before = await status(c);
            const payloads = Array.from({ length: 32 }, (_, i) =>
              Buffer.from(`entry-${String(i).padStart(2, '0')};`),
            );
            const first = await c.send(payloads[0] as Buffer);
            const hold = proxy.holdReplies();
            const passed = proxy.requestsPassed(31);
            const rest = payloads.slice(1).map((p) => c.send(p));
            try {
              await passed; // all 31 reached the leader; none is answered yet
              await group.transferLeadership(await follower());
            } finally {
              hold.release();
            }
            const replies = [first, ...(await Promise.all(rest))];
            await expectAppliedInOrder(c, before.length, payloads, replies);
            expect(c.leaderId).toBe(await group.leaderId());
          },
          options.caseTimeoutMs,
        );

        it(
          're-sends what was pending on a stream that was killed, each applied once',
          async () => {
            const c = client();
            const before = await status(c);
            const payloads = Array.from({ length: 8 }, (_, i) => Buffer.from(`pending-${i};`));
            const first = await c.send(payloads[0] as Buffer);
            const hold = proxy.holdReplies();
            const passed = proxy.requestsPassed(7);
            const rest = payloads.slice(1).map((p) => c.send(p));
            try {
              await passed;
              expect(proxy.failStreams()).toBeGreaterThan(0);
            } finally {
              hold.release();
            }
            const replies = [first, ...(await Promise.all(rest))];
            expect(await counter(c, 'ratis_client_resends_total', 'stream_failed')).toBeGreaterThanOrEqual(7);
            await expectAppliedInOrder(c, before.length, payloads, replies);
          },
          options.caseTimeoutMs,
        );

        it(
          'finds the new leader after the leader is killed, and loses nothing it acknowledged',
          async () => {
            const leader = await group.leaderId();
            const c = client({ leaderId: leader });
            const before = await status(c);
            const payloads = Array.from({ length: 16 }, (_, i) => Buffer.from(`survivor-${i};`));
            const first = await c.send(payloads[0] as Buffer);
            const passed = proxy.requestsPassed(4);
            const rest = payloads.slice(1).map((p) => c.send(p));
            await passed;
            await group.stopPeer(leader);
            try {
              const replies = [first, ...(await Promise.all(rest))];
              const newLeader = await group.leaderId();
              expect(newLeader).not.toBe(leader);
              await expectAppliedInOrder(c, before.length, payloads, replies);
              expect(c.leaderId).toBe(newLeader);
            } finally {
              await group.restartPeer(leader);
            }
          },
          options.caseTimeoutMs,
        );

        it(
          'watches: MAJORITY_COMMITTED passes with a paused follower, ALL_COMMITTED waits for it or falls back',
          async () => {
            const c = client();
            const paused = await follower();
            const write = await c.send(Buffer.from('watched'));
            expect(await watchAllCommitted(c, write.logIndex)).toMatchObject({
              replication: 'ALL_COMMITTED',
            });
            await group.pausePeer(paused);
            try {
              const next = await c.send(Buffer.from('watched-while-paused'));
              const majority = await c.watch(next.logIndex, { replication: 'MAJORITY_COMMITTED' });
              expect(majority.replication).toBe('MAJORITY_COMMITTED');
              await expect(c.watch(next.logIndex, { replication: 'ALL_COMMITTED' })).rejects.toMatchObject({
                code: 'ERR_RATIS_NOT_REPLICATED',
                retriable: true,
              });
              const fallback = await c.watch(next.logIndex, {
                replication: 'ALL_COMMITTED',
                fallbackToMajorityCommitted: true,
              });
              expect(fallback.replication).toBe('MAJORITY_COMMITTED');
              expect(fallback.laggingPeerIds).toContain(paused);
              await group.resumePeer(paused);
              expect(await watchAllCommitted(c, next.logIndex)).toMatchObject({
                replication: 'ALL_COMMITTED',
                laggingPeerIds: [],
              });
            } finally {
              await group.resumePeer(paused);
            }
          },
          options.caseTimeoutMs,
        );

        it(
          'fails a request for a group the members do not have with ERR_RATIS_SERVER, not retriable, naming the exception',
          async () => {
            const c = client({ groupId: '99999999-9999-4999-8999-999999999999' });
            await expect(c.send(Buffer.from('nowhere'))).rejects.toMatchObject({
              code: 'ERR_RATIS_SERVER',
              retriable: false,
              remoteClass: expect.stringMatching(/GroupMismatchException$/),
            });
          },
          options.caseTimeoutMs,
        );

        const badAnswers: Array<[string, (reply: Buffer) => Buffer]> = [
          ['bytes that do not decode', () => Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f, 0x01])],
          [
            'a failure with an exception field the client does not know',
            (reply) =>
              Buffer.from([...l(1, v(4, callIdOf(reply))), ...l(13, l(1, 'org.example.NewException'))]),
          ],
          ['a reply to a call id never sent', () => Buffer.from(l(1, [...v(4, 987_654), ...v(15, true)]))],
        ];
        it.each(badAnswers)(
          '%s fails the request with a typed error, and the client goes on',
          async (_what, replace) => {
            const c = client();
            const before = await status(c);
            proxy.replaceNextReply(replace, 'ordered');
            await expect(c.send(Buffer.from('answered-badly'))).rejects.toMatchObject({
              code: 'ERR_RATIS_PROTOCOL',
            });
            const after = await c.send(Buffer.from('next'));
            expect(decodeAppendReply(after.content).position).toBeGreaterThanOrEqual(before.length);
          },
          options.caseTimeoutMs,
        );
      });
    }
  });
}

/** The value of a counter of the client's metrics with `reason` as its last label. */
async function counter(c: RaftClient, name: string, reason: string): Promise<number> {
  const metric = c.metrics.registry.getSingleMetric(name);
  const values = (await metric?.get())?.values ?? [];
  return values.filter((x) => x.labels.reason === reason).reduce((sum, x) => sum + x.value, 0);
}

/** The call id of a reply, read by hand (field 1 rpcReply, its field 4 callId). */
function callIdOf(reply: Buffer): number {
  let i = 0;
  const varint = (bytes: Buffer): number => {
    let value = 0;
    let scale = 1;
    for (;;) {
      const b = bytes[i++] as number;
      value += (b & 0x7f) * scale;
      if (b < 0x80) return value;
      scale *= 128;
    }
  };
  const tag = varint(reply);
  if (tag !== ((1 << 3) | 2)) throw new Error('a reply that does not start with rpcReply');
  const length = varint(reply);
  const rpcReply = reply.subarray(i, i + length);
  i = 0;
  while (i < rpcReply.length) {
    const t = varint(rpcReply);
    if (t === ((4 << 3) | 0)) return varint(rpcReply);
    const skip = varint(rpcReply); // a varint's value, or a length to skip
    if ((t & 7) === 2) i += skip;
  }
  throw new Error('a reply without a call id');
}
