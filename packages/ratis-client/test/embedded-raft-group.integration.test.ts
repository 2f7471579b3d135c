// The embedded group as a Ratis server, spoken to by hand-built requests (no RaftClient): the
// ordered stream's sliding window, the retry cache, NotLeader, failed streams, elections.
import * as grpc from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from '@jest/globals';
import { l, v, waitFor } from '@fastpath/test-support';
import { uuidToBytes } from '@fastpath/ratis-client';
import {
  type EmbeddedRaftGroup,
  RAFT_CLIENT_PROTOCOL_SERVICE,
  startEmbeddedRaftGroup,
} from '@fastpath/ratis-client/testing';
import { field } from './support/read-fields.js';

const CLIENT = '0f1e2d3c-4b5a-4978-8796-a5b4c3d2e1f0';
const open: Array<{ close(): unknown }> = [];
afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
});

/** An ordered or unordered stream to one member, with its replies as they come. */
function stream(address: string, method: 'ordered' | 'unordered') {
  const channel = new grpc.Client(address, grpc.credentials.createInsecure());
  const definition = RAFT_CLIENT_PROTOCOL_SERVICE[method];
  const call = channel.makeBidiStreamRequest(
    definition.path,
    definition.requestSerialize,
    definition.responseDeserialize,
  );
  const replies: Buffer[] = [];
  const status = new Promise<grpc.StatusObject>((resolve) => call.on('status', resolve));
  call.on('data', (b: Buffer) => replies.push(b));
  call.on('error', () => undefined);
  open.push({ close: () => (call.cancel(), channel.close()) });
  return { call, replies, status };
}

function write(
  group: EmbeddedRaftGroup,
  peerId: string,
  callId: number,
  content: string,
  seqNum?: number,
  isFirst = false,
): Buffer {
  const window = seqNum === undefined ? [] : l(15, [...v(1, seqNum), ...(isFirst ? v(2, true) : [])]);
  return Buffer.from([
    ...l(1, [
      ...l(1, uuidToBytes(CLIENT)),
      ...l(2, peerId),
      ...l(3, l(1, uuidToBytes(group.groupId))),
      ...v(4, callId),
      ...v(5, true),
      ...window,
    ]),
    ...l(2, l(1, content)),
    ...l(3, []),
  ]);
}

const replyCount = (replies: Buffer[], n: number): Promise<boolean> =>
  waitFor(`${n} replies`, () => replies.length >= n);

const callIds = (replies: Buffer[]): unknown[] => replies.map((r) => field(r, 1, 4));

describe('embedded Raft group', () => {
  it('holds a request that arrives after a gap in the sequence numbers until the gap is filled, and answers in order', async () => {
    const group = await startEmbeddedRaftGroup();
    open.push(group);
    const leader = group.peers[0] as { id: string; address: string };
    const s = stream(leader.address, 'ordered');
    s.call.write(write(group, leader.id, 1, 'a', 1, true));
    await replyCount(s.replies, 1);
    s.call.write(write(group, leader.id, 3, 'c', 3));
    // Sequence number 2 fills the gap: 2 and then 3 are applied and answered, in that order.
    s.call.write(write(group, leader.id, 2, 'b', 2));
    await replyCount(s.replies, 3);
    expect(callIds(s.replies)).toEqual([1, 2, 3]);
    const positions = s.replies.map((r) => (field(r, 2, 1) as Buffer).readBigUInt64BE(8));
    expect(positions).toEqual([0n, 1n, 2n]);
  });

  it('answers a re-sent (client id, call id) from its retry cache: applied once, the same index', async () => {
    const group = await startEmbeddedRaftGroup();
    open.push(group);
    const leader = group.peers[0] as { id: string; address: string };
    const first = stream(leader.address, 'ordered');
    first.call.write(write(group, leader.id, 7, 'once', 1, true));
    await replyCount(first.replies, 1);
    const again = stream(leader.address, 'ordered');
    again.call.write(write(group, leader.id, 7, 'once', 1, true));
    await replyCount(again.replies, 1);
    expect(field(again.replies[0] as Buffer, 14)).toBe(field(first.replies[0] as Buffer, 14));
    expect(group.stats).toEqual({ applied: 1, retryCacheHits: 1 });
  });

  it('answers NotLeader from a follower with the leader suggested and the members in its configuration', async () => {
    const group = await startEmbeddedRaftGroup();
    open.push(group);
    const [leader, follower] = group.peers as Array<{ id: string; address: string }>;
    const s = stream(follower!.address, 'unordered');
    s.call.write(write(group, follower!.id, 1, 'x'));
    await replyCount(s.replies, 1);
    const reply = s.replies[0] as Buffer;
    expect(field(reply, 1, 15)).toBeUndefined(); // success = false stays off the wire
    expect((field(reply, 3, 1, 1) as Buffer).toString()).toBe(leader!.id);
    expect((field(reply, 3, 1, 2) as Buffer).toString()).toBe(leader!.address);
    expect(group.stats.applied).toBe(0);
  });

  it('fails a stream for another group with INTERNAL and GroupMismatchException as its exception-type', async () => {
    const group = await startEmbeddedRaftGroup();
    open.push(group);
    const other = await startEmbeddedRaftGroup();
    open.push(other);
    const leader = group.peers[0] as { id: string; address: string };
    const s = stream(leader.address, 'ordered');
    s.call.write(write(other, leader.id, 1, 'x', 1, true));
    const status = await s.status;
    expect(status.code).toBe(grpc.status.INTERNAL);
    expect(status.metadata.get('exception-type')).toEqual([
      'org.apache.ratis.protocol.exceptions.GroupMismatchException',
    ]);
  });

  it('elects another live member when the leader stops, and keeps what was committed', async () => {
    const group = await startEmbeddedRaftGroup({ electionDelayMs: 10 });
    open.push(group);
    const leader = group.peers[0] as { id: string; address: string };
    const s = stream(leader.address, 'ordered');
    s.call.write(write(group, leader.id, 1, 'kept', 1, true));
    await replyCount(s.replies, 1);
    await group.stopPeer(leader.id);
    const next = await group.leaderId();
    expect(next).not.toBe(leader.id);
    expect(group.commitIndex).toBeGreaterThanOrEqual(Number(field(s.replies[0] as Buffer, 14)));
    await expect(group.transferLeadership(leader.id)).rejects.toMatchObject({
      code: 'ERR_RATIS_TEST_SERVER',
    });
    await group.restartPeer(leader.id);
    await group.transferLeadership(leader.id);
    expect(await group.leaderId()).toBe(leader.id);
  });
});
