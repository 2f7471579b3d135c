import type { RaftPeer } from '../raft-client-options.js';
import {
  type CommitInfo,
  RaftNotReplicatedError,
  RaftProtocolError,
  RaftServerError,
  RaftStateMachineError,
} from '../raft-client-errors.js';
import { type ratis, toNumber } from './proto/wire.js';
import { REPLICATION_NAMES } from './replication.js';

type Reply = ratis.common.RaftClientReplyProto;
type Peer = ratis.common.IRaftPeerProto;

/** What the client does with one decoded reply. */
export type ReplyOutcome =
  | { kind: 'ok' }
  /** Send to another member: the suggested leader if there is one. */
  | { kind: 'not-leader'; suggested: RaftPeer | undefined; error: Error }
  /** Re-send to the same member after a pause (LeaderNotReady, a leader stepping down or handing over). */
  | { kind: 'retry-later'; reason: string; error: Error }
  /** The request has failed for good with `error`. */
  | { kind: 'failed'; error: Error };

const EXCEPTIONS = 'org.apache.ratis.protocol.exceptions.';
// The reply fields this client knows (Raft.proto); a failure that carries only others is reported
// by number rather than read as success or matched to a known exception.
const KNOWN_FIELDS = new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 15]);

/** Reads what a reply says: success, a redirect, a pause, or a failure as a typed error. */
export function replyOutcome(reply: Reply, raw: Uint8Array, peerId: string): ReplyOutcome {
  const details = reply.ExceptionDetails;
  switch (details) {
    case 'notLeaderException': {
      const e = reply.notLeaderException as ratis.common.INotLeaderExceptionProto;
      const suggested = e.suggestedLeader ? peerOf(e.suggestedLeader) : undefined;
      return {
        kind: 'not-leader',
        suggested: suggested && suggested.id !== '' ? suggested : undefined,
        error: new RaftServerError(
          {
            remoteClass: `${EXCEPTIONS}NotLeaderException`,
            remoteMessage: `suggested leader: ${suggested?.id ?? 'none'}`,
            peerId,
          },
          true,
        ),
      };
    }
    case 'leaderNotReadyException':
      return retryLater('LeaderNotReadyException', '', peerId);
    case 'leaderSteppingDownException':
      return retryLater(
        'LeaderSteppingDownException',
        reply.leaderSteppingDownException?.errorMessage ?? '',
        peerId,
      );
    case 'transferLeadershipException':
      return retryLater(
        'TransferLeadershipException',
        reply.transferLeadershipException?.errorMessage ?? '',
        peerId,
      );
    case 'stateMachineException': {
      const e = reply.stateMachineException as ratis.common.IStateMachineExceptionProto;
      return {
        kind: 'failed',
        error: new RaftStateMachineError({
          remoteClass: e.exceptionClassName || `${EXCEPTIONS}StateMachineException`,
          remoteMessage: e.errorMsg ?? '',
          peerId,
        }),
      };
    }
    case 'notReplicatedException': {
      const e = reply.notReplicatedException as ratis.common.INotReplicatedExceptionProto;
      return {
        kind: 'failed',
        error: new RaftNotReplicatedError(
          peerId,
          REPLICATION_NAMES[e.replication ?? 0] ?? String(e.replication),
          toNumber(e.logIndex),
          commitInfosOf(reply),
        ),
      };
    }
    case 'alreadyClosedException': {
      const e = reply.alreadyClosedException as ratis.common.IAlreadyClosedExceptionProto;
      const remoteClass = e.exceptionClassName || `${EXCEPTIONS}AlreadyClosedException`;
      return {
        kind: 'failed',
        error: new RaftServerError({ remoteClass, remoteMessage: e.errorMsg ?? '', peerId }, false),
      };
    }
    case 'dataStreamException':
    case 'readException':
    case 'readIndexException': {
      const e = reply[details] as ratis.common.IThrowableProto;
      // A read that could not be served linearizably now (no read index yet) can be served later.
      const retriable = details !== 'dataStreamException';
      return {
        kind: 'failed',
        error: new RaftServerError(
          { remoteClass: e.className || details, remoteMessage: e.errorMessage ?? '', peerId },
          retriable,
        ),
      };
    }
    case undefined:
      break;
  }
  if (reply.rpcReply?.success) return { kind: 'ok' };
  const unknown = unknownFields(raw);
  return {
    kind: 'failed',
    error: new RaftProtocolError(
      peerId,
      unknown.length > 0
        ? `a failed reply with exception field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} this client does not know`
        : 'a failed reply without an exception',
    ),
  };
}

/** The peers' commit indexes a reply (or a DataStream reply header) carries. */
export function commitInfosOf(reply: { commitInfos?: ratis.common.ICommitInfoProto[] | null }): CommitInfo[] {
  return (reply.commitInfos ?? []).map((c) => {
    const peer = peerOf(c.server ?? {});
    return { peerId: peer.id, address: peer.address, commitIndex: toNumber(c.commitIndex) };
  });
}

function peerOf(p: Peer): RaftPeer {
  return { id: Buffer.from(p.id ?? []).toString('utf8'), address: p.address ?? '' };
}

function retryLater(name: string, message: string, peerId: string): ReplyOutcome {
  return {
    kind: 'retry-later',
    reason: name,
    error: new RaftServerError({ remoteClass: `${EXCEPTIONS}${name}`, remoteMessage: message, peerId }, true),
  };
}

/** Top-level field numbers of a message that this client's Raft.proto does not define. */
function unknownFields(raw: Uint8Array): number[] {
  const found = new Set<number>();
  let i = 0;
  const varint = (): number => {
    let value = 0;
    let scale = 1;
    for (;;) {
      if (i >= raw.length) throw new RangeError('truncated');
      const b = raw[i++] as number;
      value += (b & 0x7f) * scale;
      if (b < 0x80) return value;
      scale *= 128;
    }
  };
  try {
    while (i < raw.length) {
      const tag = varint();
      const field = Math.floor(tag / 8);
      const wireType = tag % 8;
      if (wireType === 0) varint();
      else if (wireType === 1) i += 8;
      else if (wireType === 2) {
        const length = varint(); // read before `i` is: `i += varint()` would add to the old `i`
        i += length;
      } else if (wireType === 5) i += 4;
      else break;
      if (!KNOWN_FIELDS.has(field)) found.add(field);
    }
  } catch {
    // The codec decoded it; what is left unread says nothing more.
  }
  return [...found];
}
