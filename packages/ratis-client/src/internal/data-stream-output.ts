// One stream of Ratis's DataStream protocol, as Ratis's DataStreamOutputImpl runs it: the header
// packet (the serialized header request) goes first, data packets follow at once without waiting
// for its reply (pipelined), and a data packet's success counts only once the header's reply said
// success too. The CLOSE packet's success is followed by the `forward` request on the client's
// ordered gRPC path, which commits the stream through the log.
//
// The first failure is the stream's failure: every packet still outstanding and every later call
// rejects with that one error. Nothing is re-sent (Ratis's client leaves that to its caller).
import type { RaftReply } from '../raft-client.js';
import { type CommitInfo, RaftDataStreamError, RaftInvalidArgumentError } from '../raft-client-errors.js';
import type { RaftDataStream, RaftDataStreamReply, RaftDataStreamWriteOptions } from '../raft-data-stream.js';
import type { ClientMetrics } from './client-metrics.js';
import type { DataStreamConnection } from './data-stream-connection.js';
import { PACKET_OPTION, PACKET_TYPE, type ReplyFrame } from './data-stream-framing.js';
import type { PacketWindow } from './packet-window.js';
import { raft } from './proto/wire.js';
import { commitInfosOf, replyOutcome } from './reply-outcome.js';

/** What a stream needs of its client. */
export interface DataStreamContext {
  readonly clientId: Uint8Array;
  readonly primaryId: string;
  readonly connection: DataStreamConnection;
  readonly window: PacketWindow;
  readonly metrics: ClientMetrics;
  /** Per-packet reply timeout, in ms (twice this for the CLOSE packet, as Ratis's client). */
  readonly requestTimeoutMs: number;
  /** Sends the forward request (type 9) with the header request as its content. */
  forward(headerRequest: Buffer): Promise<RaftReply>;
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: Error): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

export class DataStreamOutput implements RaftDataStream {
  readonly streamId: number;
  #bytesSent = 0;
  /** The offset of the next data packet: data bytes written to the stream so far. */
  #nextOffset = 0;
  #failure: Error | undefined;
  #closing = false;
  readonly #pending = new Set<Deferred<ReplyFrame>>();
  readonly #header: Promise<ReplyFrame>;

  constructor(
    private readonly ctx: DataStreamContext,
    streamId: number,
    private readonly headerRequest: Buffer,
  ) {
    this.streamId = streamId;
    ctx.metrics.dataStreamOpened();
    ctx.connection.register(streamId, (error) => this.#fail(error));
    this.#header = this.#send(PACKET_TYPE.STREAM_HEADER, [headerRequest], []);
    // Its failure reaches the caller through every data packet; this promise is internal.
    this.#header.catch(() => undefined);
  }

  get bytesSent(): number {
    return this.#bytesSent;
  }

  write(
    data: Buffer | readonly Buffer[],
    options: RaftDataStreamWriteOptions = {},
  ): Promise<RaftDataStreamReply> {
    const refused = this.#refusal(data);
    if (refused) return Promise.reject(refused);
    return this.#send(PACKET_TYPE.STREAM_DATA, pieces(data), options.sync ? [PACKET_OPTION.SYNC] : []).then(
      (frame) => ({ bytesWritten: frame.bytesWritten, commitInfos: commitInfos(frame) }),
    );
  }

  async close(
    data: Buffer | readonly Buffer[],
    options: RaftDataStreamWriteOptions = {},
  ): Promise<RaftReply> {
    const refused = this.#refusal(data);
    if (refused) throw refused;
    this.#closing = true;
    const flags = options.sync ? [PACKET_OPTION.SYNC, PACKET_OPTION.CLOSE] : [PACKET_OPTION.CLOSE];
    await this.#send(PACKET_TYPE.STREAM_DATA, pieces(data), flags);
    // The member answers a stream's packets in order, so nothing is outstanding after the close's
    // success; the stream leaves the connection, and the log commits it.
    this.ctx.connection.unregister(this.streamId);
    return this.ctx.forward(this.headerRequest);
  }

