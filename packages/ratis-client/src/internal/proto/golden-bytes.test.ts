// Golden bytes per message: what the generated codecs write, against bytes built by hand from
// the field numbers of Ratis 3.2.1's Raft.proto (spec §11.2) with a writer that knows no .proto
// file. A wrong field number or wire type in proto/Raft.proto fails here. Each value sets every
// field, non-default, so that no field can hide behind proto3's "defaults stay off the wire".
import { type Bytes, hex, l, v } from '@fastpath/test-support';
import Long from 'long';
import { raft } from './wire.js';

const u64 = (n: number): Long => Long.fromNumber(n, true);
const peer = {
  id: Buffer.from('peer-1'),
  address: '127.0.0.1:9858',
  priority: 2,
  dataStreamAddress: 'd:1',
  clientAddress: 'c:2',
  adminAddress: 'a:3',
  startupRole: 2,
};
const peerBytes: Bytes = [
  ...l(1, 'peer-1'),
  ...l(2, '127.0.0.1:9858'),
  ...v(3, 2),
  ...l(4, 'd:1'),
  ...l(5, 'c:2'),
  ...l(6, 'a:3'),
  ...v(7, 2),
];
const group = Buffer.from('00112233445566778899aabbccddeeff', 'hex');
const client = Buffer.from('0f1e2d3c4b5a69788796a5b4c3d2e1f0', 'hex');
const rpcRequest = {
  requestorId: client,
  replyId: Buffer.from('peer-1'),
  raftGroupId: { id: group },
  callId: u64(300),
  toLeader: true,
  repliedCallIds: [u64(1), u64(200)],
  timeoutMs: u64(60_000),
  routingTable: {
    routes: [
      { peerId: { id: Buffer.from('p0') }, successors: [{ id: Buffer.from('p1') }] },
      {
        peerId: { id: Buffer.from('p1') },
        successors: [{ id: Buffer.from('p2') }, { id: Buffer.from('p3') }],
      },
    ],
  },
  slidingWindowEntry: { seqNum: u64(7), isFirst: true },
};
const routingTableBytes: Bytes = [
  ...l(1, [...l(1, l(1, 'p0')), ...l(2, l(1, 'p1'))]),
  ...l(1, [...l(1, l(1, 'p1')), ...l(2, l(1, 'p2')), ...l(2, l(1, 'p3'))]),
];
const rpcRequestBytes: Bytes = [
  ...l(1, client),
  ...l(2, 'peer-1'),
  ...l(3, l(1, group)),
  ...v(4, 300),
  ...v(5, true),
  ...l(12, [...v(0, 1).slice(1), ...v(0, 200).slice(1)]), // packed: the varints alone
  ...v(13, 60_000),
  ...l(14, routingTableBytes),
  ...l(15, [...v(1, 7), ...v(2, true)]),
];
const rpcReply = {
  requestorId: client,
  replyId: Buffer.from('peer-1'),
  raftGroupId: { id: group },
  callId: u64(300),
  success: true,
};
const rpcReplyBytes: Bytes = [
  ...l(1, client),
  ...l(2, 'peer-1'),
  ...l(3, l(1, group)),
  ...v(4, 300),
  ...v(15, true),
];
const throwable = {
  className: 'java.io.IOException',
  errorMessage: 'boom',
  stackTrace: Buffer.from([1, 2]),
  cause: Buffer.from([3]),
};
const throwableBytes: Bytes = [
  ...l(1, 'java.io.IOException'),
  ...l(2, 'boom'),
  ...l(3, [1, 2]),
  ...l(4, [3]),
];
const smException = { exceptionClassName: 'x.Y', errorMsg: 'no', stacktrace: Buffer.from([9]) };
const smExceptionBytes: Bytes = [...l(1, 'x.Y'), ...l(2, 'no'), ...l(3, [9])];
const commitInfo = { server: peer, commitIndex: u64(42) };
const commitInfoBytes: Bytes = [...l(1, peerBytes), ...v(2, 42)];
// A STREAM_DATA packet with both options (SYNC = 0, CLOSE = 1): a repeated enum is packed in
// proto3, as Java writes it (field 6, one length, the varints).
const packetHeader = {
  clientId: client,
  type: 1,
  streamId: u64(300),
  streamOffset: u64(1 << 20),
  dataLength: u64(4096),
  options: [0, 1],
};
const packetHeaderBytes: Bytes = [
  ...l(1, client),
  ...v(2, 1),
  ...v(3, 300),
  ...v(4, 1 << 20),
  ...v(5, 4096),
  ...l(6, [0, 1]),
];

