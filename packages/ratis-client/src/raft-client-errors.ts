import { FastpathError } from '@fastpath/core';

// The errors of @fastpath/ratis-client, one class per code (docs/errors.md). Errors that come from
// a server carry the server's Java exception class and message (`remoteClass`, `remoteMessage`)
// and the peer that answered; `retriable` says whether sending the same request again can help.

/** What a server said, on the errors that come from one. */
export interface RemoteExceptionDetails {
  /** The Java exception class the server named, e.g. `org.apache.ratis.protocol.exceptions.StateMachineException`. */
  remoteClass: string;
  /** The server's exception message. */
  remoteMessage: string;
  /** The id of the peer that answered. */
  peerId: string;
}

/**
 * The TLS handshake with a member failed: its certificate does not chain to `tls.ca`, does not
 * carry the name checked, has expired, or the member does not speak TLS. Not retried: every
 * member of a group is set up alike, and re-sending cannot change a certificate. `cause` is
 * Node's TLS error, whose `code` says which check failed.
 */
export class RaftTlsError extends FastpathError {
  /** The member whose handshake failed. */
  readonly peerId: string;
  constructor(peerId: string, message: string, cause: unknown) {
    super('ERR_RATIS_TLS', `TLS with Raft peer ${peerId} failed: ${message}`, { cause });
    this.peerId = peerId;
  }
}

/** A call argument the client refuses before sending anything (not a UUID, an empty index). */
export class RaftInvalidArgumentError extends FastpathError {
  constructor(message: string) {
    super('ERR_RATIS_INVALID_ARGUMENT', message);
  }
}

/**
 * A request was not answered within its timeout (`writeTimeoutMs`, `readTimeoutMs`,
 * `watchTimeoutMs`), through every re-send and leader change; `cause` is the last failure seen.
 * A write that timed out may still be applied: the server may have applied it before the timeout.
 */
export class RaftTimeoutError extends FastpathError {
  /**
   * What timed out: `write`, `read` or `watch`; `one attempt on <peerId>` on the error kept as
   * `cause` when a single attempt went unanswered for `rpcRequestTimeoutMs`/`rpcWatchRequestTimeoutMs`.
   */
  readonly operation: string;
  /**
   * The bound that ran out, in ms (`writeTimeoutMs`, `readTimeoutMs`, `watchTimeoutMs`, or the
   * attempt timeout).
   */
  readonly timeoutMs: number;
  constructor(operation: string, timeoutMs: number, cause: unknown) {
    super(
      'ERR_RATIS_TIMEOUT',
      `${operation} not answered within ${timeoutMs} ms${cause instanceof Error ? ` (last failure: ${cause.message})` : ''}`,
      { cause, retriable: true },
    );
    this.operation = operation;
    this.timeoutMs = timeoutMs;
  }
}

/** The state machine refused the request (Ratis's `StateMachineException`): the same request fails again. */
export class RaftStateMachineError extends FastpathError implements RemoteExceptionDetails {
  readonly remoteClass: string;
  readonly remoteMessage: string;
  readonly peerId: string;
  constructor(details: RemoteExceptionDetails) {
    super(
      'ERR_RATIS_STATE_MACHINE',
      `state machine of ${details.peerId} refused the request: ${describe(details)}`,
    );
    this.remoteClass = details.remoteClass;
    this.remoteMessage = details.remoteMessage;
    this.peerId = details.peerId;
  }
}

/** One peer's commit index, as the leader reported it with a reply. */
export interface CommitInfo {
  /** The peer's id ({@link RaftPeer.id}). */
  peerId: string;
  /** The peer's `host:port` as the leader knows it; `''` when the reply did not carry it. */
  address: string;
  /** The highest log index the leader knows to be committed on that peer. */
  commitIndex: number;
}

/**
 * A watch ended before its index reached the level asked for (Ratis's `NotReplicatedException`,
 * sent after the server's watch timeout). `commitInfos` says which peers lag; a watch at a lower
 * level (ALL_COMMITTED → MAJORITY_COMMITTED) can pass.
 */
