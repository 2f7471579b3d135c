import { FastpathError } from '@fastpath/core';

// The errors of @fastpath/hadoop-rpc, one class per code (docs/errors.md). A layer above the
// client (an HA/failover proxy) branches on the class or `code`: a connection that could not be
// made, was lost, or timed out (try the next server, re-send with the same call id); a
// `RemoteException` (the server's Java exception class decides); anything else fails the call.

/** The statuses of a server's error reply (`RpcResponseHeaderProto.status`). */
export type RemoteStatus = 'ERROR' | 'FATAL';

/** What a server's error reply said, as {@link RemoteException} carries it. */
export interface RemoteExceptionFields {
  /** The Java exception class the server named, e.g. `org.apache.hadoop.ipc.RetriableException`. */
  className: string;
  /** The server's `errorMsg` as sent: the exception's message, then (from Java servers) its stack trace. */
  errorMessage: string;
  /** `RpcErrorCodeProto` by name, e.g. `ERROR_APPLICATION`, `FATAL_UNAUTHORIZED`; `undefined` when not sent. */
  errorDetail: string | undefined;
  /** `ERROR`: this call failed, the connection stays. `FATAL`: the server closed the connection. */
  status: RemoteStatus;
  /** The call id the reply was for (−1 for a refused connection, −33 for SASL). */
  callId: number;
  /** `host:port` of the server. */
  address: string;
}

// Hadoop retries the same server on these classes (RetryPolicies.FailoverOnNetworkExceptionRetry),
// and fails over on StandbyException; Ozone's fork of Hadoop's IPC renamed the package to `ipc_`
// (Hadoop RPC spec §0.2, §2.4), so both spellings count.
const RETRIABLE_CLASSES = new Set([
  'org.apache.hadoop.ipc.RetriableException',
  'org.apache.hadoop.ipc_.RetriableException',
  'org.apache.hadoop.ipc.StandbyException',
]);

/** Whether Hadoop's clients retry a call that failed with this Java exception class. */
export function isRetriableRemoteClass(className: string): boolean {
  return RETRIABLE_CLASSES.has(className);
}

/**
 * An exception the server answered (Hadoop's `RemoteException`): `className` is the Java class,
 * `firstLine` its message's first line (where Ozone's `OMNotLeaderException` names the suggested
 * leader), `stackTrace` the rest. `retriable` is true where Hadoop retries: `RetriableException`
 * (`org.apache.hadoop.ipc.` and Ozone's `org.apache.hadoop.ipc_.`) and `StandbyException`.
 *
 * @example
 * ```ts
 * try {
 *   await client.call(request);
 * } catch (err) {
 *   if (err instanceof RemoteException && err.className.endsWith('.OMNotLeaderException')) {
 *     console.log(err.firstLine); // "OM:om1 is not the leader. Suggested leader is OM:om2[...]."
 *   }
 * }
 * ```
 */
export class RemoteException extends FastpathError implements RemoteExceptionFields {
  readonly className: string;
  readonly errorMessage: string;
  readonly errorDetail: string | undefined;
  readonly status: RemoteStatus;
  readonly callId: number;
  readonly address: string;
  /** The first line of `errorMessage`: the Java exception's message (or its first line). */
  readonly firstLine: string;
  /** The lines after the first (a Java server's stack trace); empty when there are none. */
  readonly stackTrace: string;

  constructor(fields: RemoteExceptionFields) {
    const newline = fields.errorMessage.indexOf('\n');
    const firstLine = newline < 0 ? fields.errorMessage : fields.errorMessage.slice(0, newline).trimEnd();
    super(
      'ERR_HADOOP_RPC_REMOTE',
      `${fields.address} answered ${fields.status} ${fields.className}${firstLine ? `: ${firstLine}` : ''}`,
      { retriable: isRetriableRemoteClass(fields.className) },
    );
    this.className = fields.className;
    this.errorMessage = fields.errorMessage;
    this.errorDetail = fields.errorDetail;
    this.status = fields.status;
    this.callId = fields.callId;
    this.address = fields.address;
    this.firstLine = firstLine;
    this.stackTrace = newline < 0 ? '' : fields.errorMessage.slice(newline + 1);
  }
}

/** Why a connection could not be made. */
export type ConnectFailure = 'refused' | 'unreachable' | 'unknown-host' | 'other';

/**
 * A connection to the server could not be made (refused, no route, unknown host). Nothing was
 * sent: a failover layer moves on to the next server. `syscallCode` is Node's (`ECONNREFUSED`).
 */
