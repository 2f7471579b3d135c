import { MetricsRegistry } from '@fastpath/core';
import { ClientMetrics } from './internal/client-metrics.js';
import { DataStreamConnection } from './internal/data-stream-connection.js';
import { DataStreamOutput } from './internal/data-stream-output.js';
import { GrpcStreamChannel, type StreamChannel } from './internal/grpc-stream-channel.js';
import { SocketStreamChannel } from './internal/socket-stream-channel.js';
import { requestPiecesWithContent } from './internal/message-content.js';
import { PacketWindow } from './internal/packet-window.js';
import { raft, type ratis, toNumber, uint64 } from './internal/proto/wire.js';
import { REPLICATION_NUMBERS } from './internal/replication.js';
import { commitInfosOf } from './internal/reply-outcome.js';
import { type PendingRequest, type PipelineContext, RequestPipeline } from './internal/request-pipeline.js';
import {
  type CommitInfo,
  RaftClientClosedError,
  RaftDataStreamError,
  RaftInvalidArgumentError,
  RaftNotReplicatedError,
  RaftTimeoutError,
} from './raft-client-errors.js';
import {
  type RaftClientOptions,
  type RaftGrpcTransport,
  type RaftPeer,
  type ReplicationLevel,
  type ResolvedRaftClientOptions,
  resolveRaftClientOptions,
} from './raft-client-options.js';
import type { RaftDataStream, RaftStreamOptions } from './raft-data-stream.js';
import { peerIdToBytes, randomClientId, uuidToBytes } from './raft-ids.js';

/** The answer to a write or a read-only query. */
export interface RaftReply {
  /** The call id the request carried (kept across re-sends). */
  callId: number;
  /** The log index a write was applied at (0 for a read). */
  logIndex: number;
  /** What the state machine answered. */
  content: Buffer;
  /** The member that answered (the leader at that moment). */
  peerId: string;
  /** Each member's commit index, as the leader knew it. */
  commitInfos: readonly CommitInfo[];
}

/** The answer to a watch. */
export interface RaftWatchReply {
  /** The log index watched. */
  logIndex: number;
  /** The level the index reached: the level asked for, or MAJORITY_COMMITTED after a fallback. */
  replication: ReplicationLevel;
  /** Each member's commit index, as the leader knew it. */
  commitInfos: readonly CommitInfo[];
  /** Members whose commit index is below `logIndex` in `commitInfos` (after a fallback: the lagging ones). */
  laggingPeerIds: readonly string[];
  /** The member that answered. */
  peerId: string;
}

/** Options of one write. */
export interface RaftWriteOptions {
  /** When the leader answers: `MAJORITY` (committed on a majority, applied on the leader) or `ALL`. Default: `MAJORITY`. */
  replication?: 'MAJORITY' | 'ALL';
}

/** Options of one read-only query. */
export interface RaftReadOptions {
  /** Let the server answer without a linearizable read index. Default: `false`. */
  preferNonLinearizable?: boolean;
  /** Let the read wait for this client's earlier writes. Default: `false`. */
  readAfterWriteConsistent?: boolean;
}

/** Options of one watch. */
export interface RaftWatchOptions {
  /** The level to wait for. Default: `ALL_COMMITTED` (Ozone's `hdds.ratis.client.request.watch.type`). */
  replication?: ReplicationLevel;
  /**
   * When a watch at `ALL_COMMITTED` fails (not replicated in the server's watch timeout, or no
   * answer in `watchTimeoutMs`), watch again at `MAJORITY_COMMITTED` and report the members that
   * lag, as Ozone's client does. Default: `false`.
   */
  fallbackToMajorityCommitted?: boolean;
}

