// One member's DataStream server, as Ratis's NettyServerStreamRpc and DataStreamManagement run it:
// a header packet opens the stream (the state machine's sink, and the same stream with each
// successor of the route, over their DataStream servers with the real protocol); each data
// packet is written to the sink and forwarded at once, and answered with success and
// `bytesWritten` only after the sink wrote it and every successor answered success with the same
// count. A failure is answered with a RaftClientReplyProto carrying Ratis's DataStreamException,
// and the stream is gone on this member after it.
import net from 'node:net';
import tls from 'node:tls';
import { DataStreamConnection } from '../internal/data-stream-connection.js';
import {
  encodeReplyFrame,
  PACKET_OPTION,
  PACKET_TYPE,
  type PacketHeader,
  type ReplyFrame,
  type RequestFrame,
  RequestFrameReader,
} from '../internal/data-stream-framing.js';
import { type ratis, raft, uint64 } from '../internal/proto/wire.js';
import { bytesToUuid } from '../raft-ids.js';
import type { RaftStateMachine, RaftStreamSink } from './raft-state-machine.js';

const EXCEPTIONS = 'org.apache.ratis.protocol.exceptions.';
const MAX_PACKET_BYTES = 64 * 1024 * 1024;

/** One packet a member's DataStream server received, as the group records it. */
export interface EmbeddedDataStreamPacket {
  /** The member that received it. */
  peerId: string;
  /** `STREAM_HEADER` (opens a stream) or `STREAM_DATA`. */
  type: 'STREAM_HEADER' | 'STREAM_DATA';
  /** The client's id (a UUID); a member forwarding a packet keeps the client's. */
  clientId: string;
  /** The stream's id: its header request's call id. */
  streamId: number;
  /** Data bytes sent on the stream before this packet. */
  streamOffset: number;
  /** Bytes of data in the packet (for a header: the header request's size). */
  dataLength: number;
  /** The packet's options, by Ratis's names. */
  options: ReadonlyArray<'SYNC' | 'CLOSE'>;
  /** A header's routing table (each member's successors), or `undefined` when it has none (star routing). */
  routes?: Readonly<Record<string, readonly string[]>>;
  /** A header's successors on this member: the members it forwards the stream to. */
  successors?: readonly string[];
}

/** What a member's DataStream server needs of its group. */
export interface DataStreamHost {
  readonly groupIdBytes: Buffer;
  readonly stateMachine: RaftStateMachine;
  readonly packets: EmbeddedDataStreamPacket[];
  memberIds(): readonly string[];
  dataStreamAddress(peerId: string): string | undefined;
  commitInfos(): ratis.common.ICommitInfoProto[];
  /** The message of a failure to inject into the member's next data packet, if one is set. */
  takePacketFault(peerId: string): string | undefined;
  /** A replacement for the member's next reply frame, if one is set. */
  takeReplyFault(peerId: string): ((frame: Buffer) => Buffer) | undefined;
}

/** A Java exception as the stream's failure: DataStreamException's cause. */
class StreamFailure extends Error {
  constructor(
    readonly javaClass: string,
    message: string,
  ) {
    super(message);
  }
}

/** A stream's successor: the same stream opened with the next member. */
interface Remote {
  peerId: string;
  connection: DataStreamConnection;
  header: Promise<ReplyFrame>;
}

interface ServerStream {
  readonly key: string;
  readonly socket: net.Socket;
  readonly clientId: Uint8Array;
  readonly streamId: number;
  readonly content: Buffer;
  readonly sink: Promise<RaftStreamSink>;
  readonly remotes: Remote[];
  /** The sink's writes, one after another. */
  local: Promise<unknown>;
  /** The replies, in the order of the packets. */
  replies: Promise<void>;
  failure: StreamFailure | undefined;
}

/** `clientId:streamId`, the key of a stream on every member. */
export function streamKey(clientId: Uint8Array, streamId: number): string {
  return `${Buffer.from(clientId).toString('hex')}:${streamId}`;
}

export class EmbeddedDataStreamServer {
  address = '';
  #port = 0;
  #server: net.Server | undefined;
  readonly #sockets = new Set<net.Socket>();
  /** Streams open on this member (a CLOSE packet or a failure takes them out). */
  readonly #streams = new Map<string, ServerStream>();
  /** Streams closed here and not yet linked: cleaned up when the group stops. */
  readonly #closed = new Map<string, ServerStream>();
  /** Connections to successors, one per (successor, client). */
  readonly #successors = new Map<string, DataStreamConnection>();

