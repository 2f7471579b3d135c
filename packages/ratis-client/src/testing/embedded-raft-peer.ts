import * as grpc from '@grpc/grpc-js';
import { type ratis, raft, toNumber, uint64 } from '../internal/proto/wire.js';
import { RAFT_CLIENT_PROTOCOL_SERVICE } from '../internal/proto/grpc-methods.js';
import { REPLICATION_NAMES } from '../internal/replication.js';
import { type DataStreamHost, EmbeddedDataStreamServer } from './embedded-data-stream-server.js';
import type { ReplyFault, WriteOutcome } from './embedded-raft-group.js';
import type { ReplicationLevel } from '../raft-client-options.js';

type Request = ratis.common.RaftClientRequestProto;
type Reply = ratis.common.IRaftClientReplyProto;
type Kind = 'write' | 'read' | 'watch';
type Call = grpc.ServerDuplexStream<Buffer, Buffer>;

const EXCEPTIONS = 'org.apache.ratis.protocol.exceptions.';

/** What a member needs of its group: the shared log, state machine, watches and fault hooks. */
export interface PeerHost {
  readonly groupIdBytes: Buffer;
  readonly received: Buffer[];
  readonly exchanges: Array<{
    peerId: string;
    direction: 'in' | 'out';
    method: 'ordered' | 'unordered';
    callId: number;
  }>;
  leader(): EmbeddedRaftPeer | undefined;
  members(): readonly EmbeddedRaftPeer[];
  /** Appends a write; with `stream`, a forwarded data stream (its header's ids), linked when applied. */
  write(
    clientId: Buffer,
    callId: number,
    content: Buffer,
    stream?: { clientId: Uint8Array; streamId: number },
  ): Promise<WriteOutcome>;
  query(content: Buffer): Promise<Buffer>;
  watch(index: number, level: ReplicationLevel): Promise<boolean>;
  takeReplyFault(kind: Kind): ReplyFault | undefined;
  /** What the members' DataStream servers share, when the group runs them. */
  readonly dataStream: DataStreamHost | undefined;
}

/** What one stream of a member keeps: the sliding window of `ordered`, and the order of replies. */
interface StreamState {
  ordered: boolean;
  nextSeq: number | undefined;
  /** Requests that arrived ahead of a missing sequence number: they wait (Ratis stalls on a gap). */
  ahead: Map<number, Request>;
  input: Promise<void>;
  replies: Promise<void>;
}

/** One member of an {@link EmbeddedRaftGroup}: a grpc-js server of `RaftClientProtocolService`. */
export class EmbeddedRaftPeer {
  address = '';
  running = false;
  paused = false;
  matchIndex = 0;
  commitIndex = 0;
  #port = 0;
  #server: grpc.Server | undefined;
  readonly #calls = new Set<Call>();
  #resumed: { promise: Promise<void>; resolve: () => void } | undefined;
  readonly #onLeadershipLost = new Set<() => void>();
  /** The member's DataStream server, when the group runs them. */
  readonly dataStream: EmbeddedDataStreamServer | undefined;

  constructor(
    readonly id: string,
    private readonly group: PeerHost,
    private readonly tls?: { cert: Buffer | string; key: Buffer | string; ca?: Buffer | string },
  ) {
    this.dataStream = group.dataStream ? new EmbeddedDataStreamServer(id, group.dataStream, tls) : undefined;
  }

  get live(): boolean {
    return this.running && !this.paused;
  }