interface Codec {
  encode(message: never): { finish(): Uint8Array };
  decode(bytes: Uint8Array): object;
}
const cases: Array<[string, Codec, object, Bytes]> = [
  ['RaftPeerProto', raft.RaftPeerProto, peer, peerBytes],
  ['RaftGroupIdProto', raft.RaftGroupIdProto, { id: group }, l(1, group)],
  [
    'RaftGroupMemberIdProto',
    raft.RaftGroupMemberIdProto,
    { peerId: Buffer.from('p'), groupId: { id: group } },
    [...l(1, 'p'), ...l(2, l(1, group))],
  ],
  [
    'SlidingWindowEntry',
    raft.SlidingWindowEntry,
    { seqNum: u64(5), isFirst: true },
    [...v(1, 5), ...v(2, true)],
  ],
  ['RaftRpcRequestProto', raft.RaftRpcRequestProto, rpcRequest, rpcRequestBytes],
  ['RaftRpcReplyProto', raft.RaftRpcReplyProto, rpcReply, rpcReplyBytes],
  ['ClientMessageEntryProto', raft.ClientMessageEntryProto, { content: Buffer.from('abc') }, l(1, 'abc')],
  ['WriteRequestTypeProto', raft.WriteRequestTypeProto, { replication: 1 }, v(1, 1)],
  [
    'ReadRequestTypeProto',
    raft.ReadRequestTypeProto,
    { preferNonLinearizable: true, readAfterWriteConsistent: true },
    [...v(1, true), ...v(2, true)],
  ],
  [
    'WatchRequestTypeProto',
    raft.WatchRequestTypeProto,
    { index: u64(99), replication: 3 },
    [...v(1, 99), ...v(2, 3)],
  ],
  [
    'RaftClientRequestProto (write)',
    raft.RaftClientRequestProto,
    { rpcRequest, message: { content: Buffer.from('w') }, write: {} },
    [...l(1, rpcRequestBytes), ...l(2, l(1, 'w')), ...l(3, [])], // an empty write is still on the wire
  ],
  [
    'RaftClientRequestProto (read)',
    raft.RaftClientRequestProto,
    { rpcRequest, message: { content: Buffer.from('r') }, read: { preferNonLinearizable: true } },
    [...l(1, rpcRequestBytes), ...l(2, l(1, 'r')), ...l(4, v(1, true))],
  ],
  [
    'RaftClientRequestProto (watch)',
    raft.RaftClientRequestProto,
    { rpcRequest, watch: { index: u64(12), replication: 2 } },
    [...l(1, rpcRequestBytes), ...l(6, [...v(1, 12), ...v(2, 2)])],
  ],
  ['RaftPeerIdProto', raft.RaftPeerIdProto, { id: Buffer.from('p1') }, l(1, 'p1')],
  [
    'RouteProto',
    raft.RouteProto,
    { peerId: { id: Buffer.from('a') }, successors: [{ id: Buffer.from('b') }, { id: Buffer.from('c') }] },
    [...l(1, l(1, 'a')), ...l(2, l(1, 'b')), ...l(2, l(1, 'c'))],
  ],
  ['RoutingTableProto', raft.RoutingTableProto, rpcRequest.routingTable, routingTableBytes],
  [
    'RaftClientRequestProto (dataStream: a stream header)',
    raft.RaftClientRequestProto,
    { rpcRequest, message: { content: Buffer.from('h') }, dataStream: {} },
    [...l(1, rpcRequestBytes), ...l(2, l(1, 'h')), ...l(8, [])], // empty, yet on the wire
  ],
  [
    'RaftClientRequestProto (forward)',
    raft.RaftClientRequestProto,
    { rpcRequest, message: { content: Buffer.from('f') }, forward: {} },
    [...l(1, rpcRequestBytes), ...l(2, l(1, 'f')), ...l(9, [])],
  ],
  ['DataStreamPacketHeaderProto', raft.DataStreamPacketHeaderProto, packetHeader, packetHeaderBytes],
  [
    // protobufjs writes a default it is given; the framing leaves type 0 and offset 0 out, as Java does.
    'DataStreamPacketHeaderProto (a header packet, defaults left out)',
    raft.DataStreamPacketHeaderProto,
    { clientId: client, streamId: u64(5), dataLength: u64(90) },
    [...l(1, client), ...v(3, 5), ...v(5, 90)],
  ],
  [
    'DataStreamRequestHeaderProto',
    raft.DataStreamRequestHeaderProto,
    { packetHeader },
    l(1, packetHeaderBytes),
  ],
  [
    'DataStreamReplyHeaderProto',
    raft.DataStreamReplyHeaderProto,
    { packetHeader, bytesWritten: u64(4096), success: true, commitInfos: [commitInfo, commitInfo] },
    [
      ...l(1, packetHeaderBytes),
      ...v(2, 4096),
      ...v(3, true),
      ...l(15, commitInfoBytes),
      ...l(15, commitInfoBytes),
    ],
  ],
  [
    'NotLeaderExceptionProto',
    raft.NotLeaderExceptionProto,
    { suggestedLeader: peer, peersInConf: [peer, peer] },
    [...l(1, peerBytes), ...l(2, peerBytes), ...l(2, peerBytes)],
  ],
  [
    'NotReplicatedExceptionProto',
    raft.NotReplicatedExceptionProto,
    { callId: u64(3), replication: 3, logIndex: u64(77) },
    [...v(1, 3), ...v(2, 3), ...v(3, 77)],
  ],
  [
    'LeaderNotReadyExceptionProto',
    raft.LeaderNotReadyExceptionProto,
    { serverId: { peerId: Buffer.from('p'), groupId: { id: group } } },
    l(1, [...l(1, 'p'), ...l(2, l(1, group))]),
  ],
  ['StateMachineExceptionProto', raft.StateMachineExceptionProto, smException, smExceptionBytes],
  ['AlreadyClosedExceptionProto', raft.AlreadyClosedExceptionProto, smException, smExceptionBytes],
  ['ThrowableProto', raft.ThrowableProto, throwable, throwableBytes],
  ['CommitInfoProto', raft.CommitInfoProto, commitInfo, commitInfoBytes],
  [
    'RaftClientReplyProto (success)',
    raft.RaftClientReplyProto,
    {
      rpcReply,
      message: { content: Buffer.from('ok') },
      logIndex: u64(1234),
      commitInfos: [commitInfo, commitInfo],
    },
    [
      ...l(1, rpcReplyBytes),
      ...l(2, l(1, 'ok')),
      ...v(14, 1234),
      ...l(15, commitInfoBytes),
      ...l(15, commitInfoBytes),
    ],
  ],
];
// Each member of the reply's ExceptionDetails oneof, by field number.
const exceptionMembers: Array<[string, number, object, Bytes]> = [
  ['notLeaderException', 3, { suggestedLeader: peer }, l(1, peerBytes)],
  [
    'notReplicatedException',
    4,
    { callId: u64(1), replication: 3, logIndex: u64(2) },
    [...v(1, 1), ...v(2, 3), ...v(3, 2)],
  ],
  ['stateMachineException', 5, smException, smExceptionBytes],
  ['leaderNotReadyException', 6, { serverId: { peerId: Buffer.from('p') } }, l(1, l(1, 'p'))],
  ['alreadyClosedException', 7, smException, smExceptionBytes],
  ['dataStreamException', 8, throwable, throwableBytes],
  ['leaderSteppingDownException', 9, throwable, throwableBytes],
  ['transferLeadershipException', 10, throwable, throwableBytes],
  ['readException', 11, throwable, throwableBytes],
  ['readIndexException', 12, throwable, throwableBytes],
];
for (const [member, field, value, bytes] of exceptionMembers) {
  cases.push([
    `RaftClientReplyProto (${member})`,
    raft.RaftClientReplyProto,
    { rpcReply: { callId: u64(9) }, [member]: value },
    [...l(1, v(4, 9)), ...l(field, bytes)],
  ]);
}

describe('golden bytes of Raft.proto', () => {
  it.each(cases)('%s encodes to the hand-built bytes and decodes from them', (_name, codec, value, bytes) => {
    expect(hex(codec.encode(value as never).finish())).toBe(hex(bytes));
    const decoded = codec.decode(Buffer.from(bytes));
    expect(hex(codec.encode(decoded as never).finish())).toBe(hex(bytes));
  });

  it('decodes the oneof member a reply carries', () => {
    for (const [member, field, , bytes] of exceptionMembers) {
      const reply = raft.RaftClientReplyProto.decode(Buffer.from(l(field, bytes)));
      expect(reply.ExceptionDetails).toBe(member);
    }
  });

  it('skips fields it does not define (a newer server) instead of failing', () => {
    const reply = raft.RaftClientReplyProto.decode(
      Buffer.from([...l(1, v(15, true)), ...l(13, 'x'), ...v(99, 1)]),
    );
    expect(reply.rpcReply?.success).toBe(true);
    expect(reply.ExceptionDetails).toBeUndefined();
  });
});