export class HadoopRpcConnectError extends FastpathError {
  /** The server, `host:port`, as given in the call's `address`. */
  readonly address: string;
  /** Node's socket error code sorted into refused, unreachable, unknown host, or `other`. */
  readonly reason: ConnectFailure;
  /** Node's error code as reported, e.g. `ECONNREFUSED`, `ENOTFOUND`; `undefined` when the error had none. */
  readonly syscallCode: string | undefined;
  constructor(address: string, reason: ConnectFailure, syscallCode: string | undefined, cause: unknown) {
    super(
      'ERR_HADOOP_RPC_CONNECT',
      `cannot connect to ${address}: ${reason}${syscallCode ? ` (${syscallCode})` : ''}`,
      { cause, retriable: true },
    );
    this.address = address;
    this.reason = reason;
    this.syscallCode = syscallCode;
  }
}

/**
 * The connection was not ready (TCP connect, SASL negotiation) within `connectTimeoutMs`. Nothing
 * was sent beyond the handshake.
 */
export class HadoopRpcConnectTimeoutError extends FastpathError {
  /** The server, `host:port`, as given in the call's `address`. */
  readonly address: string;
  /** The bound that ran out, in ms: the client's `connectTimeoutMs`. */
  readonly timeoutMs: number;
  constructor(address: string, timeoutMs: number) {
    super('ERR_HADOOP_RPC_CONNECT_TIMEOUT', `connection to ${address} not ready within ${timeoutMs} ms`, {
      retriable: true,
    });
    this.address = address;
    this.timeoutMs = timeoutMs;
  }
}

/**
 * The connection closed (reset, end of stream, a frame cut short) while the call was in flight.
 * The server may have run the call: re-send it with the same call id and a higher retry count so
 * that its retry cache answers it instead of running it again.
 */
export class HadoopRpcConnectionLostError extends FastpathError {
  /** The server, `host:port`, the lost connection went to. */
  readonly address: string;
  constructor(address: string, detail: string, cause?: unknown) {
    super('ERR_HADOOP_RPC_CONNECTION_LOST', `connection to ${address} lost: ${detail}`, {
      cause,
      retriable: true,
    });
    this.address = address;
  }
}

/**
 * No answer within the call's deadline (`callTimeoutMs`, Hadoop's `ipc.client.rpc-timeout.ms`).
 * The server may still run the call; its late answer is dropped.
 */
export class HadoopRpcCallTimeoutError extends FastpathError {
  /** The server, `host:port`, the call was sent to. */
  readonly address: string;
  /** The RPC method called, e.g. `submitRequest`. */
  readonly method: string;
  /** The deadline that ran out, in ms: the call's `timeoutMs`, else the client's `callTimeoutMs`. */
  readonly timeoutMs: number;
  /** The call's id: re-send with it (and a higher retry count) so the server's retry cache can answer. */
  readonly callId: number;
  constructor(address: string, method: string, callId: number, timeoutMs: number) {
    super(
      'ERR_HADOOP_RPC_CALL_TIMEOUT',
      `${method} (call ${callId}) to ${address} not answered within ${timeoutMs} ms`,
      { retriable: true },
    );
    this.address = address;
    this.method = method;
    this.timeoutMs = timeoutMs;
    this.callId = callId;
  }
}

/**
 * The server sent something that is not Hadoop IPC: bytes that do not decode, an invalid frame
 * length, a reply to a call id not in flight, bytes left over in a frame, another client's id, a
 * pre-version-9 server. The connection is closed and every call on it fails with this error.
 */
export class HadoopRpcProtocolError extends FastpathError {
  /** The server, `host:port`, that sent what could not be read. */
  readonly address: string;
  constructor(address: string, message: string, cause?: unknown) {
    super('ERR_HADOOP_RPC_PROTOCOL', `${address}: ${message}`, { cause });
    this.address = address;
  }
}

/**
 * A frame's length prefix is above `maxResponseBytes` (Hadoop's `ipc.maximum.response.length`).
 * Refused from the 4 length bytes alone, before anything is allocated; the connection is closed.
 */
export class HadoopRpcResponseTooLargeError extends FastpathError {
  /** The server, `host:port`, that sent the frame. */
  readonly address: string;
  /** The frame length the server announced, in bytes. */
  readonly lengthBytes: number;
  /** The limit it exceeded, in bytes: the client's `maxResponseBytes`. */
  readonly maxBytes: number;
  constructor(address: string, lengthBytes: number, maxBytes: number) {
    super(
      'ERR_HADOOP_RPC_RESPONSE_TOO_LARGE',
      `${address}: RPC response has a length of ${lengthBytes} bytes, above the maximum of ${maxBytes} (ipc.maximum.response.length)`,
    );
    this.address = address;
    this.lengthBytes = lengthBytes;
    this.maxBytes = maxBytes;
  }
}

