// One HTTP/2 connection to a gRPC server, spoken by fastpath itself on a socket: the frames, the
// windows, HPACK and gRPC's framing of messages. Node's `http2` module hands every DATA frame up
// as a Buffer of its own through its stream machinery; here the socket reads into one reused
// buffer and each DATA frame's bytes are copied once, straight into the buffer of the message
// they belong to (the caller's pool, for bulk answers). See the package README for the numbers.
import { EventEmitter } from 'node:events';
import { DeadlineSet, TurnWriter } from '@fastpath/core';
import type { Socket } from 'node:net';
import type { GrpcHttp2Call, UnaryCallOptions } from './grpc-http2-call.js';
import { GRPC_STATUS, HTTP2_ERROR, Http2ProtocolError } from './grpc-http2-errors.js';
import {
  type GrpcHttp2SessionOptions,
  type ResolvedSessionOptions,
  resolveSessionOptions,
} from './grpc-http2-options.js';
import { UnaryAnswer } from './internal/call-sinks.js';
import { ClientStream, streamingCall, type StreamHost } from './internal/client-stream.js';
import { connectSocket } from './internal/connect-socket.js';
import { FrameReader, type FrameSink } from './internal/frame-reader.js';
import {
  CLIENT_PREFACE,
  DEFAULT_MAX_FRAME_BYTES,
  DEFAULT_WINDOW_BYTES,
  FLAG,
  FRAME,
  MAX_STREAM_ID,
  MAX_WINDOW_BYTES,
  SETTING,
  dataFrameHeader,
  goawayFrame,
  headerFrames,
  pingFrame,
  rstStreamFrame,
  settingsAckFrame,
  settingsFrame,
  windowUpdateFrame,
} from './internal/frames.js';
import { statusOfReset } from './internal/grpc-status.js';
import { HpackDecoder, encodeHeaderBlock } from './internal/hpack/index.js';

/** The header list this side accepts (SETTINGS_MAX_HEADER_LIST_SIZE): status and trailers are small. */
const MAX_HEADER_LIST_BYTES = 64 * 1024;
/** A header block (HEADERS and its CONTINUATIONs) longer than this is refused before it is decoded. */
const MAX_HEADER_BLOCK_BYTES = 4 * MAX_HEADER_LIST_BYTES;

/** A header block being received across CONTINUATION frames. */
interface PartialBlock {
  streamId: number;
  endStream: boolean;
  pieces: Buffer[];
  bytes: number;
}

/** The events of a {@link GrpcHttp2Session}. */
export interface GrpcHttp2SessionEvents {
  /** The server's SETTINGS arrived: the connection is HTTP/2 and up. */
  connect: [];
  /** The server is going away (its GOAWAY's error code): no new calls here. */
  goaway: [code: number];
  /** The socket is gone; every call still open has failed. */
  close: [];
}

/**
 * An HTTP/2 client connection to one gRPC server, opened at construction. Calls open as streams
 * ({@link openCall}); calls beyond the server's SETTINGS_MAX_CONCURRENT_STREAMS wait for a slot.
 * The session holds the process open only while calls are open.
 *
 * Events: `connect` (the server's SETTINGS arrived: the connection is HTTP/2 and up), `goaway`
 * (the server is going away: no new calls here; calls it did not take fail UNAVAILABLE), `close`
 * (the socket is gone; every open call has failed, UNAVAILABLE unless the server broke HTTP/2).
 *
 * @example
 * ```ts
 * const session = new GrpcHttp2Session({ address: 'dn1:9859', maxFrameBytes: 1 << 20 });
 * const call = session.openCall('/hadoop.hdds.datanode.XceiverClientProtocolService/send');
 * ```
 */
