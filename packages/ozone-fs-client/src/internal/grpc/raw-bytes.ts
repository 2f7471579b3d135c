import type { MethodDefinition } from '@grpc/grpc-js';

// Both sides pass messages through grpc-js as raw bytes and decode them with the generated
// codecs themselves: a decode failure then becomes a typed error (or a failover), not a gRPC
// INTERNAL status, and `bytes` fields stay views of the buffer grpc-js received.

/** The serializer/deserializer that leaves bytes as they are. */
export const rawBytes = (b: Buffer): Buffer => b;

/** A method definition for a grpc-js server that hands raw bytes to the handler. */
export function rawMethod(
  path: string,
  requestStream: boolean,
  responseStream: boolean,
): MethodDefinition<Buffer, Buffer> {
  return {
    path,
    requestStream,
    responseStream,
    requestSerialize: rawBytes,
    requestDeserialize: rawBytes,
    responseSerialize: rawBytes,
    responseDeserialize: rawBytes,
  };
}