/**
 * SASL negotiation found no method both sides can use: the server offered only methods (e.g.
 * `TOKEN`, `KERBEROS`) this client has no mechanism for, or a mechanism failed. `offered` lists
 * the server's methods as `METHOD/mechanism`.
 */
export class HadoopRpcSaslError extends FastpathError {
  /** The server, `host:port`, the negotiation was with. */
  readonly address: string;
  /**
   * The server's offer as `METHOD/mechanism` (or `METHOD` alone, e.g. `SIMPLE`), in its order; may
   * be empty.
   */
  readonly offered: readonly string[];
  constructor(address: string, message: string, offered: readonly string[], cause?: unknown) {
    super('ERR_HADOOP_RPC_SASL', `${address}: ${message}`, { cause });
    this.address = address;
    this.offered = offered;
  }
}

/** A call the client refuses before sending anything (an empty method, a bad call id or address). */
export class HadoopRpcInvalidArgumentError extends FastpathError {
  /** The {@link HadoopRpcCall} field that was refused, e.g. `address`, `callId`, `request`. */
  readonly argument: string;
  constructor(argument: string, message: string) {
    super('ERR_HADOOP_RPC_INVALID_ARGUMENT', `invalid ${argument}: ${message}`);
    this.argument = argument;
  }
}

/** A call after `close()`, or a call still in flight when the client closed. */
export class HadoopRpcClientClosedError extends FastpathError {
  constructor() {
    super('ERR_HADOOP_RPC_CLIENT_CLOSED', 'the Hadoop RPC client is closed');
  }
}

/**
 * The server's SASL offer has no quality of protection this client is configured to accept
 * (`hadoop.rpc.protection`): e.g. the client requires `privacy` and the server offers only
 * `authentication`. The client refuses rather than run weaker than configured (a downgrade).
 */
export class HadoopRpcSaslQopError extends FastpathError {
  /** The server (`host:port`) that offered too weak a protection. */
  readonly address: string;
  /** The QOPs the server offered (`auth`, `auth-int`, `auth-conf`). */
  readonly offered: readonly string[];
  /** The QOPs the client accepts, in its order of preference. */
  readonly required: readonly string[];
  constructor(address: string, offered: readonly string[], required: readonly string[]) {
    super(
      'ERR_HADOOP_RPC_SASL_QOP',
      `${address}: the server offers SASL QOP [${offered.join(', ')}], this client accepts only [${required.join(', ')}]`,
    );
    this.address = address;
    this.offered = offered;
    this.required = required;
  }
}

/** Why a Kerberos (SASL GSSAPI) log-in to a server failed: see {@link HadoopRpcKerberosError}. */
export type KerberosFailureReason =
  /** No ticket to start from: no credentials cache (`KRB5CCNAME`, `kinit`) and no client keytab. */
  | 'no-ticket'
  /** The ticket (or the credentials cache's TGT) has expired: `kinit` again, or use a keytab. */
  | 'expired-ticket'
  /** The KDC has no such service principal (the server's advertised name is not in the realm). */
  | 'unknown-server'
  /** No KDC of the realm answered. */
  | 'kdc-unreachable'
  /** The server's advertised principal is not the one configured (`…kerberos.principal`, `_HOST`). */
  | 'server-principal'
  /** The server did not prove it holds its key (no, or a bad, mutual-authentication reply). */
  | 'mutual-auth'
  /** The GSS-API addon is not built here (it needs MIT Kerberos's libkrb5-dev). */
  | 'unavailable'
  /** Anything else GSS-API refused; the message has its text. */
  | 'other';

/**
 * A Kerberos (SASL GSSAPI) log-in failed on the client's side, before or during the exchange;
 * `reason` says what is wrong. A server's refusal of a valid ticket comes as a
 * {@link RemoteException} (`FATAL_UNAUTHORIZED`) instead, and a QOP the server does not offer as
 * {@link HadoopRpcSaslQopError}. Messages carry GSS-API's texts, never key material.
 */
export class HadoopRpcKerberosError extends FastpathError {
  /** The server (`host:port`) the log-in was for. */
  readonly address: string;
  /** What is wrong. */
  readonly reason: KerberosFailureReason;
  constructor(address: string, reason: KerberosFailureReason, message: string, cause?: unknown) {
    super('ERR_HADOOP_RPC_KERBEROS', `${address}: Kerberos (GSSAPI): ${message}`, { cause });
    this.address = address;
    this.reason = reason;
  }
}
