// One TCP (or TLS) connection to a member's DataStream port, shared by every stream the client
// opens with that member as primary, as Ratis's NettyClientStreamRpc shares one channel. It writes
// packets in the order they are given, each as its head and then the caller's own buffers (no
// copy), and waits for 'drain' when the socket says its buffer is full. Replies are matched per
// stream by (type, streamOffset), as NettyClientReplies does; each packet has its own timeout
// from the moment it is written.
//
// What fails what: a packet not answered in time fails that packet (its stream fails with it);
// a connection lost, refused or answering bytes that are not the protocol fails every stream on
// it, and the connection is not used again (the client opens a new one for the next stream: a
// member forgets a stream whose connection closed, so the old streams cannot go on anyway).
import net from 'node:net';
import tls from 'node:tls';
import type { GrpcTlsOptions } from '../grpc-framing.js';
import { grpcTlsSessionOptions } from '../grpc-framing.js';
import { RaftDataStreamError } from '../raft-client-errors.js';
import {
  DataStreamFramingError,
  encodeRequestHead,
  type PacketHeader,
  type ReplyFrame,
  ReplyFrameReader,
} from './data-stream-framing.js';
import { isTlsFailure } from './grpc-stream-channel.js';

/** How a connection is made and bounded. */
export interface DataStreamConnectionOptions {
  /** TLS as the client's gRPC sessions use it, or none. */
  tls: GrpcTlsOptions | undefined;
  /** Time from dialling to a connection ready to write (TLS: handshake done), in ms. */
  connectTimeoutMs: number;
  /** The largest reply data accepted (a serialized RaftClientReplyProto). */
  maxReplyDataBytes: number;
}

/** One packet to send: its header, its data as pieces, and how long its reply may take. */
export interface OutgoingPacket {
  header: PacketHeader;
  data: readonly Uint8Array[];
  timeoutMs: number;
  /** Called when the packet is handed to the socket (not when it waits for 'drain'). */
  onWritten?: () => void;
}

interface PendingReply {
  resolve(frame: ReplyFrame): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout | undefined;
}

interface StreamEntry {
  readonly onFailure: (error: RaftDataStreamError) => void;
  /** Packets written or waiting to be, by `${type}:${streamOffset}`. */
  readonly pending: Map<string, PendingReply>;
}

interface QueuedWrite {
  streamId: number;
  pieces: Uint8Array[];
  written: () => void;
}

// Ids of streams that ended (closed, failed, aborted) whose late replies are dropped, not taken
// for a protocol error: a reply may be on its way when a packet times out.
const RETIRED_STREAMS_KEPT = 4096;

const key = (type: number, streamOffset: number): string => `${type}:${streamOffset}`;

export class DataStreamConnection {
  readonly #streams = new Map<number, StreamEntry>();
  readonly #retired = new Set<number>();
  readonly #queue: QueuedWrite[] = [];
  readonly #reader: ReplyFrameReader;
  readonly #socket: net.Socket;
  #blocked = false;
  #outstanding = 0;
  #dead = false;
  #everConnected = false;

