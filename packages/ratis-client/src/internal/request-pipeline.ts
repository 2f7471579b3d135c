import type { RaftPeer } from '../raft-client-options.js';
import { RaftClientClosedError, RaftProtocolError, RaftTimeoutError } from '../raft-client-errors.js';
import {
  GRPC_STATUS,
  type GrpcStreamCall,
  type StreamChannel,
  type StreamError,
  type StreamStatus,
} from './grpc-stream-channel.js';
import { RAFT_CLIENT_PROTOCOL_SERVICE } from './proto/grpc-methods.js';
import { type ratis, raft, toNumber, uint64 } from './proto/wire.js';
import { replyOutcome } from './reply-outcome.js';
import { requestPiecesWithContent } from './message-content.js';
import { streamFailure } from './stream-failure.js';

/** One request from submit to its final answer, across every stream it is sent on. */
export interface PendingRequest {
  readonly callId: number;
  readonly kind: 'write' | 'read' | 'watch';
  /** The request without its `rpcRequest` header and its message: the type. */
  readonly body: Omit<ratis.common.IRaftClientRequestProto, 'rpcRequest' | 'message'>;
  /** The message's content in pieces (written as they are, see {@link requestPiecesWithContent}); none for a watch. */
  readonly content: readonly Uint8Array[] | undefined;
  readonly timeoutMs: number;
  /** `Date.now()` after which it fails with a timeout. */
  readonly deadline: number;
  /** `performance.now()` at submit, for the latency metric. */
  readonly startedAt: number;
  /** The stream it was last sent on. */
  session: StreamSession | undefined;
  sentAt: number;
  lastError: unknown;
  settled: boolean;
  resolve(answer: { reply: ratis.common.RaftClientReplyProto; peerId: string }): void;
  reject(error: Error): void;
}

/** What a pipeline needs of its client: where the leader is, channels, and the retry policy. */
export interface PipelineContext {
  leader(): RaftPeer;
  channel(peer: RaftPeer): StreamChannel;
  rpcHeader(peer: RaftPeer, callId: number): ratis.common.IRaftRpcRequestProto;
  /** A member answered NotLeader: move to `suggested` (or the next member). True when the next send should wait. */
  notLeader(from: RaftPeer, suggested: RaftPeer | undefined): boolean;
  /** A stream to `peer` failed (or went `silent`: no reply in the attempt timeout): true when the next send should wait. */
  streamFailed(peer: RaftPeer, silent: boolean): boolean;
  /** A member answered a request (it is reachable and serves the group). */
  answered(): void;
  /** A request left the pipeline (answered, failed, timed out, closed). */
  settled(request: PendingRequest, error: Error | undefined): void;
  /** Requests re-sent on a new stream, by reason. */
  resent(reason: string, count: number): void;
  readonly retryPauseMs: number;
}

/** One gRPC call of `ordered` or `unordered` and what was sent on it. */
class StreamSession {
  nextSeq = 1;
  firstAnswered = false;
  done = false;
  readonly sent = new Map<number, PendingRequest>();
  readonly ended: Promise<void>;
  constructor(
    readonly peer: RaftPeer,
    readonly call: GrpcStreamCall,
  ) {
    this.ended = new Promise((resolve) => call.on('status', () => resolve()));
  }
}

/**
 * The requests of one kind of stream and the stream they travel on. `ordered` (writes and reads)
 * follows Ratis's sliding window: on every new stream the first request goes alone with `isFirst`
 * and the rest follow once it is answered, numbered without a gap. `unordered` (watches) sends
 * each request at once and matches replies by call id. Whenever a stream is given up (NotLeader,
 * LeaderNotReady, a failure, a request left unanswered too long) every request still outstanding
 * is sent again on a new stream, in call-id order and with its own call id, so that the server's
 * retry cache answers the ones it already applied.
 */
