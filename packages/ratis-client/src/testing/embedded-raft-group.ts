import { randomUUID } from 'node:crypto';
import { FastpathError } from '@fastpath/core';
import type { ReplicationLevel } from '../raft-client-options.js';
import { uuidToBytes } from '../raft-ids.js';
import { AppendLogStateMachine } from './append-log-state-machine.js';
import { type EmbeddedDataStreamPacket, streamKey } from './embedded-data-stream-server.js';
import { EmbeddedRaftPeer, type PeerHost } from './embedded-raft-peer.js';
import type { RaftStateMachine } from './raft-state-machine.js';

/** A misuse of the embedded group (an unknown peer, pausing the last live member, a call after close). */
export class RaftTestServerError extends FastpathError {
  constructor(message: string) {
    super('ERR_RATIS_TEST_SERVER', message);
  }
}

/** Options of {@link startEmbeddedRaftGroup}. */
export interface EmbeddedRaftGroupOptions {
  /** Members of the group. Default: 3. */
  peers?: number;
  /** The group id, a UUID. Default: a random one. */
  groupId?: string;
  /** Peer ids, one per member. Default: `p0`, `p1`, … */
  peerIds?: readonly string[];
  /** What writes and reads do. Default: a new {@link AppendLogStateMachine}. */
  stateMachine?: RaftStateMachine;
  /**
   * How long a watch waits before the leader answers NotReplicated, in ms. Default: 30 000
   * (Ozone's `hdds.ratis.raft.server.watch.timeout`).
   */
  watchTimeoutMs?: number;
  /** Time from losing the leader (stopped or paused) to a new one, in ms. Default: 0. */
  electionDelayMs?: number;
  /**
   * Serve TLS with this certificate (PEM, with its key), as a Ratis server with a `GrpcTlsConfig`
   * that asks clients for none; the DataStream servers too. Default: plaintext.
   */
  tls?: {
    /** The members' certificate (PEM; the same for each). */
    cert: Buffer | string;
    /** Its private key (PEM). */
    key: Buffer | string;
    /**
     * The CA certificate (PEM) a member checks the next member's certificate against when it
     * forwards a data stream. Default: `cert` itself (right for a self-signed certificate).
     */
    ca?: Buffer | string;
  };
  /**
   * Run a DataStream server beside each member's gRPC server (Ratis's DataStream protocol, on
   * 127.0.0.1, its own port), for streams of {@link RaftStateMachine.stream}; each member's
   * `dataStreamAddress` is in {@link EmbeddedRaftGroup.peers}. Default: `false`.
   */
  dataStream?: boolean;
}

/** One member as a client addresses it. */
export interface EmbeddedPeerInfo {
  /** The peer id (`RaftPeerProto.id`), as given in `peerIds` or `p0`, `p1`, …. */
  id: string;
  /** `127.0.0.1:<port>` of the member's gRPC server; a restarted member serves on the same port. */
  address: string;
  /** `127.0.0.1:<port>` of the member's DataStream server, when the group runs them (same port after a restart). */
  dataStreamAddress?: string;
}

/** The outcome of a write the group applied, shared by every re-send of it (the retry cache). */
export type WriteOutcome =
  | { ok: true; index: number; content: Buffer }
  | { ok: false; index: number; exceptionClass: string; message: string };

interface LogEntry {
  index: number;
  /** `stream`: a forwarded data stream (its header's content, linked rather than applied). */
  kind: 'noop' | 'write' | 'stream';
  content: Buffer;
  /** A stream's key on every member (`clientId:streamId`). */
  streamKey?: string;
  settle?: (outcome: WriteOutcome) => void;
}

interface Watcher {
  index: number;
  level: ReplicationLevel;
  resolve: () => void;
}