/**
 * A client of one Raft group over Apache Ratis's gRPC client protocol (Ratis 3.x,
 * `RaftClientProtocolService`). Writes and read-only queries travel on one ordered stream to the
 * leader, pipelined up to `maxOutstandingRequests`; watches on an unordered stream, outside that limit. Leader changes,
 * `LeaderNotReady` and failed streams are handled inside: outstanding requests are sent again in
 * order with their call ids, so the group's retry cache applies each write once.
 *
 * @example
 * ```ts
 * const client = createRaftClient({ groupId, peers: [{ id: 'p1', address: '127.0.0.1:9858' }] });
 * const { logIndex } = await client.send(Buffer.from('hello'));
 * await client.watch(logIndex, { replication: 'ALL_COMMITTED', fallbackToMajorityCommitted: true });
 * await client.close();
 * ```
 */
export class RaftClient implements AsyncDisposable {
  /** This client's id (a UUID), fixed for its life: with the call id it keys the server's retry cache. */
  readonly clientId: string;
  /** The group's id (a UUID). */
  readonly groupId: string;
  /** Where this client's metrics are (the one given in the options, or its own). */
  readonly metrics: MetricsRegistry;

  readonly #options: ResolvedRaftClientOptions;
  readonly #clientIdBytes: Buffer;
  readonly #groupIdBytes: Buffer;
  readonly #peers: RaftPeer[];
  readonly #channels = new Map<string, StreamChannel>();
  readonly #peerIdBytes = new Map<string, Buffer>();
  readonly #ordered: RequestPipeline;
  readonly #unordered: RequestPipeline;
  readonly #metrics: ClientMetrics;
  readonly #admissionQueue: Array<{ admit: () => void; reject: (e: Error) => void }> = [];
  /** DataStream connections, one per primary address, opened by the first stream to it. */
  readonly #dataStreamConnections = new Map<string, DataStreamConnection>();
  readonly #packetWindow: PacketWindow;
  #leader: RaftPeer;
  #nextCallId = 1;
  #outstanding = 0;
  #failuresWithoutAnswer = 0;
  #redirectsWithoutAnswer = 0;
  #closing: Promise<void> | undefined;