export class GrpcHttp2Session extends EventEmitter<GrpcHttp2SessionEvents> {
  readonly #options: ResolvedSessionOptions;
  readonly #socket: Socket;
  readonly #reader: FrameReader;
  readonly #decoder = new HpackDecoder({ maxTableBytes: 4096, maxHeaderListBytes: MAX_HEADER_LIST_BYTES });
  /** The fields of the header block just decoded, reused for every block. */
  readonly #fields: string[] = [];
  /** Open streams by id. */
  readonly #streams = new Map<number, ClientStream>();
  /** Calls waiting for the server to allow another stream. */
  readonly #waiting: ClientStream[] = [];
  /** Streams with bytes the connection's window holds back. */
  readonly #blocked = new Set<ClientStream>();
  /** Request header blocks by path (the encoder keeps no state, so a path's block never changes). */
  readonly #requestBlocks = new Map<string, Buffer>();
  /** The unary calls' deadlines, on one timer. */
  readonly #deadlines = new DeadlineSet<UnaryAnswer>((answer) => answer.expire());
  #nextStreamId = 1;
  #connected = false;
  /** GOAWAY sent or received, close() called, or stream ids ran out: no new streams. */
  #draining = false;
  #closed = false;
  /** Every frame this side sends: a turn's frames leave in one write (see the constructor). */
  readonly #out: TurnWriter;
  #connectTimer: NodeJS.Timeout | undefined;
  #partial: PartialBlock | undefined;
  // What the server allows this side.
  #peerMaxFrameBytes = DEFAULT_MAX_FRAME_BYTES;
  #peerInitialWindow = DEFAULT_WINDOW_BYTES;
  #peerMaxStreams = Infinity;
  #sendWindow = DEFAULT_WINDOW_BYTES;
  // What this side allows the server on the connection.
  #receiveWindow: number;
  #receivedUnacked = 0;
  #failure: { code: number; details: string; cause?: unknown } | undefined;

