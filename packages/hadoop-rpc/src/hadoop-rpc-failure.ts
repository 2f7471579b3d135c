import {
  HadoopRpcCallTimeoutError,
  HadoopRpcConnectError,
  HadoopRpcConnectionLostError,
  HadoopRpcConnectTimeoutError,
  RemoteException,
} from './hadoop-rpc-errors.js';

/**
 * What a failed call means to a failover layer (an HA proxy choosing whether to move on, wait or
 * give up). `mayHaveRun` says whether the server may have run the call: re-send it with the same
 * call id (and a higher retry count) so that a retry cache answers it instead of running it again.
 */
export type HadoopRpcFailure =
  /** The server answered an exception: its Java class and the first line of its message decide. */
  | {
      /** The discriminant: `remote` for a {@link RemoteException}. */
      kind: 'remote';
      /**
       * The Java exception class the server named, e.g.
       * `org.apache.hadoop.ozone.om.exceptions.OMNotLeaderException`.
       */
      className: string;
      /** The first line of the server's message (where `OMNotLeaderException` names the suggested leader). */
      firstLine: string;
      /** Whether the reply's status was `FATAL`: the server closed the connection too. */
      fatal: boolean;
      /** False only when the server refused the connection or a SASL step (call id −1 or −33). */
      mayHaveRun: boolean;
    }
  /** No connection: refused, unreachable or an unknown host. Nothing was sent. */
  | {
      /** The discriminant: `refused` for a {@link HadoopRpcConnectError}. */
      kind: 'refused';
      /** Always false: nothing was sent. */
      mayHaveRun: false;
    }
  /** The connection was lost with the call in flight. */
  | {
      /** The discriminant: `dropped` for a {@link HadoopRpcConnectionLostError}. */
      kind: 'dropped';
      /** Always true: the server may have received and run the call. */
      mayHaveRun: true;
    }
  /** No connection in time (`connect`, nothing sent) or no answer in time (`call`). */
  | {
      /** The discriminant: `timed-out` for a connect or call timeout. */
      kind: 'timed-out';
      /**
       * `connect` for a {@link HadoopRpcConnectTimeoutError}, `call` for a {@link
       * HadoopRpcCallTimeoutError}.
       */
      phase: 'connect' | 'call';
      /** False in phase `connect`, true in phase `call`. */
      mayHaveRun: boolean;
    }
  /** Anything else (a protocol error, SASL, a closed client, a bad argument). */
  | {
      /** The discriminant: `other` for any other error. */
      kind: 'other';
      /** True: such an error may strike a call already sent, so a re-send keeps the call id. */
      mayHaveRun: boolean;
    };

/**
 * Classifies an error thrown by {@link HadoopRpcClient.call} for a failover layer.
 *
 * @example
 * ```ts
 * const failure = classifyHadoopRpcFailure(error);
 * if (failure.kind === 'remote' && failure.className.endsWith('.OMNotLeaderException')) {
 *   const leader = /Suggested leader is OM:(\S+)\[/.exec(failure.firstLine)?.[1];
 * } else if (failure.kind === 'refused' || failure.kind === 'dropped') {
 *   // try the next server, with the same call id
 * }
 * ```
 */
export function classifyHadoopRpcFailure(error: unknown): HadoopRpcFailure {
  if (error instanceof RemoteException) {
    // A refused connection (call id −1) or a failed SASL step (−33) ran no call.
    const ranNothing = error.callId < 0;
    return {
      kind: 'remote',
      className: error.className,
      firstLine: error.firstLine,
      fatal: error.status === 'FATAL',
      mayHaveRun: !ranNothing,
    };
  }
  if (error instanceof HadoopRpcConnectError) return { kind: 'refused', mayHaveRun: false };
  if (error instanceof HadoopRpcConnectionLostError) return { kind: 'dropped', mayHaveRun: true };
  if (error instanceof HadoopRpcConnectTimeoutError)
    return { kind: 'timed-out', phase: 'connect', mayHaveRun: false };
  if (error instanceof HadoopRpcCallTimeoutError)
    return { kind: 'timed-out', phase: 'call', mayHaveRun: true };
  // A protocol error or a closed client may strike a call already sent.
  return { kind: 'other', mayHaveRun: true };
}