  constructor(
    readonly peerId: string,
    private readonly host: DataStreamHost,
    private readonly tlsOptions:
      { cert: Buffer | string; key: Buffer | string; ca?: Buffer | string } | undefined,
  ) {}

  async start(): Promise<void> {
    if (this.#server) return;
    const onConnection = (socket: net.Socket): void => this.#serve(socket);
    const server = this.tlsOptions
      ? tls.createServer({ cert: this.tlsOptions.cert, key: this.tlsOptions.key }, onConnection)
      : net.createServer(onConnection);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.#port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.#port = (server.address() as net.AddressInfo).port;
    this.address = `127.0.0.1:${this.#port}`;
    this.#server = server;
  }

  /** Closes the server and every connection; streams not closed are cleaned up, as on a lost connection. */
  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    for (const socket of this.#sockets) socket.destroy();
    this.#sockets.clear();
    this.#closeSuccessors();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The group stops: streams closed but never linked are cleaned up too. */
  async dispose(): Promise<void> {
    await this.stop();
    for (const stream of this.#closed.values()) await cleanUp(stream);
    this.#closed.clear();
  }

  /** The stream's log entry was applied on this member: it is kept, not cleaned up. */
  linked(key: string): void {
    this.#closed.delete(key);
  }

  #serve(socket: net.Socket): void {
    this.#sockets.add(socket);
    socket.setNoDelay(true);
    const reader = new RequestFrameReader(MAX_PACKET_BYTES, (request) => this.#onRequest(socket, request));
    socket.on('data', (chunk: Buffer) => {
      try {
        reader.push(chunk);
      } catch {
        socket.destroy(); // not the protocol: Netty's decoder would close the channel
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.#sockets.delete(socket);
      // Ratis cleans up a connection's open streams once it is gone.
      for (const stream of [...this.#streams.values()]) {
        if (stream.socket === socket) this.#drop(stream);
      }
    });
  }

  #onRequest(socket: net.Socket, { header, data }: RequestFrame): void {
    if (header.type === PACKET_TYPE.STREAM_HEADER) this.#onHeader(socket, header, data);
    else this.#onData(socket, header, data);
  }

  #onHeader(socket: net.Socket, header: PacketHeader, data: Buffer): void {
    const key = streamKey(header.clientId, header.streamId);
    const packet = this.#record(header);
    let request: ratis.common.RaftClientRequestProto;
    try {
      request = raft.RaftClientRequestProto.decode(data);
    } catch (error) {
      const failure = new StreamFailure('java.lang.IllegalStateException', (error as Error).message);
      this.#reply(socket, header, { failure });
      return;
    }
    const rpc = request.rpcRequest;
    const failure =
      request.Type !== 'dataStream'
        ? new StreamFailure(
            'java.lang.IllegalStateException',
            `not a stream header: ${request.Type ?? 'no type'}`,
          )
        : !Buffer.from(rpc?.raftGroupId?.id ?? []).equals(this.host.groupIdBytes)
          ? new StreamFailure(`${EXCEPTIONS}GroupMismatchException`, `${this.peerId}: group not found`)
          : this.#streams.has(key)
            ? new StreamFailure(
                `${EXCEPTIONS}AlreadyExistsException`,
                `a DataStream already exists for ${key}`,
              )
            : undefined;
    if (failure) {
      this.#reply(socket, header, { failure });
      return;
    }
    const routes = routesOf(request);
    const primary = Buffer.from(rpc?.replyId ?? []).toString('utf8') === this.peerId;
    const successors = routes
      ? (routes[this.peerId] ?? [])
      : primary
        ? this.host.memberIds().filter((id) => id !== this.peerId)
        : [];
    if (routes) packet.routes = routes;
    packet.successors = successors;
    const content = Buffer.from(request.message?.content ?? []);
    const sink = this.#openSink(content);
    sink.catch(() => undefined); // its failure is answered on the data packets
    const stream: ServerStream = {
      key,
      socket,
      clientId: Buffer.from(header.clientId),
      streamId: header.streamId,
      content,
      sink,
      remotes: successors.map((id) => this.#openRemote(id, header, data)),
      local: sink,
      replies: Promise.resolve(),
      failure: undefined,
    };
    this.#streams.set(key, stream);
    // Answered at once, as Ratis does: opening the sink and the successors' streams goes on, and
    // their failures show in the data packets' replies.
    stream.replies = stream.replies.then(() => this.#reply(socket, header, { bytesWritten: 0 }));
  }

  #onData(socket: net.Socket, header: PacketHeader, data: Buffer): void {
    const key = streamKey(header.clientId, header.streamId);
    this.#record(header);
    const stream = this.#streams.get(key);
    if (!stream) {
      const message = `Failed to get StreamInfo for stream ${header.streamId} at offset ${header.streamOffset}`;
      this.#reply(socket, header, { failure: new StreamFailure('java.lang.IllegalStateException', message) });
      return;
    }
    const close = header.options.includes(PACKET_OPTION.CLOSE);
    const sync = header.options.includes(PACKET_OPTION.SYNC);
    if (close) this.#streams.delete(key);
    const injected = this.host.takePacketFault(this.peerId);
    const local = stream.local.then(async () => {
      if (stream.failure) throw stream.failure;
      if (injected !== undefined) throw new StreamFailure('java.io.IOException', injected);
      const sink = await stream.sink;
      try {
        await sink.write(data, { sync });
        if (close) await sink.close();
      } catch (error) {
        throw new StreamFailure('java.io.IOException', describe(error));
      }
      return data.length;
    });
    stream.local = local.catch(() => undefined);
    const remotes = stream.remotes.map(async (remote) => {
      const [headerReply, reply] = await Promise.all([
        remote.header,
        remote.connection.send({ header, data: [data], timeoutMs: 10_000 }),
      ]);
      return { peerId: remote.peerId, reply: headerReply.success ? reply : headerReply };
    });
    for (const remote of remotes) remote.catch(() => undefined); // awaited in turn below
    stream.replies = stream.replies.then(async () => {
      let failure: StreamFailure | undefined;
      let bytesWritten = 0;
      try {
        bytesWritten = await local;
        for (const { peerId, reply } of await Promise.all(remotes)) {
          if (!reply.success)
            throw new StreamFailure('java.io.IOException', `${peerId}: ${remoteMessage(reply)}`);
          if (reply.bytesWritten !== bytesWritten)
            throw new StreamFailure(
              'java.io.IOException',
              `${peerId} wrote ${reply.bytesWritten} bytes, ${this.peerId} ${bytesWritten}`,
            );
        }
      } catch (error) {
        failure =
          error instanceof StreamFailure ? error : new StreamFailure('java.io.IOException', describe(error));
      }
      if (failure) {
        stream.failure ??= failure;
        this.#reply(socket, header, { failure });
        this.#drop(stream);
        return;
      }
      this.#reply(socket, header, { bytesWritten });
      if (close) {
        for (const remote of stream.remotes) remote.connection.unregister(stream.streamId);
        this.#closed.set(key, stream);
      }
    });
  }

  async #openSink(content: Buffer): Promise<RaftStreamSink> {
    const machine = this.host.stateMachine;
    if (!machine.stream)
      throw new StreamFailure(`${EXCEPTIONS}StateMachineException`, 'the state machine takes no streams');
    try {
      return await machine.stream(content, { peerId: this.peerId });
    } catch (error) {
      throw new StreamFailure(`${EXCEPTIONS}StateMachineException`, describe(error));
    }
  }

  #openRemote(peerId: string, header: PacketHeader, data: Buffer): Remote {
    const address = this.host.dataStreamAddress(peerId) ?? '';
    const connectionKey = `${peerId}/${Buffer.from(header.clientId).toString('hex')}`;
    let connection = this.#successors.get(connectionKey);
    if (!connection || connection.dead) {
      const ca = this.tlsOptions?.ca ?? this.tlsOptions?.cert;
      connection = new DataStreamConnection(
        peerId,
        address,
        header.clientId,
        {
          tls: ca === undefined ? undefined : { ca },
          connectTimeoutMs: 10_000,
          maxReplyDataBytes: MAX_PACKET_BYTES,
        },
        (dead) => {
          if (this.#successors.get(connectionKey) === dead) this.#successors.delete(connectionKey);
        },
      );
      this.#successors.set(connectionKey, connection);
    }
    const key = streamKey(header.clientId, header.streamId);
    connection.register(header.streamId, (error) => {
      const stream = this.#streams.get(key);
      if (stream) stream.failure ??= new StreamFailure('java.io.IOException', `${peerId}: ${error.message}`);
    });
    const reply = connection.send({ header, data: [data], timeoutMs: 10_000 });
    reply.catch(() => undefined);
    return { peerId, connection, header: reply };
  }

  /** A stream is gone here: its sink is cleaned up and its successors' streams let go. */
  #drop(stream: ServerStream): void {
    if (this.#streams.get(stream.key) === stream) this.#streams.delete(stream.key);
    const gone = new Error(`stream ${stream.streamId} failed on ${this.peerId}`);
    for (const remote of stream.remotes) remote.connection.unregister(stream.streamId, gone);
    void cleanUp(stream);
  }

  #closeSuccessors(): void {
    for (const connection of this.#successors.values())
      connection.close((id) => new Error(`stream ${id}: stopped`));
    this.#successors.clear();
  }

  #record(header: PacketHeader): EmbeddedDataStreamPacket {
    const options: Array<'SYNC' | 'CLOSE'> = [];
    for (const o of header.options) options.push(o === PACKET_OPTION.SYNC ? 'SYNC' : 'CLOSE');
    const packet: EmbeddedDataStreamPacket = {
      peerId: this.peerId,
      type: header.type === PACKET_TYPE.STREAM_HEADER ? 'STREAM_HEADER' : 'STREAM_DATA',
      clientId: header.clientId.length === 16 ? bytesToUuid(Buffer.from(header.clientId)) : '',
      streamId: header.streamId,
      streamOffset: header.streamOffset,
      dataLength: header.dataLength,
      options,
    };
    this.host.packets.push(packet);
    return packet;
  }

  /** Answers one packet: success with `bytesWritten`, or a failure carrying DataStreamException. */
  #reply(
    socket: net.Socket,
    header: PacketHeader,
    outcome: { bytesWritten: number } | { failure: StreamFailure },
  ): void {
    const common = { header, commitInfos: this.host.commitInfos() };
    let frame =
      'failure' in outcome
        ? encodeReplyFrame(
            { ...common, success: false, bytesWritten: 0 },
            this.#exceptionReply(header, outcome.failure),
          )
        : encodeReplyFrame({ ...common, success: true, bytesWritten: outcome.bytesWritten });
    const replace = this.host.takeReplyFault(this.peerId);
    if (replace) frame = replace(frame);
    if (!socket.destroyed) socket.write(frame);
  }

  /** A RaftClientReplyProto with Ratis's DataStreamException, as DataStreamManagement sends it. */
  #exceptionReply(header: PacketHeader, failure: StreamFailure): Uint8Array {
    return raft.RaftClientReplyProto.encode({
      rpcReply: {
        requestorId: header.clientId,
        replyId: Buffer.from(this.peerId),
        raftGroupId: { id: this.host.groupIdBytes },
        callId: uint64(header.streamId),
      },
      dataStreamException: {
        className: `${EXCEPTIONS}DataStreamException`,
        errorMessage: `${failure.javaClass} from Server ${this.peerId}: ${failure.message}`,
      },
      commitInfos: this.host.commitInfos(),
    }).finish();
  }
}