export class RaftNotReplicatedError extends FastpathError {
  /** The log index the watch waited for. */
  readonly logIndex: number;
  /**
   * The level it did not reach, by Ratis's name (`ALL_COMMITTED`, …; a number the client does not
   * know, as digits).
   */
  readonly replication: string;
  /** Each peer's commit index as the leader reported it with the refusal: those below `logIndex` lag. */
  readonly commitInfos: readonly CommitInfo[];
  /** The id of the peer that answered. */
  readonly peerId: string;
  constructor(peerId: string, replication: string, logIndex: number, commitInfos: readonly CommitInfo[]) {
    super(
      'ERR_RATIS_NOT_REPLICATED',
      `log index ${logIndex} not replicated at ${replication} (answered by ${peerId})`,
      {
        retriable: true,
      },
    );
    this.logIndex = logIndex;
    this.replication = replication;
    this.commitInfos = commitInfos;
    this.peerId = peerId;
  }
}

/**
 * A server exception the client does not turn into a re-send: a failed stream whose exception a
 * retry cannot change (a group the server does not have, a request it cannot read), an already
 * closed server, a read or data-stream exception. `retriable` follows the exception class.
 */
export class RaftServerError extends FastpathError implements RemoteExceptionDetails {
  readonly remoteClass: string;
  readonly remoteMessage: string;
  readonly peerId: string;
  constructor(details: RemoteExceptionDetails, retriable: boolean, cause?: unknown) {
    super('ERR_RATIS_SERVER', `${details.peerId} answered ${describe(details)}`, { retriable, cause });
    this.remoteClass = details.remoteClass;
    this.remoteMessage = details.remoteMessage;
    this.peerId = details.peerId;
  }
}

/**
 * A server answered something that is not Ratis's protocol: bytes that do not decode, a failure
 * without a known exception, a reply to a call id the client never sent. The stream it came on is
 * closed and the requests pending on it fail with this error, never with another request's reply.
 */
export class RaftProtocolError extends FastpathError {
  /** The id of the peer whose stream carried what could not be read. */
  readonly peerId: string;
  constructor(peerId: string, message: string, cause?: unknown) {
    super('ERR_RATIS_PROTOCOL', `${peerId}: ${message}`, { cause });
    this.peerId = peerId;
  }
}

/**
 * A stream of Ratis's DataStream protocol failed for a reason other than an exception its primary
 * answered: the connection to the primary could not be opened or was lost, a packet's reply did
 * not come within `dataStreamRequestTimeoutMs`, the primary answered bytes that are not the
 * protocol, or the stream was aborted or its client closed. Every write outstanding on the stream
 * fails with it, and so does every later call on the stream. The stream itself cannot be resumed:
 * `retriable` says whether writing the data again on a new stream can help (a lost connection or a
 * timeout can; a primary that does not speak the protocol cannot). The client never re-sends on
 * its own, as Ratis's Java client leaves that to its caller.
 */
export class RaftDataStreamError extends FastpathError {
  /** The primary the stream was opened with. */
  readonly peerId: string;
  /** The stream's id (the call id of its header request). */
  readonly streamId: number;
  constructor(peerId: string, streamId: number, message: string, retriable: boolean, cause?: unknown) {
    super('ERR_RATIS_DATASTREAM', `data stream ${streamId} to ${peerId}: ${message}`, { cause, retriable });
    this.peerId = peerId;
    this.streamId = streamId;
  }
}

/** A call on a client after `close()`, or a request still pending when it closed. */
export class RaftClientClosedError extends FastpathError {
  constructor() {
    super('ERR_RATIS_CLIENT_CLOSED', 'the Raft client is closed');
  }
}

function describe(details: RemoteExceptionDetails): string {
  return details.remoteMessage ? `${details.remoteClass}: ${details.remoteMessage}` : details.remoteClass;
}