  abort(reason?: Error): void {
    if (this.#failure) return;
    if (this.#closing && this.#pending.size === 0) return;
    this.#fail(
      new RaftDataStreamError(
        this.ctx.primaryId,
        this.streamId,
        `aborted${reason ? `: ${reason.message}` : ''}`,
        false,
        reason,
      ),
    );
  }

  /** Why a call cannot go ahead: the stream failed or is closed, or the data is not bytes. */
  #refusal(data: unknown): Error | undefined {
    if (this.#failure) return this.#failure;
    if (this.#closing)
      return new RaftDataStreamError(
        this.ctx.primaryId,
        this.streamId,
        'the stream is already closed',
        false,
      );
    const list = Buffer.isBuffer(data) ? [data] : data;
    if (!Array.isArray(list) || !list.every((p) => p instanceof Uint8Array))
      return new RaftInvalidArgumentError('stream data must be a Buffer or an array of Buffers');
    return undefined;
  }

  /** Sends one packet now (its offset fixed at once) and settles with its successful reply. */
  #send(type: number, data: readonly Uint8Array[], options: number[]): Promise<ReplyFrame> {
    let length = 0;
    for (const piece of data) length += piece.length;
    const streamOffset = type === PACKET_TYPE.STREAM_DATA ? this.#nextOffset : 0;
    if (type === PACKET_TYPE.STREAM_DATA) this.#nextOffset += length;
    const packet = deferred<ReplyFrame>();
    this.#pending.add(packet);
    const isClose = options.includes(PACKET_OPTION.CLOSE);
    void this.#transmit(packet, {
      header: {
        clientId: this.ctx.clientId,
        type,
        streamId: this.streamId,
        streamOffset,
        dataLength: length,
        options,
      },
      data,
      timeoutMs: isClose ? 2 * this.ctx.requestTimeoutMs : this.ctx.requestTimeoutMs,
      onWritten: () => {
        if (type === PACKET_TYPE.STREAM_DATA) this.#bytesSent += length;
        this.ctx.metrics.dataStreamPacket(type === PACKET_TYPE.STREAM_DATA ? 'data' : 'header', length);
      },
    });
    return packet.promise;
  }

  async #transmit(
    packet: Deferred<ReplyFrame>,
    outgoing: Parameters<DataStreamConnection['send']>[0],
  ): Promise<void> {
    try {
      await this.ctx.window.acquire();
    } catch (error) {
      this.#fail(this.#wrap(error));
      return;
    }
    let frame: ReplyFrame;
    try {
      // A stream that failed while this packet waited for room sends nothing more.
      if (this.#failure) return;
      frame = await this.ctx.connection.send(outgoing);
    } catch (error) {
      this.#fail(this.#wrap(error));
      return;
    } finally {
      this.ctx.window.release();
    }
    if (outgoing.header.type === PACKET_TYPE.STREAM_DATA) {
      try {
        await this.#header;
      } catch {
        return; // the header's failure failed the stream, this packet with it
      }
    }
    if (!frame.success) {
      this.#fail(this.#replyError(frame));
      return;
    }
    if (this.#pending.delete(packet)) packet.resolve(frame);
  }

  /** A failure reply's error: the exception its data carries, typed as the gRPC path types it. */
  #replyError(frame: ReplyFrame): Error {
    const where = `the packet at offset ${frame.header.streamOffset}`;
    if (frame.data.length === 0)
      return new RaftDataStreamError(this.ctx.primaryId, this.streamId, `${where} failed on a member`, true);
    let reply;
    try {
      reply = raft.RaftClientReplyProto.decode(frame.data);
    } catch (error) {
      return new RaftDataStreamError(
        this.ctx.primaryId,
        this.streamId,
        `${where} failed, with reply data that does not decode`,
        false,
        error,
      );
    }
    const outcome = replyOutcome(reply, frame.data, this.ctx.primaryId);
    if (outcome.kind !== 'ok') return outcome.error;
    return new RaftDataStreamError(this.ctx.primaryId, this.streamId, `${where} failed on a member`, true);
  }

  #wrap(error: unknown): Error {
    if (error instanceof RaftDataStreamError) return error;
    const message = error instanceof Error ? error.message : String(error);
    return new RaftDataStreamError(this.ctx.primaryId, this.streamId, message, false, error);
  }

  #fail(error: Error): void {
    if (this.#failure) return;
    this.#failure = error;
    this.ctx.metrics.dataStreamFailed(error);
    // With the error: packets still awaited on the connection settle, and give their room back.
    this.ctx.connection.unregister(this.streamId, error);
    for (const packet of this.#pending) packet.reject(error);
    this.#pending.clear();
  }
}

function pieces(data: Buffer | readonly Buffer[]): readonly Uint8Array[] {
  return Buffer.isBuffer(data) ? [data] : data;
}

function commitInfos(frame: ReplyFrame): readonly CommitInfo[] {
  return frame.commitInfos.length === 0 ? [] : commitInfosOf(frame);
}
