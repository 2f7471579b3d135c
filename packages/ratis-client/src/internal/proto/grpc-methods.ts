import type { MethodDefinition } from '@grpc/grpc-js';

// Both sides pass messages through grpc-js as raw bytes and decode them with the generated
// codecs themselves: a reply that does not decode becomes a typed error of the client, not a
// gRPC INTERNAL status, and `bytes` fields stay views of the buffer grpc-js received.

const rawBytes = (b: Buffer): Buffer => b;

function rawStream(name: 'ordered' | 'unordered'): MethodDefinition<Buffer, Buffer> {
  return {
    path: `/ratis.grpc.RaftClientProtocolService/${name}`,
    requestStream: true,
    responseStream: true,
    requestSerialize: rawBytes,
    requestDeserialize: rawBytes,
    responseSerialize: rawBytes,
    responseDeserialize: rawBytes,
  };
}

/**
 * Ratis's `ratis.grpc.RaftClientProtocolService` as a grpc-js service definition over raw bytes:
 * two bidirectional streams of serialized `RaftClientRequestProto` → `RaftClientReplyProto`.
 */
export const RAFT_CLIENT_PROTOCOL_SERVICE = Object.freeze({
  /** `RaftClientProtocolService/ordered`: replies in the order requests came (the client's writes, reads). */
  ordered: rawStream('ordered'),
  /** `RaftClientProtocolService/unordered`: each reply when its request completes (the client's watches). */
  unordered: rawStream('unordered'),
});