  constructor(
    /** The member at the other end. */
    readonly peerId: string,
    readonly address: string,
    private readonly clientId: Uint8Array,
    options: DataStreamConnectionOptions,
    /** Called once when the connection can no longer be used. */
    private readonly onDead: (connection: DataStreamConnection) => void,
  ) {
    this.#reader = new ReplyFrameReader(options.maxReplyDataBytes, (frame) => this.#onReply(frame));
    const { host, port } = splitAddress(address);
    const socket = options.tls
      ? tls.connect({ host, port, ...tlsOptions(options.tls, host) })
      : net.connect({ host, port });
    this.#socket = socket;
    socket.setNoDelay(true); // a packet's last piece should not wait for the next packet
    socket.unref(); // held only while replies are awaited (see #hold)
    const ready = options.tls ? 'secureConnect' : 'connect';
    const timeoutMs = options.connectTimeoutMs;
    const connectTimer = setTimeout(
      () => this.#die(`no connection to ${address} within ${timeoutMs} ms`, true, undefined),
      timeoutMs,
    );
    connectTimer.unref();
    socket.once(ready, () => clearTimeout(connectTimer));
    socket.on('data', (chunk: Buffer) => {
      try {
        this.#reader.push(chunk);
      } catch (error) {
        const message = error instanceof DataStreamFramingError ? error.message : String(error);
        this.#die(`a reply that is not the DataStream protocol: ${message}`, false, error);
      }
    });
    socket.on('drain', () => this.#flush());
    let failure: Error | undefined;
    socket.on('error', (error: Error) => {
      failure ??= error;
    });
    socket.on('close', () => {
      clearTimeout(connectTimer);
      const refused = failure !== undefined && !this.#everConnected;
      this.#die(
        failure
          ? `${refused ? 'cannot connect to' : 'connection lost to'} ${address}: ${failure.message}`
          : `${address} closed the connection`,
        failure === undefined || !isTlsFailure(failure),
        failure,
      );
    });
    socket.once(ready, () => (this.#everConnected = true));
  }

  /** Whether the connection can take no more streams. */
  get dead(): boolean {
    return this.#dead;
  }

  /** Takes a stream: its replies are matched from now on; `onFailure` hears the connection's failure. */
  register(streamId: number, onFailure: (error: RaftDataStreamError) => void): void {
    this.#streams.set(streamId, { onFailure, pending: new Map() });
    if (this.#dead) onFailure(this.#error(streamId, 'the connection is closed', true, undefined));
  }

  /**
   * Lets a stream go: what it still awaits fails with `error` (nothing if none is given), its
   * packets not yet written are not written, and late replies to it are dropped.
   */
  unregister(streamId: number, error?: Error): void {
    const entry = this.#streams.get(streamId);
    if (!entry) return;
    this.#streams.delete(streamId);
    this.#retire(streamId);
    for (let i = this.#queue.length - 1; i >= 0; i--) {
      if (this.#queue[i]?.streamId === streamId) this.#queue.splice(i, 1);
    }
    for (const reply of entry.pending.values()) this.#settle(reply, error);
    entry.pending.clear();
  }

  /**
   * Writes one packet of a registered stream and resolves with its reply (a failure reply too:
   * what it means is the stream's business). Rejects with {@link RaftDataStreamError} when the
   * connection fails or the reply does not come within `timeoutMs`.
   */
  send(packet: OutgoingPacket): Promise<ReplyFrame> {
    const { header } = packet;
    const streamId = header.streamId;
    const entry = this.#streams.get(streamId);
    if (this.#dead || !entry) {
      return Promise.reject(this.#error(streamId, 'the connection is closed', true, undefined));
    }
    return new Promise<ReplyFrame>((resolve, reject) => {
      const k = key(header.type, header.streamOffset);
      const reply: PendingReply = { resolve, reject, timer: undefined };
      entry.pending.set(k, reply);
      this.#hold();
      const written = (): void => {
        packet.onWritten?.();
        if (entry.pending.get(k) !== reply) return;
        reply.timer = setTimeout(() => {
          if (entry.pending.get(k) !== reply) return;
          entry.pending.delete(k);
          this.#settle(
            reply,
            this.#error(
              streamId,
              `no reply to the packet at offset ${header.streamOffset} within ${packet.timeoutMs} ms`,
              true,
              undefined,
            ),
          );
        }, packet.timeoutMs);
      };
      this.#queue.push({ streamId, pieces: [encodeRequestHead(header), ...packet.data], written });
      this.#flush();
    });
  }

  /** Fails every stream with what `errorFor` makes of its id and closes the connection. */
  close(errorFor: (streamId: number) => Error): void {
    if (this.#dead) return;
    this.#dead = true;
    for (const [streamId, entry] of [...this.#streams]) {
      const error = errorFor(streamId);
      this.unregister(streamId, error);
      entry.onFailure(error as RaftDataStreamError);
    }
    this.#socket.destroy();
    this.onDead(this);
  }

  /** Writes queued packets until the socket asks to wait for 'drain'. */
  #flush(): void {
    this.#blocked = false;
    const socket = this.#socket;
    while (!this.#blocked && !this.#dead) {
      const next = this.#queue.shift();
      if (!next) return;
      // One packet in one go: its pieces leave together, not each in a segment of its own.
      socket.cork();
      let room = true;
      for (const piece of next.pieces) if (piece.length > 0) room = socket.write(piece);
      socket.uncork();
      next.written();
      this.#blocked = !room;
    }
  }

  #onReply(frame: ReplyFrame): void {
    const { header } = frame;
    const entry = this.#streams.get(header.streamId);
    if (!entry || !Buffer.from(header.clientId).equals(this.clientId)) {
      if (entry === undefined && this.#retired.has(header.streamId)) return;
      this.#die(
        `a reply for stream ${header.streamId}, which is not open on this connection`,
        false,
        undefined,
      );
      return;
    }
    const k = key(header.type, header.streamOffset);
    const reply = entry.pending.get(k);
    if (!reply) {
      const error = this.#error(
        header.streamId,
        `a reply to a packet not sent (type ${header.type}, offset ${header.streamOffset})`,
        false,
        undefined,
      );
      this.unregister(header.streamId, error);
      entry.onFailure(error);
      return;
    }
    entry.pending.delete(k);
    this.#settle(reply, undefined, frame);
  }

  #settle(reply: PendingReply, error: Error | undefined, frame?: ReplyFrame): void {
    clearTimeout(reply.timer);
    if (--this.#outstanding === 0) this.#socket.unref();
    if (frame) reply.resolve(frame);
    else if (error) reply.reject(error);
  }

  /** Keeps the process alive while a reply is awaited (an idle connection does not). */
  #hold(): void {
    if (this.#outstanding++ === 0) this.#socket.ref();
  }

  #die(message: string, retriable: boolean, cause: unknown): void {
    this.close((streamId) => this.#error(streamId, message, retriable, cause));
  }

  #error(streamId: number, message: string, retriable: boolean, cause: unknown): RaftDataStreamError {
    return new RaftDataStreamError(this.peerId, streamId, message, retriable, cause);
  }

  #retire(streamId: number): void {
    this.#retired.add(streamId);
    if (this.#retired.size > RETIRED_STREAMS_KEPT) {
      const oldest = this.#retired.values().next().value as number;
      this.#retired.delete(oldest);
    }
  }
}

/** `host` and `port` of `host:port` (an IPv6 host with or without brackets). */
function splitAddress(address: string): { host: string; port: number } {
  const at = address.lastIndexOf(':');
  return { host: address.slice(0, at).replace(/^\[(.*)\]$/, '$1'), port: Number(address.slice(at + 1)) };
}

/** The gRPC sessions' TLS settings for a plain TLS socket (no ALPN: the protocol is not HTTP/2). */
function tlsOptions(options: GrpcTlsOptions, host: string): tls.ConnectionOptions {
  const { ALPNProtocols: _alpn, ...rest } = grpcTlsSessionOptions(options, host);
  return rest;
}