  constructor(options: GrpcHttp2SessionOptions) {
    super();
    const o = (this.#options = resolveSessionOptions(options));
    this.#receiveWindow = o.connectionWindowBytes;
    const sink: FrameSink = {
      frame: (type, flags, streamId, payload) => this.#onFrame(type, flags, streamId, payload),
      dataStart: (streamId, flags, length) => this.#onDataStart(streamId, length),
      data: (streamId, piece) => this.#streams.get(streamId)?.receive(piece),
      dataEnd: (streamId, flags) => {
        if (flags & FLAG.END_STREAM) this.#onRemoteEnd(streamId);
      },
    };
    this.#reader = new FrameReader(sink, o.maxFrameBytes);
    this.#socket = connectSocket({
      host: o.host,
      port: o.port,
      tls: o.tls,
      readBuffer: Buffer.allocUnsafe(o.readBufferBytes),
      onRead: (bytes) => this.#onRead(bytes),
    });
    this.#socket.on('error', (err) => this.#lose(err));
    this.#socket.on('close', () => this.#lose(undefined));
    this.#socket.on('end', () => this.#endSocket());
    this.#socket.unref();
    // What this side writes in one turn of the event loop goes out in one write once the loop's
    // pending reads are handled, as Node's own sessions do: the requests the readers send as
    // answers arrive, and the window updates, each cost a system call of their own otherwise (on
    // loopback the write also carries the receiver's wake-up; a quarter of the client's CPU in
    // the first measurement).
    this.#out = new TurnWriter(this.#socket, { flushAt: 'immediate' });
    this.#connectTimer = setTimeout(
      () =>
        this.#socket.destroy(new Error(`no HTTP/2 connection to ${o.peer} within ${o.connectTimeoutMs} ms`)),
      o.connectTimeoutMs,
    );
    this.#connectTimer.unref();
    // The preface, this side's settings and the wider connection window go out at once; streams
    // may open before the server's SETTINGS arrive (the defaults hold until then).
    const widen = o.connectionWindowBytes - DEFAULT_WINDOW_BYTES;
    this.#out.write(CLIENT_PREFACE);
    this.#out.write(
      settingsFrame([
        [SETTING.ENABLE_PUSH, 0],
        [SETTING.INITIAL_WINDOW_SIZE, o.streamWindowBytes],
        [SETTING.MAX_FRAME_SIZE, o.maxFrameBytes],
        [SETTING.MAX_HEADER_LIST_SIZE, MAX_HEADER_LIST_BYTES],
      ]),
    );
    if (widen > 0) this.#out.write(windowUpdateFrame(0, widen));
  }

  /** The server's SETTINGS arrived and the session has not closed. */
  get connected(): boolean {
    return this.#connected && !this.#closed;
  }

  /** Whether a call opened now can run here (else open a new session). */
  get accepting(): boolean {
    return !this.#draining && !this.#closed;
  }

  /** Calls open or waiting for a stream. */
  get activeCalls(): number {
    return this.#streams.size + this.#waiting.length;
  }

  /**
   * Opens a call of the gRPC method `path` (`/package.Service/Method`), with `metadata` as extra
   * request headers (lowercase names). On a session that no longer accepts calls, the call fails
   * UNAVAILABLE (asynchronously, as every failure).
   */
  openCall(path: string, metadata?: Readonly<Record<string, string>>): GrpcHttp2Call {
    const { stream, call } = streamingCall(
      this.#host,
      this.#options.maxReceiveMessageBytes,
      this.#options.allocateMessage,
    );
    this.#start(stream, path, metadata);
    return call;
  }

  /**
   * A unary call of `path`: sends `message` and resolves with the one answer once the server's
   * status is OK; rejects with a {@link GrpcCallError} otherwise (two answers or none: INTERNAL; no
   * status within `deadlineMs`: DEADLINE_EXCEEDED, the stream cancelled). Its own code path, with
   * no call object or listeners: a small call's CPU is mostly such per-call machinery.
   */
  unary(path: string, message: Uint8Array, options: UnaryCallOptions = {}): Promise<Buffer> {
    const answer = new UnaryAnswer();
    const stream = new ClientStream(
      this.#host,
      this.#options.maxReceiveMessageBytes,
      this.#options.allocateMessage,
      answer,
    );
    answer.start(stream, options.deadlineMs, this.#deadlines);
    this.#start(stream, path, options.metadata);
    stream.write(message);
    stream.end();
    return answer.promise;
  }

  /** Opens `stream` now or once a stream slot frees; on a session that no longer accepts calls, fails it UNAVAILABLE (asynchronously). */
  #start(stream: ClientStream, path: string, metadata: Readonly<Record<string, string>> | undefined): void {
    if (!this.accepting) {
      const why = this.#closed ? 'the connection is closed' : 'the connection is going away';
      queueMicrotask(() => stream.fail(GRPC_STATUS.UNAVAILABLE, why, this.#failure?.cause));
      return;
    }
    stream.requestBlock = metadata ? this.#encodeRequest(path, metadata) : this.#requestBlock(path);
    if (this.#streams.size >= this.#peerMaxStreams) this.#waiting.push(stream);
    else this.#open(stream);
    this.#refOrUnref();
  }

  /** Graceful close: no new calls; the calls open finish, then the connection ends with a GOAWAY. */
  close(): void {
    if (this.#closed) return;
    this.#draining = true;
    this.#closeWhenIdle();
  }

  /** Ends the connection now: every open call fails CANCELLED. */
  destroy(): void {
    if (this.#closed) return;
    this.#send(goawayFrame(0, HTTP2_ERROR.NO_ERROR));
    this.#failAll(GRPC_STATUS.CANCELLED, 'the session was destroyed');
    this.#socket.destroy();
  }

  readonly #host: StreamHost = {
    flush: (stream) => this.#flush(stream),
    reset: (stream, code) => {
      if (stream.id === 0) {
        const i = this.#waiting.indexOf(stream);
        if (i >= 0) this.#waiting.splice(i, 1);
        this.#refOrUnref();
        return;
      }
      if (!this.#streams.has(stream.id)) return;
      stream.dropQueue();
      this.#send(rstStreamFrame(stream.id, code));
      stream.localEnded = stream.remoteEnded = true;
      this.#forget(stream);
    },
    closed: (stream) => this.#forget(stream),
  };

  #requestBlock(path: string): Buffer {
    let block = this.#requestBlocks.get(path);
    if (!block) {
      block = this.#encodeRequest(path, undefined);
      if (this.#requestBlocks.size < 64) this.#requestBlocks.set(path, block);
    }
    return block;
  }

  #encodeRequest(path: string, metadata: Readonly<Record<string, string>> | undefined): Buffer {
    const o = this.#options;
    const headers: Array<[string, string]> = [
      [':method', 'POST'],
      [':scheme', o.tls ? 'https' : 'http'],
      [':path', path],
      [':authority', o.address],
      ['content-type', 'application/grpc'],
      ['te', 'trailers'],
    ];
    if (metadata) for (const [name, value] of Object.entries(metadata)) headers.push([name, value]);
    return encodeHeaderBlock(headers);
  }

  #open(stream: ClientStream): void {
    const id = this.#nextStreamId;
    this.#nextStreamId += 2;
    // Ids are never reused: the last one makes the session drain, and the next call goes elsewhere.
    if (this.#nextStreamId > MAX_STREAM_ID) this.#draining = true;
    stream.id = id;
    stream.sendWindow = this.#peerInitialWindow;
    stream.receiveWindow = this.#options.streamWindowBytes;
    this.#streams.set(id, stream);
    this.#send(headerFrames(id, stream.requestBlock, false, this.#peerMaxFrameBytes));
    this.#flush(stream);
  }

  /** Sends what the stream has queued, as far as its window and the connection's allow. */
  #flush(stream: ClientStream): void {
    if (stream.id === 0 || stream.localEnded || this.#closed) return;
    const out = this.#out;
    while (stream.queuedBytes > 0) {
      const n = Math.min(stream.queuedBytes, stream.sendWindow, this.#sendWindow, this.#peerMaxFrameBytes);
      if (n <= 0) {
        if (this.#sendWindow <= 0) this.#blocked.add(stream);
        return;
      }
      const end = stream.endRequested && n === stream.queuedBytes;
      const pieces = stream.take(n);
      out.write(dataFrameHeader(stream.id, n, end));
      for (const piece of pieces) out.write(piece);
      stream.sendWindow -= n;
      this.#sendWindow -= n;
      if (end) return this.#localEnd(stream);
    }
    if (stream.endRequested) {
      out.write(dataFrameHeader(stream.id, 0, true));
      this.#localEnd(stream);
    }
  }

  #localEnd(stream: ClientStream): void {
    stream.localEnded = true;
    this.#blocked.delete(stream);
    if (stream.remoteEnded) this.#forget(stream);
  }

  #forget(stream: ClientStream): void {
    if (this.#streams.get(stream.id) !== stream) return;
    this.#streams.delete(stream.id);
    this.#blocked.delete(stream);
    while (this.#waiting.length > 0 && this.#streams.size < this.#peerMaxStreams && !this.#closed)
      this.#open(this.#waiting.shift() as ClientStream);
    this.#refOrUnref();
    if (this.#draining) this.#closeWhenIdle();
  }

  #closeWhenIdle(): void {
    if (this.#closed || this.activeCalls > 0) return;
    this.#send(goawayFrame(0, HTTP2_ERROR.NO_ERROR));
    this.#endSocket();
  }

  /** A socket with calls holds the process open; an idle one does not. */
  #refOrUnref(): void {
    if (this.#closed) return;
    if (this.activeCalls > 0) this.#socket.ref();
    else this.#socket.unref();
  }

  /** Ends this side of the socket after what this turn wrote. */
  #endSocket(): void {
    this.#out.flush();
    this.#socket.end();
  }

  #send(frame: Buffer): void {
    if (this.#closed || this.#socket.destroyed) return;
    this.#out.write(frame);
  }

  #onRead(bytes: Buffer): void {
    if (this.#closed) return;
    try {
      this.#reader.push(bytes);
    } catch (err) {
      if (err instanceof Http2ProtocolError) this.#protocolFailure(err);
      else {
        this.#failAll(GRPC_STATUS.INTERNAL, `the session failed: ${(err as Error).message}`, err);
        this.#socket.destroy();
        // A listener's own error is not the connection's to swallow.
        queueMicrotask(() => {
          throw err;
        });
      }
    }
  }

  #protocolFailure(err: Http2ProtocolError): void {
    this.#send(goawayFrame(0, err.http2Code, err.message.slice(0, 200)));
    this.#failAll(GRPC_STATUS.INTERNAL, `${this.#options.peer} broke HTTP/2: ${err.message}`, err);
    this.#endSocket();
    this.#socket.destroy();
  }

  #onDataStart(streamId: number, length: number): void {
    if (this.#partial) throw expectedContinuation();
    if (streamId % 2 === 0 || streamId >= this.#nextStreamId)
      throw new Http2ProtocolError(
        HTTP2_ERROR.PROTOCOL_ERROR,
        `DATA on stream ${streamId}, which this side never opened`,
      );
    if (length > this.#receiveWindow)
      throw new Http2ProtocolError(HTTP2_ERROR.FLOW_CONTROL_ERROR, 'DATA beyond the connection window');
    this.#receiveWindow -= length;
    this.#receivedUnacked += length;
    // The bytes are taken as they come, so the window is handed back once half of it is used.
    if (this.#receivedUnacked >= this.#options.connectionWindowBytes / 2) {
      this.#send(windowUpdateFrame(0, this.#receivedUnacked));
      this.#receiveWindow += this.#receivedUnacked;
      this.#receivedUnacked = 0;
    }
    const stream = this.#streams.get(streamId);
    // A stream this side reset or finished: its late bytes count on the connection only.
    if (!stream) return;
    if (stream.remoteEnded) {
      this.#host.reset(stream, HTTP2_ERROR.STREAM_CLOSED);
      return;
    }
    if (length > stream.receiveWindow) {
      stream.fail(GRPC_STATUS.INTERNAL, 'the server sent beyond the stream window');
      this.#host.reset(stream, HTTP2_ERROR.FLOW_CONTROL_ERROR);
      return;
    }
    stream.receiveWindow -= length;
    stream.receivedUnacked += length;
    if (stream.receivedUnacked >= this.#options.streamWindowBytes / 2) {
      this.#send(windowUpdateFrame(streamId, stream.receivedUnacked));
      stream.receiveWindow += stream.receivedUnacked;
      stream.receivedUnacked = 0;
    }
  }

  #onRemoteEnd(streamId: number): void {
    const stream = this.#streams.get(streamId);
    if (!stream) return;
    stream.remoteEnd();
    // The server has answered: what this side still had to send goes nowhere, and a side still
    // open is ended cleanly (a reset of a finished stream counts toward servers' rapid-reset limits).
    stream.dropQueue();
    if (!stream.localEnded) {
      stream.endRequested = true;
      this.#flush(stream);
    }
    if (stream.localEnded) this.#forget(stream);
  }

  #onFrame(type: number, flags: number, streamId: number, payload: Buffer): void {
    if (this.#partial && type !== FRAME.CONTINUATION) throw expectedContinuation();
    if (!this.#connected && type !== FRAME.SETTINGS)
      throw new Http2ProtocolError(
        HTTP2_ERROR.PROTOCOL_ERROR,
        `the server's first frame is of type ${type}, not SETTINGS`,
      );
    switch (type) {
      case FRAME.HEADERS:
        return this.#onHeaders(flags, streamId, payload);
      case FRAME.CONTINUATION:
        return this.#onContinuation(flags, streamId, payload);
      case FRAME.SETTINGS:
        return this.#onSettings(flags, streamId, payload);
      case FRAME.WINDOW_UPDATE:
        return this.#onWindowUpdate(streamId, payload);
      case FRAME.RST_STREAM:
        return this.#onReset(streamId, payload);
      case FRAME.PING:
        if (payload.length !== 8)
          throw new Http2ProtocolError(HTTP2_ERROR.FRAME_SIZE_ERROR, 'a PING of other than 8 bytes');
        if (streamId !== 0) throw new Http2ProtocolError(HTTP2_ERROR.PROTOCOL_ERROR, 'a PING on a stream');
        if (!(flags & FLAG.ACK)) this.#send(pingFrame(payload, true));
        return;
      case FRAME.GOAWAY:
        return this.#onGoaway(streamId, payload);
      case FRAME.PUSH_PROMISE:
        throw new Http2ProtocolError(HTTP2_ERROR.PROTOCOL_ERROR, 'PUSH_PROMISE, though push is disabled');
      case FRAME.PRIORITY:
        if (payload.length !== 5)
          throw new Http2ProtocolError(HTTP2_ERROR.FRAME_SIZE_ERROR, 'a PRIORITY of other than 5 bytes');
        return;
      default:
        // Unknown frame types are ignored (RFC 9113 §4.1).
        return;
    }
  }

  #onHeaders(flags: number, streamId: number, payload: Buffer): void {
    if (streamId === 0 || streamId % 2 === 0 || streamId >= this.#nextStreamId)
      throw new Http2ProtocolError(
        HTTP2_ERROR.PROTOCOL_ERROR,
        `HEADERS on stream ${streamId}, which this side never opened`,
      );
    let from = 0;
    let to = payload.length;
    if (flags & FLAG.PADDED) {
      const pad = payload[0];
      if (pad === undefined || pad >= payload.length)
        throw new Http2ProtocolError(
          HTTP2_ERROR.PROTOCOL_ERROR,
          "a HEADERS frame's padding is longer than its payload",
        );
      from = 1;
      to -= pad;
    }
    if (flags & FLAG.PRIORITY) from += 5;
    if (from > to)
      throw new Http2ProtocolError(HTTP2_ERROR.FRAME_SIZE_ERROR, 'a HEADERS frame too short for its flags');
    const fragment = payload.subarray(from, to);
    const endStream = (flags & FLAG.END_STREAM) !== 0;
    if (flags & FLAG.END_HEADERS) return this.#onHeaderBlock(streamId, endStream, fragment);
    // The fragment is a view of the read buffer: kept as a copy until the block is whole.
    this.#partial = { streamId, endStream, pieces: [Buffer.from(fragment)], bytes: fragment.length };
  }

  #onContinuation(flags: number, streamId: number, payload: Buffer): void {
    const partial = this.#partial;
    if (!partial || partial.streamId !== streamId)
      throw new Http2ProtocolError(
        HTTP2_ERROR.PROTOCOL_ERROR,
        'CONTINUATION without a header block before it on its stream',
      );
    partial.bytes += payload.length;
    if (partial.bytes > MAX_HEADER_BLOCK_BYTES)
      throw new Http2ProtocolError(
        HTTP2_ERROR.ENHANCE_YOUR_CALM,
        `a header block of more than ${MAX_HEADER_BLOCK_BYTES} bytes`,
      );
    if (!(flags & FLAG.END_HEADERS)) {
      partial.pieces.push(Buffer.from(payload));
      return;
    }
    partial.pieces.push(payload);
    this.#partial = undefined;
    this.#onHeaderBlock(streamId, partial.endStream, Buffer.concat(partial.pieces, partial.bytes));
  }

  #onHeaderBlock(streamId: number, endStream: boolean, block: Buffer): void {
    // Every block is decoded, even a dropped stream's: the decoder's table follows the server's.
    this.#decoder.decodeInto(block, this.#fields);
    const stream = this.#streams.get(streamId);
    if (!stream) return;
    stream.headers(this.#fields);
    if (endStream) this.#onRemoteEnd(streamId);
  }

  #onSettings(flags: number, streamId: number, payload: Buffer): void {
    if (streamId !== 0) throw new Http2ProtocolError(HTTP2_ERROR.PROTOCOL_ERROR, 'SETTINGS on a stream');
    if (flags & FLAG.ACK) {
      if (payload.length !== 0)
        throw new Http2ProtocolError(
          HTTP2_ERROR.FRAME_SIZE_ERROR,
          'a SETTINGS acknowledgement with a payload',
        );
      return;
    }
    if (payload.length % 6 !== 0)
      throw new Http2ProtocolError(HTTP2_ERROR.FRAME_SIZE_ERROR, 'SETTINGS of a length not a multiple of 6');
    for (let at = 0; at < payload.length; at += 6) {
      const id = payload.readUInt16BE(at);
      const value = payload.readUInt32BE(at + 2);
      switch (id) {
        case SETTING.ENABLE_PUSH:
          if (value > 1)
            throw new Http2ProtocolError(HTTP2_ERROR.PROTOCOL_ERROR, `SETTINGS_ENABLE_PUSH ${value}`);
          break;
        case SETTING.MAX_CONCURRENT_STREAMS:
          this.#peerMaxStreams = value;
          break;
        case SETTING.INITIAL_WINDOW_SIZE: {
          if (value > MAX_WINDOW_BYTES)
            throw new Http2ProtocolError(
              HTTP2_ERROR.FLOW_CONTROL_ERROR,
              `SETTINGS_INITIAL_WINDOW_SIZE ${value}`,
            );
          // The change applies to every open stream's window (RFC 9113 §6.9.2).
          const delta = value - this.#peerInitialWindow;
          this.#peerInitialWindow = value;
          for (const stream of this.#streams.values()) {
            stream.sendWindow += delta;
            if (stream.sendWindow > MAX_WINDOW_BYTES)
              throw new Http2ProtocolError(HTTP2_ERROR.FLOW_CONTROL_ERROR, 'a stream window beyond 2^31 - 1');
          }
          break;
        }
        case SETTING.MAX_FRAME_SIZE:
          if (value < DEFAULT_MAX_FRAME_BYTES || value > 16_777_215)
            throw new Http2ProtocolError(HTTP2_ERROR.PROTOCOL_ERROR, `SETTINGS_MAX_FRAME_SIZE ${value}`);
          this.#peerMaxFrameBytes = value;
          break;
        default:
          // HEADER_TABLE_SIZE bounds the server's decoder table, which the stateless encoder never
          // uses; MAX_HEADER_LIST_SIZE is far above a gRPC request's few headers; others are unknown.
          break;
      }
    }
    this.#send(settingsAckFrame());
    if (!this.#connected) {
      this.#connected = true;
      if (this.#connectTimer) clearTimeout(this.#connectTimer);
      this.#connectTimer = undefined;
      this.emit('connect');
    }
    for (const stream of [...this.#streams.values()]) this.#flush(stream);
    while (this.#waiting.length > 0 && this.#streams.size < this.#peerMaxStreams && !this.#closed)
      this.#open(this.#waiting.shift() as ClientStream);
  }

  #onWindowUpdate(streamId: number, payload: Buffer): void {
    if (payload.length !== 4)
      throw new Http2ProtocolError(HTTP2_ERROR.FRAME_SIZE_ERROR, 'a WINDOW_UPDATE of other than 4 bytes');
    const increment = payload.readUInt32BE(0) & 0x7fffffff;
    if (streamId === 0) {
      if (increment === 0)
        throw new Http2ProtocolError(HTTP2_ERROR.PROTOCOL_ERROR, 'a WINDOW_UPDATE of 0 on the connection');
      this.#sendWindow += increment;
      if (this.#sendWindow > MAX_WINDOW_BYTES)
        throw new Http2ProtocolError(HTTP2_ERROR.FLOW_CONTROL_ERROR, 'the connection window beyond 2^31 - 1');
      const blocked = [...this.#blocked];
      this.#blocked.clear();
      for (const stream of blocked) this.#flush(stream);
      return;
    }
    const stream = this.#streams.get(streamId);
    if (!stream) return;
    if (increment === 0) {
      stream.fail(GRPC_STATUS.INTERNAL, 'the server sent a WINDOW_UPDATE of 0');
      return this.#host.reset(stream, HTTP2_ERROR.PROTOCOL_ERROR);
    }
    stream.sendWindow += increment;
    if (stream.sendWindow > MAX_WINDOW_BYTES) {
      stream.fail(GRPC_STATUS.INTERNAL, 'the server widened a stream window beyond 2^31 - 1');
      return this.#host.reset(stream, HTTP2_ERROR.FLOW_CONTROL_ERROR);
    }
    this.#flush(stream);
  }

  #onReset(streamId: number, payload: Buffer): void {
    if (payload.length !== 4)
      throw new Http2ProtocolError(HTTP2_ERROR.FRAME_SIZE_ERROR, 'a RST_STREAM of other than 4 bytes');
    if (streamId === 0) throw new Http2ProtocolError(HTTP2_ERROR.PROTOCOL_ERROR, 'RST_STREAM on stream 0');
    const stream = this.#streams.get(streamId);
    if (!stream) return;
    stream.dropQueue();
    stream.resetByServer(statusOfReset(payload.readUInt32BE(0)));
    this.#forget(stream);
  }

  #onGoaway(streamId: number, payload: Buffer): void {
    if (streamId !== 0) throw new Http2ProtocolError(HTTP2_ERROR.PROTOCOL_ERROR, 'GOAWAY on a stream');
    if (payload.length < 8)
      throw new Http2ProtocolError(HTTP2_ERROR.FRAME_SIZE_ERROR, 'a GOAWAY shorter than 8 bytes');
    const lastStreamId = payload.readUInt32BE(0) & 0x7fffffff;
    const code = payload.readUInt32BE(4);
    this.#draining = true;
    // Streams above the last one the server took were never processed: safe to send again elsewhere.
    for (const stream of [...this.#streams.values()])
      if (stream.id > lastStreamId) {
        stream.dropQueue();
        stream.resetByServer({
          code: GRPC_STATUS.UNAVAILABLE,
          details: `${this.#options.peer} is going away (GOAWAY)`,
        });
        this.#forget(stream);
      }
    for (const stream of this.#waiting.splice(0))
      stream.fail(GRPC_STATUS.UNAVAILABLE, `${this.#options.peer} is going away (GOAWAY)`);
    this.emit('goaway', code);
    this.#closeWhenIdle();
  }

  /** The socket failed or closed: every call still open fails. */
  #lose(err: Error | undefined): void {
    if (this.#closed) return;
    const peer = this.#options.peer;
    const why = err ? `: ${err.message}` : '';
    const failure = this.#connected
      ? `the connection to ${peer} was lost${why}`
      : `no connection to ${peer} was established${why}`;
    this.#failAll(GRPC_STATUS.UNAVAILABLE, failure, err);
    this.#socket.destroy();
  }

  #failAll(code: number, details: string, cause?: unknown): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#draining = true;
    this.#failure = { code, details, cause };
    if (this.#connectTimer) clearTimeout(this.#connectTimer);
    const open = [...this.#streams.values(), ...this.#waiting.splice(0)];
    this.#streams.clear();
    this.#blocked.clear();
    for (const stream of open) stream.fail(code, details, cause);
    this.emit('close');
  }
}

function expectedContinuation(): Http2ProtocolError {
  return new Http2ProtocolError(
    HTTP2_ERROR.PROTOCOL_ERROR,
    'a frame inside a header block (CONTINUATION expected)',
  );
}