function routesOf(request: ratis.common.RaftClientRequestProto): Record<string, string[]> | undefined {
  const table = request.rpcRequest?.routingTable;
  if (!table?.routes || table.routes.length === 0) return undefined;
  const routes: Record<string, string[]> = {};
  for (const route of table.routes) {
    const id = Buffer.from(route.peerId?.id ?? []).toString('utf8');
    routes[id] = (route.successors ?? []).map((s) => Buffer.from(s.id ?? []).toString('utf8'));
  }
  return routes;
}

function remoteMessage(reply: ReplyFrame): string {
  if (reply.data.length === 0) return 'failed';
  try {
    const decoded = raft.RaftClientReplyProto.decode(reply.data);
    return decoded.dataStreamException?.errorMessage ?? 'failed';
  } catch {
    return 'failed, with a reply that does not decode';
  }
}

function describe(error: unknown): string {
  if (error instanceof StreamFailure) return `${error.javaClass}: ${error.message}`;
  const e = error as Error;
  return `${e?.constructor?.name ?? 'Error'}: ${e?.message ?? String(error)}`;
}

async function cleanUp(stream: ServerStream): Promise<void> {
  try {
    (await stream.sink).cleanUp?.();
  } catch {
    // a sink that never opened has nothing to clean up
  }
}
