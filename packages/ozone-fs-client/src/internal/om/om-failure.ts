// What a failed OM call means for failover, decided in one place for every transport. The OM's HA
// exceptions reach a client as a Java class name and a message: over gRPC as the description of
// an INTERNAL status, "<class>: <message>" (Ozone's OzoneManagerServiceGrpc answers
// `Status.INTERNAL.withDescription(new IOException(cause).getMessage())`); over Hadoop RPC as a
// RemoteException with the class name in its header.
import { status as GrpcStatus } from '@grpc/grpc-js';
import { FastpathError } from '@fastpath/core';
import { HTTP2_ERROR } from '@fastpath/grpc-http2';
import { classifyHadoopRpcFailure, RemoteException } from '@fastpath/hadoop-rpc';
import { OzoneRpcError } from '../../ozone-errors.js';

/** A node an OMNotLeaderException names as the leader. */
export interface SuggestedLeader {
  nodeId: string;
  /** The address as the OM prints it (`InetAddress.toString()`: `host/ip`, no port). */
  address: string;
}

/**
 * What to do after a failed attempt:
 * - `not-leader`: the node is a follower; go to `suggestedLeader` when it names one, else the next node.
 *   A write may still have been applied: an OM that loses leadership with the write already in
 *   its Raft log answers the same exception, and the new leader commits the entry;
 * - `leader-not-ready`: the node leads but has not caught up; wait and ask it again;
 * - `unreachable`: refused, dropped, timed out, or the node asked to be retried; go to the next node.
 *   `outcomeUnknown`: the request may have been applied (a write re-sent after it can find its
 *   own effect);
 * - `final`: an answer a retry cannot change; the call fails with it.
 */
export type OmFailure =
  | {
      kind: 'not-leader';
      suggestedLeader: SuggestedLeader | undefined;
      message: string;
      outcomeUnknown: true;
    }
  | { kind: 'leader-not-ready'; message: string }
  | { kind: 'unreachable'; outcomeUnknown: boolean }
  | { kind: 'final' };

export const OM_NOT_LEADER_EXCEPTION = 'org.apache.hadoop.ozone.om.exceptions.OMNotLeaderException';
export const OM_LEADER_NOT_READY_EXCEPTION =
  'org.apache.hadoop.ozone.om.exceptions.OMLeaderNotReadyException';
/** Hadoop's "try again" (the OM's call queue full); Ozone's fork renamed the package `ipc_`. */
const RETRIABLE_EXCEPTIONS = new Set([
  'org.apache.hadoop.ipc.RetriableException',
  'org.apache.hadoop.ipc_.RetriableException',
]);

/**
 * The OM interrupted the thread handling the call: it is going down (a stopped or killed OM
 * interrupts its handlers and answers each call in hand with this). The call may already be in
 * the Raft log, where the next leader commits it.
 */
const INTERRUPTED_EXCEPTIONS = new Set(['java.lang.InterruptedException', 'java.io.InterruptedIOException']);

const RESET_BY_SERVER = /Received RST_STREAM with code \d|Stream removed|Connection dropped/;

/** grpc-js' words for a call that found no connection (so it was never sent). */
const NEVER_CONNECTED = /ECONNREFUSED|No connection established|EHOSTUNREACH|ENOTFOUND/;

const SUGGESTED_LEADER = /Suggested leader is OM:([^\s[\]]+)\[([^\]]*)\]/;