/** A fault hook's rule for one reply. */
export interface ReplyFault {
  /** Which replies: a predicate on the request kind. */
  matches: (kind: 'write' | 'read' | 'watch') => boolean;
  /** Replace the reply bytes (a bad answer), or `undefined` to drop the reply. */
  replace: ((reply: Buffer) => Buffer) | undefined;
}

/**
 * A Raft group of embedded peers in this process, each a gRPC server on 127.0.0.1 speaking Ratis's
 * `RaftClientProtocolService`: the leader appends writes to one log, commits an entry once a
 * majority of live members has it and applies it to the state machine once; followers answer
 * NotLeader with the leader suggested. The retry cache answers a re-sent (clientId, callId) with
 * the first outcome. Watches wait for their level (ALL_COMMITTED waits for every member, paused
 * ones too) and answer NotReplicated after `watchTimeoutMs`. Fault hooks drop or replace replies,
 * fail streams, move leadership, hold commits, and stop, restart or pause members.
 *
 * Replication is simulated: there is one log; a member's match and commit indexes follow the
 * leader's at once unless it is stopped, paused, or commits are held.
 */
export class EmbeddedRaftGroup implements AsyncDisposable {
  /**
   * The group id, a lower-case UUID: the `groupId` a client must name (a request naming another
   * fails its stream with GroupMismatchException).
   */
  readonly groupId: string;
  /** What committed writes apply to and queries read: the option's, or an {@link AppendLogStateMachine}. */
  readonly stateMachine: RaftStateMachine;
  /** Every request the members received, as raw bytes, in arrival order (for golden-byte tests). */
  readonly received: Buffer[] = [];
  /**
   * Requests in and replies out, by call id, in the order they happened across all members (for
   * tests of the client's ordering and windows). Replies dropped by a fault hook are not here.
   */
  readonly exchanges: Array<{
    /** The member that received the request or sent the reply. */
    peerId: string;
    /** `in` for a request received, `out` for a reply sent. */
    direction: 'in' | 'out';
    /** The client stream it travelled on: `ordered` (writes, reads) or `unordered` (watches). */
    method: 'ordered' | 'unordered';
    /** The request's `callId` (`RaftRpcRequestProto.callId`); a reply carries its request's. */
    callId: number;
  }> = [];
  /**
   * Every packet the members' DataStream servers received, in arrival order, forwarded ones
   * included (with `dataStream: true`).
   */
  readonly dataStreamPackets: EmbeddedDataStreamPacket[] = [];
  /** Counters since the group started; never reset. */
  readonly stats = {
    /** Writes the state machine applied without throwing. */
    applied: 0,
    /** Re-sent writes (same client id and call id) answered from the retry cache, not applied again. */
    retryCacheHits: 0,
  };

  readonly #groupIdBytes: Buffer;
  readonly #watchTimeoutMs: number;
  readonly #electionDelayMs: number;
  readonly #peers: EmbeddedRaftPeer[];
  readonly #log: LogEntry[] = [];
  readonly #retryCache = new Map<string, Promise<WriteOutcome>>();
  readonly #watchers = new Set<Watcher>();
  readonly #replyFaults: ReplyFault[] = [];
  readonly #packetFaults: Array<{ peerId: string; message: string }> = [];
  readonly #dataStreamReplyFaults: Array<{ peerId: string; replace: (frame: Buffer) => Buffer }> = [];
  #leader: EmbeddedRaftPeer | undefined;
  #commitIndex = 0;
  #appliedIndex = 0;
  #applying = Promise.resolve();
  #commitsHeld = false;
  #electionTimer: NodeJS.Timeout | undefined;
  #leaderWaiters: Array<() => void> = [];
  #closed = false;

