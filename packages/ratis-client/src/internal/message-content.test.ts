import fc from 'fast-check';
import { requestPiecesWithContent } from './message-content.js';
import { raft, toNumber, uint64 } from './proto/wire.js';

const withMessageContent = (head: Uint8Array, pieces: readonly Uint8Array[], tail: Uint8Array): Buffer =>
  Buffer.concat(requestPiecesWithContent(head, pieces, tail));

describe('requestPiecesWithContent', () => {
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

  it('hands the content on as the very pieces it was given, not copies', () => {
    const data = Buffer.alloc(1 << 20, 3);
    const other = new Uint8Array([1, 2, 3]);
    const tail = raft.RaftClientRequestProto.encode({ write: {} }).finish();
    const pieces = requestPiecesWithContent(new Uint8Array([10, 0]), [data, new Uint8Array(0), other], tail);
    expect(pieces).toHaveLength(4);
    expect(pieces[1]).toBe(data);
    expect(pieces[2]).toBe(other);
    expect(pieces[3]).toBe(tail);
    // Only the lead is new: the head, the message's two tags and two lengths.
    expect(pieces[0]!.length).toBe(2 + 1 + 3 + 1 + 3);
  });
});