/** The Java exception a failure carries, when the OM sent one instead of an OMResponse. */
export function remoteException(err: unknown): { className: string; message: string } | undefined {
  if (err instanceof OzoneRpcError) {
    if (err.grpcCode !== (GrpcStatus.INTERNAL as number)) return undefined;
    const details = (err.cause as { details?: unknown } | undefined)?.details;
    if (typeof details !== 'string') return undefined;
    const m = /^([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+): ?([\s\S]*)$/.exec(details);
    return m ? { className: m[1] as string, message: m[2] as string } : undefined;
  }
  // A Hadoop RPC RemoteException: the class name the server put in the response header.
  if (err instanceof RemoteException) return { className: err.className, message: err.errorMessage };
  return undefined;
}

/** The HTTP/2 code of the RST_STREAM an OM ended the call with before any status (fastpath's own sessions). */
function serverResetCode(err: OzoneRpcError): number | undefined {
  const code = (err.cause as { http2ResetCode?: unknown } | undefined)?.http2ResetCode;
  return typeof code === 'number' ? code : undefined;
}

/** The suggested leader in an OMNotLeaderException's message, when it names one. */
export function parseSuggestedLeader(message: string): SuggestedLeader | undefined {
  const m = SUGGESTED_LEADER.exec(message);
  return m ? { nodeId: m[1] as string, address: m[2] as string } : undefined;
}

/** Classifies a failed attempt (see {@link OmFailure}). */
export function classifyOmFailure(err: unknown): OmFailure {
  if (err instanceof FastpathError && err.code.startsWith('ERR_HADOOP_RPC_')) return classifyHadoopRpc(err);
  const remote = remoteException(err);
  // grpc-js' words for a stream the server reset (an OM shutting down mid-call): no OM exception,
  // the call may have been applied.
  if (err instanceof OzoneRpcError && RESET_BY_SERVER.test(err.message))
    return { kind: 'unreachable', outcomeUnknown: true };
  // The same on fastpath's own sessions, which say it by the reset's code: an OM going down resets
  // the calls it holds (INTERNAL_ERROR) before its connection goes, and the status is gRPC's
  // mapping of the reset (INTERNAL), not an exception the OM answered.
  const reset = err instanceof OzoneRpcError ? serverResetCode(err) : undefined;
  // A refused stream was never taken, so nothing of the call ran.
  if (reset !== undefined)
    return { kind: 'unreachable', outcomeUnknown: reset !== HTTP2_ERROR.REFUSED_STREAM };
  if (remote) return classifyRemote(remote.className, firstLine(remote.message));
  if (err instanceof OzoneRpcError) {
    if (err.code === 'ERR_OZONE_DEADLINE_EXCEEDED') return { kind: 'unreachable', outcomeUnknown: true };
    if (err.code !== 'ERR_OZONE_UNAVAILABLE') return { kind: 'final' };
    // A connection that never came up carried nothing; one that dropped may have carried the call.
    return { kind: 'unreachable', outcomeUnknown: !NEVER_CONNECTED.test(err.message) };
  }
  // Another transport's connection failure (refused, reset, timed out) says it can be retried.
  if (err instanceof FastpathError && err.retriable) return { kind: 'unreachable', outcomeUnknown: true };
  return { kind: 'final' };
}

/**
 * A failed Hadoop RPC call: an exception the OM answered is judged by its class as over gRPC; a
 * refused connection carried nothing; a dropped one or a call timed out may have been applied (its
 * re-send carries the same call id, so the OM's retry cache answers it); a protocol error, a FATAL
 * answer (the connection refused as a whole) or a closed client is final.
 */
function classifyHadoopRpc(err: FastpathError): OmFailure {
  const failure = classifyHadoopRpcFailure(err);
  switch (failure.kind) {
    case 'remote':
      return failure.fatal ? { kind: 'final' } : classifyRemote(failure.className, failure.firstLine);
    case 'refused':
      return { kind: 'unreachable', outcomeUnknown: false };
    case 'dropped':
      return { kind: 'unreachable', outcomeUnknown: true };
    case 'timed-out':
      return { kind: 'unreachable', outcomeUnknown: failure.mayHaveRun };
    default:
      return { kind: 'final' };
  }
}

/** An exception the OM answered instead of an OMResponse, by its Java class and first line. */
function classifyRemote(className: string, message: string): OmFailure {
  if (className === OM_NOT_LEADER_EXCEPTION)
    return {
      kind: 'not-leader',
      suggestedLeader: parseSuggestedLeader(message),
      message,
      outcomeUnknown: true,
    };
  if (className === OM_LEADER_NOT_READY_EXCEPTION) return { kind: 'leader-not-ready', message };
  // Refused before the OM looked at it: nothing was applied.
  if (RETRIABLE_EXCEPTIONS.has(className)) return { kind: 'unreachable', outcomeUnknown: false };
  // Going down mid-call: on to the next OM; over Hadoop RPC the re-send keeps its client id and
  // call id, so an OM that has the write from the log answers it from its retry cache.
  if (INTERRUPTED_EXCEPTIONS.has(className)) return { kind: 'unreachable', outcomeUnknown: true };
  // Any other exception (a bug, a refused token): Ozone's client fails over on it too, but the
  // next OM is a follower that answers NotLeader and the round comes back to the same answer,
  // 500 times. Failing at once says what happened.
  return { kind: 'final' };
}

function firstLine(text: string): string {
  const end = text.indexOf('\n');
  return (end < 0 ? text : text.slice(0, end)).trim();
}