  constructor(options: RaftClientOptions) {
    this.#options = resolveRaftClientOptions(options, randomClientId);
    this.clientId = this.#options.clientId;
    this.groupId = this.#options.groupId.toLowerCase();
    this.#clientIdBytes = uuidToBytes(this.clientId);
    this.#groupIdBytes = uuidToBytes(this.groupId);
    this.#peers = [...this.#options.peers];
    this.#leader = this.#peers.find((p) => p.id === this.#options.leaderId) as RaftPeer;
    this.metrics = this.#options.metrics ?? new MetricsRegistry();
    this.#metrics = new ClientMetrics(this.metrics, this.#options.name, () => this.#outstanding);
    this.#packetWindow = new PacketWindow(this.#options.dataStreamOutstandingRequests);
    const ctx = this.#pipelineContext();
    const o = this.#options;
    const tick = (attempt: number, total: number): number =>
      Math.max(5, Math.min(1000, Math.floor(Math.min(attempt, total) / 8)));
    this.#ordered = new RequestPipeline(
      ctx,
      'ordered',
      o.rpcRequestTimeoutMs,
      tick(o.rpcRequestTimeoutMs, Math.min(o.writeTimeoutMs, o.readTimeoutMs)),
    );
    this.#unordered = new RequestPipeline(
      ctx,
      'unordered',
      o.rpcWatchRequestTimeoutMs,
      tick(o.rpcWatchRequestTimeoutMs, o.watchTimeoutMs),
    );
  }

  /** The member the client sends to now (its idea of the leader). */
  get leaderId(): string {
    return this.#leader.id;
  }

  /** Whose HTTP/2 session carries the client's gRPC streams ({@link RaftClientOptions.transport}). */
  get transport(): RaftGrpcTransport {
    return this.#options.transport;
  }

  /** The group's members as the client knows them (a suggested leader it was not told of is added). */
  get peers(): readonly RaftPeer[] {
    return this.#peers.map((p) => ({ ...p }));
  }

  /**
   * Writes `content` to the group's state machine (a Ratis write on the ordered stream). Resolves
   * once the entry is committed on a majority and applied on the leader, with the state
   * machine's answer and the entry's log index. The content's pieces go to HTTP/2 as they are,
   * not copied, and again on a re-send: keep them unchanged until this settles.
   */
  async send(
    content: Uint8Array | readonly Uint8Array[],
    options: RaftWriteOptions = {},
  ): Promise<RaftReply> {
    const replication = options.replication ?? 'MAJORITY';
    if (replication !== 'MAJORITY' && replication !== 'ALL') {
      throw new RaftInvalidArgumentError(
        `a write's replication must be MAJORITY or ALL, got ${String(replication)}`,
      );
    }
    const write: ratis.common.IWriteRequestTypeProto = replication === 'ALL' ? { replication: 1 } : {};
    return replyOf(
      await this.#request(
        'ordered',
        'write',
        { write },
        this.#options.writeTimeoutMs,
        contentPieces(content),
      ),
    );
  }

  /** Asks the leader's state machine a read-only query (not written to the log). */
  async sendReadOnly(
    content: Uint8Array | readonly Uint8Array[],
    options: RaftReadOptions = {},
  ): Promise<RaftReply> {
    const read: ratis.common.IReadRequestTypeProto = {};
    if (options.preferNonLinearizable) read.preferNonLinearizable = true;
    if (options.readAfterWriteConsistent) read.readAfterWriteConsistent = true;
    return replyOf(
      await this.#request('ordered', 'read', { read }, this.#options.readTimeoutMs, contentPieces(content)),
    );
  }

  /**
   * Waits until log index `index` is replicated at `replication` (on the unordered stream). Fails
   * with `ERR_RATIS_NOT_REPLICATED` when the server's watch timeout passes first, unless
   * `fallbackToMajorityCommitted` lets it settle for MAJORITY_COMMITTED.
   */
  async watch(index: number, options: RaftWatchOptions = {}): Promise<RaftWatchReply> {
    const replication = options.replication ?? 'ALL_COMMITTED';
    if (!Number.isSafeInteger(index) || index < 0) {
      throw new RaftInvalidArgumentError(
        `a watch needs a log index (a non-negative integer), got ${String(index)}`,
      );
    }
    if (!(replication in REPLICATION_NUMBERS)) {
      throw new RaftInvalidArgumentError(`unknown replication level ${String(replication)}`);
    }
    try {
      return await this.#watchOnce(index, replication);
    } catch (error) {
      const canFallBack =
        options.fallbackToMajorityCommitted === true &&
        replication === 'ALL_COMMITTED' &&
        (error instanceof RaftNotReplicatedError || error instanceof RaftTimeoutError);
      if (!canFallBack) throw error;
      const reply = await this.#watchOnce(index, 'MAJORITY_COMMITTED');
      const infos =
        error instanceof RaftNotReplicatedError && error.commitInfos.length > 0
          ? error.commitInfos
          : reply.commitInfos;
      return { ...reply, laggingPeerIds: infos.filter((c) => c.commitIndex < index).map((c) => c.peerId) };
    }
  }

  /**
   * Opens a stream of Ratis's DataStream protocol with a primary member (its `dataStreamAddress`,
   * over TLS when the client has `tls`), whose header request carries `content` (its pieces joined
   * once). Nothing waits here: the header packet is on its way when this returns, and data
   * packets may follow at once. In `chain` routing the header carries the route primary → next →
   * …, in `star` routing none (the primary forwards to every other member). One connection per
   * primary serves every stream of this client to it.
   *
   * Throws {@link RaftInvalidArgumentError} for a primary without `dataStreamAddress`, an unknown
   * member, or a `peerOrder` that is not every member once with the primary first;
   * {@link RaftClientClosedError} after `close()`.
   *
   * @example
   * ```ts
   * const stream = client.stream(header, { routing: 'star' });
   * await stream.write([chunkHead, chunkBody]);
   * const { logIndex } = await stream.close(trailer, { sync: true });
   * ```
   */
  stream(content: Buffer | readonly Buffer[], options: RaftStreamOptions = {}): RaftDataStream {
    if (this.#closing) throw new RaftClientClosedError();
    const pieces = contentPieces(content);
    const routing = options.routing ?? 'chain';
    if (routing !== 'chain' && routing !== 'star')
      throw new RaftInvalidArgumentError(`a stream's routing must be chain or star, got ${String(routing)}`);
    const primaryId = options.primaryId ?? options.peerOrder?.[0] ?? (this.#peers[0] as RaftPeer).id;
    const primary = this.#peers.find((p) => p.id === primaryId);
    if (!primary) throw new RaftInvalidArgumentError(`the primary ${primaryId} is not one of the peers`);
    if (primary.dataStreamAddress === undefined)
      throw new RaftInvalidArgumentError(`the primary ${primaryId} has no dataStreamAddress`);
    const rpcRequest: ratis.common.IRaftRpcRequestProto = {
      requestorId: this.#clientIdBytes,
      replyId: this.#replyId(primaryId),
      raftGroupId: { id: this.#groupIdBytes },
      callId: uint64(this.#nextCallId),
    };
    if (routing === 'chain') {
      const order = this.#chainOrder(primaryId, options.peerOrder);
      // Only members with a successor have a route (Ratis's RoutingTable); one member needs none.
      if (order.length > 1) {
        rpcRequest.routingTable = {
          routes: order.slice(0, -1).map((id, i) => ({
            peerId: { id: this.#replyId(id) },
            successors: [{ id: this.#replyId(order[i + 1] as string) }],
          })),
        };
      }
    }
    const streamId = this.#nextCallId++;
    const headerRequest = Buffer.concat(
      requestPiecesWithContent(
        raft.RaftClientRequestProto.encode({ rpcRequest }).finish(),
        pieces,
        raft.RaftClientRequestProto.encode({ dataStream: {} }).finish(),
      ),
    );
    return new DataStreamOutput(
      {
        clientId: this.#clientIdBytes,
        primaryId,
        connection: this.#dataStreamConnection(primary.id, primary.dataStreamAddress),
        window: this.#packetWindow,
        metrics: this.#metrics,
        requestTimeoutMs: this.#options.dataStreamRequestTimeoutMs,
        forward: async (header) =>
          replyOf(
            await this.#request('ordered', 'write', { forward: {} }, this.#options.writeTimeoutMs, [header]),
          ),
      },
      streamId,
      headerRequest,
    );
  }

  /**
   * Fails what is still pending with `ERR_RATIS_CLIENT_CLOSED` (open DataStream streams with
   * `ERR_RATIS_DATASTREAM`), half-closes both gRPC streams (cancelling one the server does not end
   * within a second) and closes the channels and DataStream connections. Leaves nothing that keeps
   * the process alive. Idempotent.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      const closed = new RaftClientClosedError();
      this.#packetWindow.close(closed);
      for (const connection of [...this.#dataStreamConnections.values()]) {
        connection.close(
          (streamId) =>
            new RaftDataStreamError(connection.peerId, streamId, 'the client closed', false, closed),
        );
      }
      this.#dataStreamConnections.clear();
      for (const waiter of this.#admissionQueue.splice(0)) waiter.reject(new RaftClientClosedError());
      await Promise.all([this.#ordered.close(), this.#unordered.close()]);
      for (const channel of this.#channels.values()) channel.close();
      this.#channels.clear();
    })();
    return this.#closing;
  }

  /** {@link RaftClient.close}, for `await using client = createRaftClient(…)`. Idempotent. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #watchOnce(index: number, replication: ReplicationLevel): Promise<RaftWatchReply> {
    const watch: ratis.common.IWatchRequestTypeProto = {};
    if (index > 0) watch.index = uint64(index);
    if (replication !== 'MAJORITY') watch.replication = REPLICATION_NUMBERS[replication];
    const { reply, peerId } = await this.#request(
      'unordered',
      'watch',
      { watch },
      this.#options.watchTimeoutMs,
    );
    const commitInfos = commitInfosOf(reply);
    return {
      logIndex: index,
      replication,
      commitInfos,
      laggingPeerIds: commitInfos.filter((c) => c.commitIndex < index).map((c) => c.peerId),
      peerId,
    };
  }

  async #request(
    method: 'ordered' | 'unordered',
    kind: PendingRequest['kind'],
    body: PendingRequest['body'],
    timeoutMs: number,
    content?: readonly Uint8Array[],
  ): Promise<{ reply: ratis.common.RaftClientReplyProto; peerId: string }> {
    if (this.#closing) throw new RaftClientClosedError();
    const startedAt = performance.now();
    const deadline = Date.now() + timeoutMs;
    if (holdsSlot(kind)) await this.#admit();
    return new Promise((resolve, reject) => {
      const request: PendingRequest = {
        callId: this.#nextCallId++,
        kind,
        body,
        content,
        timeoutMs,
        deadline,
        startedAt,
        session: undefined,
        sentAt: 0,
        lastError: undefined,
        settled: false,
        resolve,
        reject,
      };
      (method === 'ordered' ? this.#ordered : this.#unordered).submit(request);
    });
  }

  /** Waits for a free slot among `maxOutstandingRequests`, in arrival order (writes and reads only: {@link holdsSlot}). */
  #admit(): Promise<void> {
    if (this.#outstanding < this.#options.maxOutstandingRequests && this.#admissionQueue.length === 0) {
      this.#outstanding++;
      return Promise.resolve();
    }
    return new Promise((admit, reject) => this.#admissionQueue.push({ admit, reject }));
  }

  #release(): void {
    const next = this.#admissionQueue.shift();
    if (next) next.admit();
    else this.#outstanding--;
  }

  /** The chain of a stream: `peerOrder` checked, or the members with the primary moved first. */
  #chainOrder(primaryId: string, peerOrder: readonly string[] | undefined): string[] {
    const ids = this.#peers.map((p) => p.id);
    if (peerOrder === undefined) return [primaryId, ...ids.filter((id) => id !== primaryId)];
    const order = [...peerOrder];
    const known = new Set(ids);
    if (
      order[0] !== primaryId ||
      order.length !== ids.length ||
      new Set(order).size !== order.length ||
      !order.every((id) => known.has(id))
    ) {
      throw new RaftInvalidArgumentError(
        `peerOrder must list every member once with the primary ${primaryId} first, got ${JSON.stringify(order)}`,
      );
    }
    return order;
  }

  #dataStreamConnection(peerId: string, address: string): DataStreamConnection {
    let connection = this.#dataStreamConnections.get(address);
    if (!connection || connection.dead) {
      connection = new DataStreamConnection(
        peerId,
        address,
        this.#clientIdBytes,
        {
          tls: this.#options.tls,
          connectTimeoutMs: this.#options.rpcRequestTimeoutMs,
          maxReplyDataBytes: this.#options.maxMessageBytes,
        },
        (dead) => {
          if (this.#dataStreamConnections.get(address) === dead) this.#dataStreamConnections.delete(address);
        },
      );
      this.#dataStreamConnections.set(address, connection);
    }
    return connection;
  }

  #channel(peer: RaftPeer): StreamChannel {
    let channel = this.#channels.get(peer.address);
    if (!channel) {
      const options = {
        maxReceiveMessageBytes: this.#options.maxMessageBytes,
        maxSendMessageBytes: this.#options.maxMessageBytes,
        ...(this.#options.tls === undefined ? {} : { tls: this.#options.tls }),
      };
      channel =
        this.#options.transport === 'socket'
          ? new SocketStreamChannel(peer.address, options)
          : new GrpcStreamChannel(peer.address, options);
      this.#channels.set(peer.address, channel);
    }
    return channel;
  }

  #replyId(peerId: string): Buffer {
    let bytes = this.#peerIdBytes.get(peerId);
    if (!bytes) {
      bytes = peerIdToBytes(peerId);
      this.#peerIdBytes.set(peerId, bytes);
    }
    return bytes;
  }

  #moveTo(peer: RaftPeer): void {
    if (peer.id !== this.#leader.id) this.#metrics.leaderChanged();
    this.#leader = peer;
  }

  #nextMember(after: RaftPeer): RaftPeer {
    const i = this.#peers.findIndex((p) => p.id === after.id);
    return this.#peers[(i + 1) % this.#peers.length] as RaftPeer;
  }

  #pipelineContext(): PipelineContext {
    return {
      leader: () => this.#leader,
      channel: (peer) => this.#channel(peer),
      rpcHeader: (peer, callId) => ({
        requestorId: this.#clientIdBytes,
        replyId: this.#replyId(peer.id),
        raftGroupId: { id: this.#groupIdBytes },
        callId: uint64(callId),
        toLeader: true,
      }),
      notLeader: (from, suggested) => {
        // Both streams may hear NotLeader from the same member: only the first moves the client.
        if (from.id === this.#leader.id) {
          let target =
            suggested && suggested.id !== from.id
              ? this.#peers.find((p) => p.id === suggested.id)
              : undefined;
          if (suggested && !target && suggested.id !== from.id && suggested.address) {
            target = { ...suggested };
            this.#peers.push(target);
          }
          this.#moveTo(target ?? this.#nextMember(from));
        }
        // A whole round of redirects without an answer: the group is electing; wait a little.
        return ++this.#redirectsWithoutAnswer % this.#peers.length === 0;
      },
      streamFailed: (peer, silent) => {
        // A failed stream is tried once more on the same member at once (a stream can fail while
        // the member is fine), then on the next member after a pause (it may be down). A member
        // that stayed silent for a whole attempt (stopped, or no longer leading) is left at once.
        this.#failuresWithoutAnswer++;
        if (!silent && this.#failuresWithoutAnswer < 2) return false;
        if (peer.id === this.#leader.id) this.#moveTo(this.#nextMember(peer));
        return this.#failuresWithoutAnswer >= 2;
      },
      answered: () => {
        this.#failuresWithoutAnswer = 0;
        this.#redirectsWithoutAnswer = 0;
      },
      settled: (request, error) => {
        this.#metrics.settled(request.kind, request.startedAt, error);
        if (holdsSlot(request.kind)) this.#release();
      },
      resent: (reason, count) => this.#metrics.resent(reason, count),
      retryPauseMs: this.#options.retryPauseMs,
    };
  }
}

/** Creates a {@link RaftClient}; nothing connects until the first request. */
export function createRaftClient(options: RaftClientOptions): RaftClient {
  return new RaftClient(options);
}

/** The message content as pieces (written to the stream as they are, never joined). */
function contentPieces(content: Uint8Array | readonly Uint8Array[]): readonly Uint8Array[] {
  const pieces = content instanceof Uint8Array ? [content] : content;
  if (!Array.isArray(pieces) || !pieces.every((p) => p instanceof Uint8Array))
    throw new RaftInvalidArgumentError('content must be a Uint8Array or Buffer, or an array of them');
  return pieces;
}

function replyOf({ reply, peerId }: { reply: ratis.common.RaftClientReplyProto; peerId: string }): RaftReply {
  const content = reply.message?.content;
  return {
    callId: toNumber(reply.rpcReply?.callId),
    logIndex: toNumber(reply.logIndex),
    content: content ? Buffer.from(content.buffer, content.byteOffset, content.byteLength) : Buffer.alloc(0),
    peerId,
    commitInfos: commitInfosOf(reply),
  };
}

/**
 * Whether a request takes one of the `maxOutstandingRequests` slots: writes and reads do, as Ratis's
 * ordered requests take its `OrderedAsync` semaphore; a watch does not (Ratis sends it unordered,
 * outside that limit). A watch waits as long as the slowest member takes to commit, so counting
 * it would let a writer's pending watches hold back its own next WriteChunks.
 */
function holdsSlot(kind: PendingRequest['kind']): boolean {
  return kind !== 'watch';
}
