import fc from 'fast-check';
import { withMessageContent } from './message-content.js';
import { raft, toNumber, uint64 } from './proto/wire.js';

describe('withMessageContent', () => {
  it('decodes as the generated codec decodes the same request with the content joined', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 200 }), { maxLength: 5 }),
        fc.nat(),
        fc.boolean(),
        (pieces, callId, write) => {
          const rpcRequest = { callId: uint64(callId), requestorId: Buffer.alloc(16, 1) };
          const type = write ? { write: {} } : { read: { preferNonLinearizable: true } };
          const rest = { rpcRequest, ...type };
          const joined = Buffer.concat(pieces);
          const wire = withMessageContent(
            raft.RaftClientRequestProto.encode({ rpcRequest }).finish(),
            pieces,
            raft.RaftClientRequestProto.encode(type).finish(),
          );
          const ours = raft.RaftClientRequestProto.decode(wire);
          const reference = raft.RaftClientRequestProto.decode(
            raft.RaftClientRequestProto.encode({
              ...rest,
              message: joined.length ? { content: joined } : {},
            }).finish(),
          );
          // The same request: re-encoded, both give the same bytes (protobufjs writes fields in number order).
          expect(Buffer.from(raft.RaftClientRequestProto.encode(ours).finish())).toEqual(
            Buffer.from(raft.RaftClientRequestProto.encode(reference).finish()),
          );
          expect(toNumber(ours.rpcRequest?.callId)).toBe(callId);
          expect(Buffer.from(ours.message?.content ?? []).equals(joined)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('writes lengths past one varint byte (a 4 MiB content)', () => {
    const big = Buffer.alloc(4 << 20, 7);
    const decoded = raft.RaftClientRequestProto.decode(
      withMessageContent(
        new Uint8Array(0),
        [big.subarray(0, 3), big.subarray(3)],
        raft.RaftClientRequestProto.encode({ write: {} }).finish(),
      ),
    );
    expect(Buffer.from(decoded.message?.content ?? []).equals(big)).toBe(true);
  });
});