  async start(): Promise<void> {
    if (this.running) return;
    const server = new grpc.Server({ 'grpc.max_receive_message_length': 64 * 1024 * 1024 });
    server.addService(RAFT_CLIENT_PROTOCOL_SERVICE, {
      ordered: (call: Call) => this.#serve(call, true),
      unordered: (call: Call) => this.#serve(call, false),
    });
    this.#port = await new Promise<number>((resolve, reject) =>
      server.bindAsync(`127.0.0.1:${this.#port}`, this.#credentials(), (error, port) =>
        error ? reject(error) : resolve(port),
      ),
    );
    this.address = `127.0.0.1:${this.#port}`;
    this.#server = server;
    await this.dataStream?.start();
    this.running = true;
  }

  #credentials(): grpc.ServerCredentials {
    const tls = this.tls;
    if (tls === undefined) return grpc.ServerCredentials.createInsecure();
    return grpc.ServerCredentials.createSsl(
      null,
      [{ cert_chain: Buffer.from(tls.cert), private_key: Buffer.from(tls.key) }],
      false,
    );
  }

  async stop(): Promise<void> {
    this.running = false;
    this.resume();
    const server = this.#server;
    this.#server = undefined;
    this.#calls.clear();
    if (server) {
      server.forceShutdown();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await this.dataStream?.stop();
  }

  resume(): void {
    this.paused = false;
    this.#resumed?.resolve();
    this.#resumed = undefined;
  }

  /** Fails every open stream as a Ratis server does: INTERNAL with an `exception-type` trailer. */
  failStreams(exceptionType: string): number {
    const calls = [...this.#calls];
    this.#calls.clear();
    for (const call of calls) {
      const metadata = new grpc.Metadata();
      metadata.set('exception-type', exceptionType);
      call.emit('error', {
        code: grpc.status.INTERNAL,
        details: `${exceptionType}: stream failed by a fault hook`,
        metadata,
      });
    }
    return calls.length;
  }

  /** This member is no longer the leader: what it still has pending is answered NotLeader. */
  leadershipLost(): void {
    for (const notify of [...this.#onLeadershipLost]) notify();
  }

  #serve(call: Call, ordered: boolean): void {
    this.#calls.add(call);
    const state: StreamState = {
      ordered,
      nextSeq: undefined,
      ahead: new Map(),
      input: Promise.resolve(),
      replies: Promise.resolve(),
    };
    call.on('data', (bytes: Buffer) => {
      this.group.received.push(Buffer.from(bytes));
      state.input = state.input
        .then(() => this.#whileNotPaused())
        .then(() => this.#onRequest(call, state, bytes));
    });
    // The client half-closed: answer what is pending, then end the stream.
    call.on('end', () => {
      void state.input
        .then(() => state.replies)
        .then(() => {
          if (!call.writableEnded) call.end();
        });
    });
    call.on('error', () => this.#calls.delete(call));
    call.on('close', () => this.#calls.delete(call));
  }

  #onRequest(call: Call, state: StreamState, bytes: Buffer): void {
    if (!this.#calls.has(call)) return;
    let request: Request;
    try {
      request = raft.RaftClientRequestProto.decode(bytes);
    } catch (error) {
      this.#failStream(call, 'com.google.protobuf.InvalidProtocolBufferException', (error as Error).message);
      return;
    }
    const rpc = request.rpcRequest;
    this.group.exchanges.push({
      peerId: this.id,
      direction: 'in',
      method: state.ordered ? 'ordered' : 'unordered',
      callId: toNumber(rpc?.callId),
    });
    if (!rpc?.requestorId || rpc.requestorId.length !== 16) {
      this.#failStream(call, 'java.lang.IllegalArgumentException', 'the client id must be 16 bytes');
      return;
    }
    if (!Buffer.from(rpc.raftGroupId?.id ?? []).equals(this.group.groupIdBytes)) {
      this.#failStream(call, `${EXCEPTIONS}GroupMismatchException`, `${this.id}: group not found`);
      return;
    }
    // A stream header belongs on the DataStream port, not here.
    if (request.Type === undefined || request.Type === 'dataStream') {
      this.#failStream(
        call,
        'java.lang.UnsupportedOperationException',
        'a request type this server does not serve',
      );
      return;
    }
    if (!state.ordered) {
      void this.#answer(call, request).then((reply) => this.#send(call, state, request, reply));
      return;
    }
    const seq = toNumber(rpc.slidingWindowEntry?.seqNum);
    if (rpc.slidingWindowEntry?.isFirst) state.nextSeq = seq;
    if (state.nextSeq === undefined || seq > state.nextSeq) {
      state.ahead.set(seq, request);
      return;
    }
    if (seq < state.nextSeq) {
      this.#queueReply(call, state, request); // a re-send of an earlier number: the retry cache answers
      return;
    }
    let next: Request | undefined = request;
    while (next) {
      this.#queueReply(call, state, next);
      state.nextSeq++;
      next = state.ahead.get(state.nextSeq);
      state.ahead.delete(state.nextSeq);
    }
  }

  /** Ordered replies leave in sequence order, whatever order their work finishes in. */
  #queueReply(call: Call, state: StreamState, request: Request): void {
    const answer = this.#answer(call, request);
    state.replies = state.replies.then(async () => this.#send(call, state, request, await answer));
  }

  async #answer(call: Call, request: Request): Promise<Reply> {
    const rpc = request.rpcRequest as ratis.common.RaftRpcRequestProto;
    const group = this.group;
    if (group.leader() !== this) return this.#notLeader(rpc);
    let lost!: () => void;
    const leadershipLost = new Promise<'lost'>((resolve) => {
      lost = () => resolve('lost');
      this.#onLeadershipLost.add(lost);
    });
    try {
      switch (request.Type) {
        case 'write': {
          const content = Buffer.from(request.message?.content ?? []);
          const outcome = await Promise.race([
            group.write(Buffer.from(rpc.requestorId), toNumber(rpc.callId), content),
            leadershipLost,
          ]);
          if (outcome === 'lost') return this.#notLeader(rpc);
          if (!outcome.ok) return this.#stateMachineException(rpc, outcome.exceptionClass, outcome.message);
          return {
            ...this.#success(rpc),
            message: { content: outcome.content },
            logIndex: uint64(outcome.index),
          };
        }
        case 'forward': {
          // The content is the stream's header request: its ids name the stream on every member.
          let header: Request;
          try {
            header = raft.RaftClientRequestProto.decode(request.message?.content ?? new Uint8Array(0));
          } catch (error) {
            return this.#stateMachineException(
              rpc,
              'InvalidProtocolBufferException',
              (error as Error).message,
            );
          }
          if (header.Type !== 'dataStream' || !header.rpcRequest) {
            return this.#stateMachineException(
              rpc,
              'IllegalArgumentException',
              'a forward of no stream header',
            );
          }
          const outcome = await Promise.race([
            group.write(
              Buffer.from(rpc.requestorId),
              toNumber(rpc.callId),
              Buffer.from(header.message?.content ?? []),
              {
                clientId: header.rpcRequest.requestorId ?? new Uint8Array(0),
                streamId: toNumber(header.rpcRequest.callId),
              },
            ),
            leadershipLost,
          ]);
          if (outcome === 'lost') return this.#notLeader(rpc);
          if (!outcome.ok) return this.#stateMachineException(rpc, outcome.exceptionClass, outcome.message);
          return {
            ...this.#success(rpc),
            message: { content: outcome.content },
            logIndex: uint64(outcome.index),
          };
        }
        case 'read': {
          try {
            const content = await Promise.race([
              group.query(Buffer.from(request.message?.content ?? [])),
              leadershipLost,
            ]);
            if (content === 'lost') return this.#notLeader(rpc);
            return { ...this.#success(rpc), message: { content } };
          } catch (error) {
            const e = error as Error;
            return this.#stateMachineException(rpc, e.constructor?.name ?? 'Error', e.message);
          }
        }
        default: {
          const watch = request.watch as ratis.common.IWatchRequestTypeProto;
          const index = toNumber(watch.index);
          const level = REPLICATION_NAMES[watch.replication ?? 0] ?? 'MAJORITY';
          const reached = await Promise.race([group.watch(index, level), leadershipLost]);
          if (reached === 'lost') return this.#notLeader(rpc);
          if (reached) return { ...this.#success(rpc), logIndex: uint64(index) };
          return {
            ...this.#failure(rpc),
            notReplicatedException: {
              callId: rpc.callId,
              replication: watch.replication ?? 0,
              logIndex: uint64(index),
            },
          };
        }
      }
    } finally {
      this.#onLeadershipLost.delete(lost);
    }
  }

  async #send(call: Call, state: StreamState, request: Request, reply: Reply): Promise<void> {
    await this.#whileNotPaused();
    // A forward is a write: the write faults apply to it.
    const fault = this.group.takeReplyFault(request.Type === 'forward' ? 'write' : (request.Type as Kind));
    let bytes: Buffer = Buffer.from(raft.RaftClientReplyProto.encode(reply).finish());
    if (fault) {
      if (!fault.replace) return;
      bytes = fault.replace(bytes);
    }
    if (this.#calls.has(call) && !call.writableEnded && !call.cancelled) {
      this.group.exchanges.push({
        peerId: this.id,
        direction: 'out',
        method: state.ordered ? 'ordered' : 'unordered',
        callId: toNumber(request.rpcRequest?.callId),
      });
      call.write(bytes);
    }
  }

  #whileNotPaused(): Promise<void> {
    if (!this.paused) return Promise.resolve();
    this.#resumed ??= (() => {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      return { promise, resolve };
    })();
    return this.#resumed.promise;
  }

  #failStream(call: Call, exceptionType: string, message: string): void {
    this.#calls.delete(call);
    const metadata = new grpc.Metadata();
    metadata.set('exception-type', exceptionType);
    call.emit('error', { code: grpc.status.INTERNAL, details: `${exceptionType}: ${message}`, metadata });
  }

  #rpcReply(rpc: ratis.common.IRaftRpcRequestProto, success: boolean): ratis.common.IRaftRpcReplyProto {
    const reply: ratis.common.IRaftRpcReplyProto = {
      requestorId: rpc.requestorId ?? null,
      replyId: Buffer.from(this.id),
      raftGroupId: { id: this.group.groupIdBytes },
      callId: rpc.callId ?? null,
    };
    if (success) reply.success = true;
    return reply;
  }

  /** Each member's commit index as this member reports it. */
  commitInfos(): ratis.common.ICommitInfoProto[] {
    return this.group.members().map((peer) => ({
      server: { id: Buffer.from(peer.id), address: peer.address },
      commitIndex: uint64(peer.commitIndex),
    }));
  }

  #success(rpc: ratis.common.IRaftRpcRequestProto): Reply {
    return { rpcReply: this.#rpcReply(rpc, true), commitInfos: this.commitInfos() };
  }

  #failure(rpc: ratis.common.IRaftRpcRequestProto): Reply {
    return { rpcReply: this.#rpcReply(rpc, false), commitInfos: this.commitInfos() };
  }

  #notLeader(rpc: ratis.common.IRaftRpcRequestProto): Reply {
    const leader = this.group.leader();
    const peersInConf = this.group.members().map((p) => ({ id: Buffer.from(p.id), address: p.address }));
    return {
      rpcReply: this.#rpcReply(rpc, false),
      notLeaderException: leader
        ? { suggestedLeader: { id: Buffer.from(leader.id), address: leader.address }, peersInConf }
        : { peersInConf },
    };
  }

  #stateMachineException(
    rpc: ratis.common.IRaftRpcRequestProto,
    exceptionClass: string,
    message: string,
  ): Reply {
    return {
      ...this.#failure(rpc),
      stateMachineException: {
        exceptionClassName: `${EXCEPTIONS}StateMachineException`,
        errorMsg: `${exceptionClass}: ${message}`,
      },
    };
  }
}
