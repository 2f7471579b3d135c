import { status as grpcStatus } from '@grpc/grpc-js';
import { RaftServerError, RaftTlsError } from '../raft-client-errors.js';
import { isTlsFailure, type StreamError } from './grpc-stream-channel.js';

// Exceptions a Ratis server fails a whole stream with that a re-send cannot change: the request
// names a group the server does not have, or it cannot be read. Anything else (a server not ready
// yet, a closed connection, a peer that is down) is worth a new stream.
const FINAL_EXCEPTIONS = new Set([
  'GroupMismatchException',
  'IllegalArgumentException',
  'InvalidProtocolBufferException',
  'UnsupportedOperationException',
]);
// gRPC statuses that mean this is not a Ratis client service, or the request is too large for it.
const FINAL_STATUSES = new Set([
  3 /* INVALID_ARGUMENT */, 8 /* RESOURCE_EXHAUSTED */, 12 /* UNIMPLEMENTED */,
]);

/** What a failed stream means: the error to report and whether re-sending its requests can help. */
export function streamFailure(
  error: StreamError | undefined,
  peerId: string,
): { error: RaftServerError | RaftTlsError; retriable: boolean } {
  if (!error) {
    const remote = {
      remoteClass: 'stream ended',
      remoteMessage: 'the server ended the stream with requests outstanding',
      peerId,
    };
    return { error: new RaftServerError(remote, true), retriable: true };
  }
  if (isTlsFailure(error.cause)) {
    const tls = error.cause;
    return { error: new RaftTlsError(peerId, `${tls.code ?? 'TLS'}: ${tls.message}`, tls), retriable: false };
  }
  const type = firstString(error.metadata?.get('exception-type'));
  const remoteClass = type ?? `gRPC ${statusName(error.code)}`;
  const simpleName = remoteClass.slice(remoteClass.lastIndexOf('.') + 1);
  const retriable = !FINAL_STATUSES.has(error.code) && !FINAL_EXCEPTIONS.has(simpleName);
  return {
    error: new RaftServerError(
      { remoteClass, remoteMessage: error.details ?? error.message, peerId },
      retriable,
      error,
    ),
    retriable,
  };
}

function firstString(values: Array<string | Buffer> | undefined): string | undefined {
  const v = values?.[0];
  if (v === undefined) return undefined;
  return typeof v === 'string' ? v : v.toString('utf8');
}

function statusName(code: number): string {
  return (grpcStatus as unknown as Record<number, string>)[code] ?? String(code);
}