export class RequestPipeline {
  readonly #pending = new Map<number, PendingRequest>();
  #session: StreamSession | undefined;
  #reopenTimer: NodeJS.Timeout | undefined;
  #ticker: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(
    private readonly ctx: PipelineContext,
    private readonly method: 'ordered' | 'unordered',
    private readonly attemptTimeoutMs: number,
    private readonly tickMs: number,
  ) {}

  get size(): number {
    return this.#pending.size;
  }

  submit(request: PendingRequest): void {
    this.#pending.set(request.callId, request);
    this.#ticker ??= setInterval(() => this.#tick(), this.tickMs);
    this.#pump();
  }

  /** Fails what is pending and ends the stream (a half-close first; cancelled if it lingers). */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#reopenTimer);
    for (const request of [...this.#pending.values()]) this.#fail(request, new RaftClientClosedError());
    this.#stopTicker();
    const session = this.#session;
    this.#session = undefined;
    if (session) {
      session.done = true;
      session.call.end();
      const lingering = setTimeout(() => session.call.cancel(), 1000);
      await session.ended;
      clearTimeout(lingering);
    }
  }

  #pump(): void {
    if (this.#closed || this.#reopenTimer !== undefined || this.#pending.size === 0) return;
    const session = (this.#session ??= this.#open());
    if (this.method === 'ordered' && !session.firstAnswered) {
      const first = this.#pending.values().next().value;
      if (session.sent.size === 0 && first) this.#send(session, first, true);
      return;
    }
    for (const request of this.#pending.values()) {
      if (request.session !== session) this.#send(session, request, false);
    }
  }

  #open(): StreamSession {
    const peer = this.ctx.leader();
    const call = this.ctx.channel(peer).openStream(RAFT_CLIENT_PROTOCOL_SERVICE[this.method].path);
    const session = new StreamSession(peer, call);
    call.on('data', (bytes: Buffer) => this.#onData(session, bytes));
    call.on('error', (error: StreamError) => this.#onFailed(session, error));
    call.on('status', (status: StreamStatus) => {
      if (status.code === GRPC_STATUS.OK) this.#onFailed(session, undefined);
    });
    return session;
  }

  #send(session: StreamSession, request: PendingRequest, isFirst: boolean): void {
    const rpcRequest = this.ctx.rpcHeader(session.peer, request.callId);
    if (this.method === 'ordered') {
      // Defaults stay off the wire, as Java's proto3 encoder leaves them.
      rpcRequest.slidingWindowEntry = isFirst
        ? { seqNum: uint64(session.nextSeq++), isFirst: true }
        : { seqNum: uint64(session.nextSeq++) };
    }
    const pieces = request.content
      ? requestPiecesWithContent(
          raft.RaftClientRequestProto.encode({ rpcRequest }).finish(),
          request.content,
          raft.RaftClientRequestProto.encode(request.body).finish(),
        )
      : [raft.RaftClientRequestProto.encode({ rpcRequest, ...request.body }).finish()];
    request.session = session;
    request.sentAt = Date.now();
    session.sent.set(request.callId, request);
    session.call.write(pieces);
  }

  #onData(session: StreamSession, bytes: Buffer): void {
    if (session !== this.#session) return; // an abandoned stream: its requests were sent again
    let reply: ratis.common.RaftClientReplyProto;
    try {
      reply = raft.RaftClientReplyProto.decode(bytes);
    } catch (error) {
      this.#protocolFailure(session, `a reply that does not decode (${(error as Error).message})`, error);
      return;
    }
    const callId = toNumber(reply.rpcReply?.callId);
    const request = session.sent.get(callId);
    if (!request) {
      this.#protocolFailure(session, `a reply to call id ${callId}, which was not sent on this stream`);
      return;
    }
    session.sent.delete(callId);
    session.firstAnswered = true;
    if (request.settled) {
      this.#pump(); // it timed out meanwhile; the answer comes too late
      return;
    }
    const outcome = replyOutcome(reply, bytes, session.peer.id);
    switch (outcome.kind) {
      case 'not-leader':
        request.lastError = outcome.error;
        this.#reset(session, 'not_leader', this.ctx.notLeader(session.peer, outcome.suggested));
        return;
      case 'retry-later':
        this.ctx.answered();
        request.lastError = outcome.error;
        this.#reset(session, 'leader_not_ready', true);
        return;
      case 'failed':
        this.ctx.answered();
        this.#fail(request, outcome.error);
        break;
      case 'ok':
        this.ctx.answered();
        request.settled = true;
        this.#pending.delete(callId);
        this.ctx.settled(request, undefined);
        request.resolve({ reply, peerId: session.peer.id });
        break;
    }
    if (this.#pending.size === 0) this.#stopTicker();
    this.#pump();
  }

  #onFailed(session: StreamSession, error: StreamError | undefined): void {
    if (session.done) return;
    session.done = true;
    if (session !== this.#session || this.#closed) return;
    const failure = streamFailure(error, session.peer.id);
    for (const request of session.sent.values()) {
      if (failure.retriable) request.lastError = failure.error;
      else this.#fail(request, failure.error);
    }
    this.#reset(session, 'stream_failed', this.ctx.streamFailed(session.peer, false));
  }

  /** An answer that is not Ratis's protocol: what was sent on that stream fails, the rest goes on. */
  #protocolFailure(session: StreamSession, message: string, cause?: unknown): void {
    const error = new RaftProtocolError(session.peer.id, message, cause);
    for (const request of session.sent.values()) this.#fail(request, error);
    this.#reset(session, 'protocol_error', true);
  }

  /** Gives up a stream: what is still outstanding goes out again on a new one (after a pause if asked). */
  #reset(session: StreamSession, reason: string, pause: boolean): void {
    if (session !== this.#session) return;
    this.#session = undefined;
    if (!session.done) {
      session.done = true;
      session.call.cancel();
    }
    let resent = 0;
    for (const request of this.#pending.values()) if (request.session === session) resent++;
    if (resent > 0) this.ctx.resent(reason, resent);
    if (this.#pending.size === 0) return;
    if (pause && this.ctx.retryPauseMs > 0) {
      this.#reopenTimer = setTimeout(() => {
        this.#reopenTimer = undefined;
        this.#pump();
      }, this.ctx.retryPauseMs);
    } else {
      this.#pump();
    }
  }

  #fail(request: PendingRequest, error: Error): void {
    if (request.settled) return;
    request.settled = true;
    this.#pending.delete(request.callId);
    this.ctx.settled(request, error);
    request.reject(error);
    if (this.#pending.size === 0) this.#stopTicker();
  }

  #tick(): void {
    const now = Date.now();
    // A silent attempt is noted before deadlines are checked: when the event loop runs late, both
    // fall due in the same tick, and the timeout should still name the attempt that went unanswered.
    const session = this.#session;
    const silent = session !== undefined && this.#silentAttempt(session, now);
    if (silent) {
      const error = new RaftTimeoutError(
        `one attempt on ${session.peer.id}`,
        this.attemptTimeoutMs,
        undefined,
      );
      for (const r of session.sent.values()) r.lastError = error;
    }
    for (const request of [...this.#pending.values()]) {
      if (now >= request.deadline) {
        this.#fail(request, new RaftTimeoutError(request.kind, request.timeoutMs, request.lastError));
      }
    }
    if (silent) this.#reset(session, 'timeout', this.ctx.streamFailed(session.peer, true));
  }

  /** True when a request sent on `session` has had no answer within one attempt's timeout. */
  #silentAttempt(session: StreamSession, now: number): boolean {
    for (const request of session.sent.values()) {
      if (!request.settled && now - request.sentAt >= this.attemptTimeoutMs) return true;
    }
    return false;
  }

  #stopTicker(): void {
    clearInterval(this.#ticker);
    this.#ticker = undefined;
  }
}