  private constructor(options: EmbeddedRaftGroupOptions) {
    this.groupId = (options.groupId ?? randomUUID()).toLowerCase();
    this.#groupIdBytes = uuidToBytes(this.groupId, 'groupId');
    this.stateMachine = options.stateMachine ?? new AppendLogStateMachine();
    this.#watchTimeoutMs = options.watchTimeoutMs ?? 30_000;
    this.#electionDelayMs = options.electionDelayMs ?? 0;
    const count = options.peerIds?.length ?? options.peers ?? 3;
    const ids = options.peerIds ?? Array.from({ length: count }, (_, i) => `p${i}`);
    const host: PeerHost = {
      groupIdBytes: this.#groupIdBytes,
      received: this.received,
      exchanges: this.exchanges,
      leader: () => this.#leader,
      members: () => this.#peers,
      write: (clientId, callId, content, stream) => this.#write(clientId, callId, content, stream),
      query: (content) => this.#query(content),
      watch: (index, level) => this.#watch(index, level),
      takeReplyFault: (kind) => this.#takeReplyFault(kind),
      dataStream: options.dataStream
        ? {
            groupIdBytes: this.#groupIdBytes,
            stateMachine: this.stateMachine,
            packets: this.dataStreamPackets,
            memberIds: () => this.#peers.map((p) => p.id),
            dataStreamAddress: (peerId) => this.#peers.find((p) => p.id === peerId)?.dataStream?.address,
            commitInfos: () => this.#peers[0]?.commitInfos() ?? [],
            takePacketFault: (peerId) => this.#take(this.#packetFaults, peerId)?.message,
            takeReplyFault: (peerId) => this.#take(this.#dataStreamReplyFaults, peerId)?.replace,
          }
        : undefined,
    };
    this.#peers = ids.map((id) => new EmbeddedRaftPeer(id, host, options.tls));
  }

  /** Starts the members on free loopback ports; the first is the leader. */
  static async start(options: EmbeddedRaftGroupOptions = {}): Promise<EmbeddedRaftGroup> {
    const group = new EmbeddedRaftGroup(options);
    try {
      for (const peer of group.#peers) await peer.start();
    } catch (error) {
      await group.close();
      throw error;
    }
    // Index 0 is the configuration entry; the first leader's own entry follows, as in Ratis.
    group.#log.push({ index: 0, kind: 'noop', content: Buffer.alloc(0) });
    group.#becomeLeader(group.#peers[0] as EmbeddedRaftPeer);
    return group;
  }

  /** The members and their addresses. */
  get peers(): EmbeddedPeerInfo[] {
    return this.#peers.map((p) =>
      p.dataStream
        ? { id: p.id, address: p.address, dataStreamAddress: p.dataStream.address }
        : { id: p.id, address: p.address },
    );
  }

  /** The leader's id, once there is one (waits through an election). */
  async leaderId(): Promise<string> {
    while (!this.#leader) {
      if (this.#closed) throw new RaftTestServerError('the group is closed');
      await new Promise<void>((resolve) => this.#leaderWaiters.push(resolve));
    }
    return this.#leader.id;
  }

  /** The highest log index committed on a majority. */
  get commitIndex(): number {
    return this.#commitIndex;
  }

  /** The last log index. */
  get lastIndex(): number {
    return this.#log.length - 1;
  }

  // ---- fault hooks ----

  /** Drops the next `count` replies (of `kind`, default any): the request is served, the client hears nothing. */
  dropReplies(count = 1, kind?: 'write' | 'read' | 'watch'): void {
    for (let i = 0; i < count; i++)
      this.#replyFaults.push({ matches: (k) => kind === undefined || k === kind, replace: undefined });
  }

  /** Replaces the bytes of the next reply (of `kind`, default any) with what `replace` returns: a bad answer. */
  replaceNextReply(replace: (reply: Buffer) => Buffer, kind?: 'write' | 'read' | 'watch'): void {
    this.#replyFaults.push({ matches: (k) => kind === undefined || k === kind, replace });
  }

  /**
   * Fails every open client stream of a member (default: the leader) with gRPC INTERNAL and an
   * `exception-type` trailer, as a Ratis server fails a stream; requests pending on them are lost.
   */
  failStreams(peerId?: string, exceptionType = 'java.io.IOException'): number {
    const peer = peerId === undefined ? this.#leader : this.#peer(peerId);
    return peer?.failStreams(exceptionType) ?? 0;
  }

  /**
   * Makes a member's DataStream server fail the next data packet it receives (with `dataStream`),
   * as if its sink had thrown `java.io.IOException: <message>`: that packet and the stream fail.
   */
  failNextDataPacket(peerId: string, message = 'a data packet failed by a fault hook'): void {
    this.#peer(peerId);
    this.#packetFaults.push({ peerId, message });
  }

  /**
   * Replaces the bytes of the next reply frame a member's DataStream server sends (to the client,
   * or to the member before it in a chain) with what `replace` returns: a bad answer.
   */
  replaceNextDataStreamReply(peerId: string, replace: (frame: Buffer) => Buffer): void {
    this.#peer(peerId);
    this.#dataStreamReplyFaults.push({ peerId, replace });
  }

  /** Holds commits: followers stop acknowledging entries until `release()` (writes wait, unanswered). */
  holdCommits(): {
    /** Lets followers acknowledge again: held entries commit, apply and are answered. Safe to call twice. */
    release(): void;
  } {
    this.#commitsHeld = true;
    return {
      release: () => {
        this.#commitsHeld = false;
        this.#advance();
      },
    };
  }

  /** Makes `peerId` the leader: the old leader answers its pending requests with NotLeader. */
  async transferLeadership(peerId: string): Promise<void> {
    const peer = this.#peer(peerId);
    if (!peer.running || peer.paused) throw new RaftTestServerError(`peer ${peerId} is not running`);
    if (this.#leader === peer) return;
    this.#stepDown();
    this.#becomeLeader(peer);
    await Promise.resolve();
  }

  /** Stops a member's server (connections are cut); a stopped leader is replaced after the election delay. */
  async stopPeer(peerId: string): Promise<void> {
    const peer = this.#peer(peerId);
    if (this.#leader === peer) this.#loseLeader();
    await peer.stop();
  }

  /** Starts a stopped member again on its port; it catches up with the log. */
  async restartPeer(peerId: string): Promise<void> {
    const peer = this.#peer(peerId);
    await peer.start();
    this.#advance();
    if (!this.#leader) this.#scheduleElection();
  }

  /** Pauses a member: it acknowledges nothing and answers nothing until resumed. */
  pausePeer(peerId: string): Promise<void> {
    const peer = this.#peer(peerId);
    peer.paused = true;
    if (this.#leader === peer) this.#loseLeader();
    return Promise.resolve();
  }

  /**
   * Resumes a paused member: it catches up with the log and sends the replies it held; when the
   * group has no leader, an election follows.
   */
  resumePeer(peerId: string): Promise<void> {
    const peer = this.#peer(peerId);
    peer.resume();
    this.#advance();
    if (!this.#leader) this.#scheduleElection();
    return Promise.resolve();
  }

  /** Stops every member and answers nothing more. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#electionTimer);
    for (const w of this.#leaderWaiters.splice(0)) w();
    for (const w of this.#watchers) w.resolve();
    this.#watchers.clear();
    await Promise.all(this.#peers.map((p) => p.stop()));
    // Streams closed and never linked are thrown away, as Ratis cleans them up.
    for (const p of this.#peers) await p.dataStream?.dispose();
  }

  /** {@link EmbeddedRaftGroup.close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  // ---- what the members' services call (through their PeerHost) ----

  /** The fault to apply to the next reply of `kind`, if one is set. */
  #takeReplyFault(kind: 'write' | 'read' | 'watch'): ReplyFault | undefined {
    const i = this.#replyFaults.findIndex((f) => f.matches(kind));
    return i < 0 ? undefined : this.#replyFaults.splice(i, 1)[0];
  }

  #take<T extends { peerId: string }>(faults: T[], peerId: string): T | undefined {
    const i = faults.findIndex((f) => f.peerId === peerId);
    return i < 0 ? undefined : faults.splice(i, 1)[0];
  }

  /**
   * Appends a write (or finds it in the retry cache) and resolves once it is applied. A forwarded
   * stream (`stream`: the header's client id and call id) is linked when applied.
   */
  #write(
    clientId: Buffer,
    callId: number,
    content: Buffer,
    stream?: { clientId: Uint8Array; streamId: number },
  ): Promise<WriteOutcome> {
    const key = `${clientId.toString('hex')}:${callId}`;
    const cached = this.#retryCache.get(key);
    if (cached) {
      this.stats.retryCacheHits++;
      return cached;
    }
    const outcome = new Promise<WriteOutcome>((settle) => {
      this.#log.push(
        stream
          ? {
              index: this.#log.length,
              kind: 'stream',
              content: Buffer.from(content),
              streamKey: streamKey(stream.clientId, stream.streamId),
              settle,
            }
          : { index: this.#log.length, kind: 'write', content: Buffer.from(content), settle },
      );
    });
    this.#retryCache.set(key, outcome);
    this.#advance();
    return outcome;
  }

  /** Answers a read-only query once everything committed when it arrived is applied. */
  async #query(content: Buffer): Promise<Buffer> {
    const needed = this.#commitIndex;
    await this.#until(() => this.#appliedIndex >= needed);
    return this.stateMachine.query(content);
  }

  /** Resolves true once `index` reaches `level`, false after the watch timeout. */
  #watch(index: number, level: ReplicationLevel): Promise<boolean> {
    if (this.#reached(index, level)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const watcher: Watcher = {
        index,
        level,
        resolve: () => {
          clearTimeout(timer);
          this.#watchers.delete(watcher);
          resolve(this.#reached(index, level));
        },
      };
      const timer = setTimeout(() => watcher.resolve(), this.#watchTimeoutMs);
      this.#watchers.add(watcher);
    });
  }

  // ---- replication ----

  #reached(index: number, level: ReplicationLevel): boolean {
    switch (level) {
      case 'MAJORITY':
      case 'MAJORITY_COMMITTED':
        return this.#commitIndex >= index && this.#appliedIndex >= index;
      case 'ALL':
        return this.#peers.every((p) => p.matchIndex >= index);
      case 'ALL_COMMITTED':
        return this.#peers.every((p) => p.commitIndex >= index);
    }
  }

  /** Moves match and commit indexes as far as live members allow, then applies and wakes watchers. */
  #advance(): void {
    if (this.#closed) return;
    const last = this.lastIndex;
    const leader = this.#leader;
    if (leader) leader.matchIndex = last;
    for (const p of this.#peers) {
      if (p !== leader && p.live && !this.#commitsHeld && leader) p.matchIndex = last;
    }
    const matches = this.#peers.map((p) => p.matchIndex).sort((a, b) => b - a);
    const majority = matches[Math.floor(this.#peers.length / 2)] ?? 0;
    if (leader && majority > this.#commitIndex) this.#commitIndex = majority;
    for (const p of this.#peers) {
      if (p.live) p.commitIndex = Math.min(p.matchIndex, this.#commitIndex);
    }
    this.#applyCommitted();
    this.#wakeWatchers();
  }

  #applyCommitted(): void {
    this.#applying = this.#applying.then(async () => {
      while (this.#appliedIndex < this.#commitIndex) {
        const entry = this.#log[this.#appliedIndex + 1] as LogEntry;
        if (entry.kind === 'write' || entry.kind === 'stream') {
          let outcome: WriteOutcome;
          try {
            outcome = {
              ok: true,
              index: entry.index,
              content:
                entry.kind === 'stream'
                  ? await this.#link(entry)
                  : await this.stateMachine.apply(entry.content, entry.index),
            };
            if (entry.kind === 'write') this.stats.applied++;
          } catch (error) {
            const e = error as Error;
            outcome = {
              ok: false,
              index: entry.index,
              exceptionClass: e.constructor?.name ?? 'Error',
              message: e.message,
            };
          }
          this.#appliedIndex = entry.index;
          entry.settle?.(outcome);
        } else {
          if (this.stateMachine instanceof AppendLogStateMachine) this.stateMachine.skip(entry.index);
          this.#appliedIndex = entry.index;
        }
        entry.content = Buffer.alloc(0);
        delete entry.settle;
      }
      this.#wakeWatchers();
    });
  }

  /** Links a stream on every running member, the leader first; the leader's answer is the reply. */
  async #link(entry: LogEntry): Promise<Buffer> {
    const leader = this.#leader;
    const members = leader ? [leader, ...this.#peers.filter((p) => p !== leader)] : this.#peers;
    let answer: Buffer | undefined;
    for (const peer of members) {
      if (!peer.running) continue;
      peer.dataStream?.linked(entry.streamKey as string);
      const machine = this.stateMachine;
      const content = machine.link
        ? await machine.link(entry.content, entry.index, { peerId: peer.id })
        : Buffer.alloc(0);
      answer ??= content;
    }
    return answer ?? Buffer.alloc(0);
  }

  #wakeWatchers(): void {
    for (const w of [...this.#watchers]) if (this.#reached(w.index, w.level)) w.resolve();
    for (const check of [...this.#conditions]) check();
  }

  readonly #conditions = new Set<() => void>();

  #until(condition: () => boolean): Promise<void> {
    if (condition()) return Promise.resolve();
    return new Promise((resolve) => {
      const check = (): void => {
        if (condition() || this.#closed) {
          this.#conditions.delete(check);
          resolve();
        }
      };
      this.#conditions.add(check);
    });
  }

  // ---- leadership ----

  #becomeLeader(peer: EmbeddedRaftPeer): void {
    this.#leader = peer;
    // A new leader's first entry (a new term) commits what earlier leaders left uncommitted.
    this.#log.push({ index: this.#log.length, kind: 'noop', content: Buffer.alloc(0) });
    for (const w of this.#leaderWaiters.splice(0)) w();
    this.#advance();
  }

  #stepDown(): void {
    const old = this.#leader;
    this.#leader = undefined;
    old?.leadershipLost();
  }

  #loseLeader(): void {
    this.#stepDown();
    this.#scheduleElection();
  }

  #scheduleElection(): void {
    if (this.#electionTimer !== undefined || this.#closed) return;
    this.#electionTimer = setTimeout(() => {
      this.#electionTimer = undefined;
      if (this.#leader || this.#closed) return;
      const live = this.#peers.filter((p) => p.live);
      const candidate = live.sort((a, b) => b.matchIndex - a.matchIndex)[0];
      // Without a majority of live members there is no leader until one comes back.
      if (candidate && live.length > this.#peers.length / 2) this.#becomeLeader(candidate);
    }, this.#electionDelayMs);
  }

  #peer(peerId: string): EmbeddedRaftPeer {
    const peer = this.#peers.find((p) => p.id === peerId);
    if (!peer)
      throw new RaftTestServerError(
        `no peer ${JSON.stringify(peerId)} in the group (peers: ${this.#peers.map((p) => p.id).join(', ')})`,
      );
    return peer;
  }
}

/**
 * Starts an embedded Raft group (see {@link EmbeddedRaftGroup}).
 *
 * @example
 * ```ts
 * await using group = await startEmbeddedRaftGroup({ peers: 3 });
 * const client = createRaftClient({ groupId: group.groupId, peers: group.peers });
 * await client.send(Buffer.from('hello'));
 * await client.close();
 * ```
 */
export function startEmbeddedRaftGroup(options: EmbeddedRaftGroupOptions = {}): Promise<EmbeddedRaftGroup> {
  return EmbeddedRaftGroup.start(options);
}
