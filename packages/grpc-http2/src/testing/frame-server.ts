// An HTTP/2 server for tests that sends exactly the frames a test asks for: a GOAWAY mid-answer,
// a reset, padded DATA, a header block cut into CONTINUATIONs, a frame larger than allowed, bytes
// that are not HPACK. Real servers (grpc-js, Ozone's Netty) cannot be made to misbehave on cue;
// this one speaks real HTTP/2 on a real socket and does only what it is told.
import { once } from 'node:events';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import {
  CLIENT_PREFACE,
  dataFrameHeader,
  FLAG,
  FRAME,
  FRAME_HEADER_BYTES,
  goawayFrame,
  headerFrames,
  pingFrame,
  rstStreamFrame,
  settingsAckFrame,
  settingsFrame,
  windowUpdateFrame,
  writeFrameHeader,
} from '../internal/frames.js';
import { encodeHeaderBlock, HpackDecoder } from '../internal/hpack/index.js';

/** A frame the client sent. */
export interface ReceivedFrame {
  /** The frame type ({@link FRAME}). */
  type: number;
  /** Its flags ({@link FLAG}). */
  flags: number;
  /** The stream it is on (0: the connection). */
  streamId: number;
  /** The whole payload, padding included. */
  payload: Buffer;
}

/** A request the client opened: its stream and decoded headers. */
export interface ReceivedRequest {
  /** The stream the request opened. */
  streamId: number;
  /** Its header list, decoded, in order. */
  headers: Array<[string, string]>;
}

/** One client connection, driven by the test. */
export class FrameServerPeer {
  /** Every frame received, in order. */
  readonly frames: ReceivedFrame[] = [];
  readonly #decoder = new HpackDecoder({ maxTableBytes: 4096, maxHeaderListBytes: 1 << 20 });
  readonly #waiters: Array<{ match: (f: ReceivedFrame) => boolean; resolve: (f: ReceivedFrame) => void }> =
    [];
  readonly #requestWaiters: Array<(r: ReceivedRequest) => void> = [];
  readonly #requests: ReceivedRequest[] = [];
  #buffered: Buffer = Buffer.alloc(0);
  #prefaceSeen = false;

  /** @param socket the accepted connection. */
  constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    socket.on('error', () => {});
  }

  /** Sends raw bytes (any frame, well-formed or not). */
  sendRaw(bytes: Buffer): void {
    if (!this.socket.destroyed) this.socket.write(bytes);
  }

  /** Sends SETTINGS with the given (identifier, value) pairs. */
  sendSettings(settings: ReadonlyArray<readonly [number, number]> = []): void {
    this.sendRaw(settingsFrame(settings));
  }

  /** Sends a header block on a stream (HEADERS, CONTINUATIONs when `maxFrameBytes` cuts it). */
  sendHeaders(
    streamId: number,
    headers: ReadonlyArray<readonly [string, string]>,
    options: { endStream?: boolean; huffman?: boolean; maxFrameBytes?: number } = {},
  ): void {
    const block = encodeHeaderBlock(headers, { huffman: options.huffman ?? true });
    this.sendRaw(headerFrames(streamId, block, options.endStream ?? false, options.maxFrameBytes ?? 16_384));
  }

  /** The usual successful answer's headers. */
  sendResponseHeaders(streamId: number): void {
    this.sendHeaders(streamId, [
      [':status', '200'],
      ['content-type', 'application/grpc'],
    ]);
  }

  /** Trailers with a gRPC status, ending the stream. */
  sendTrailers(streamId: number, grpcStatus: number, grpcMessage = ''): void {
    this.sendHeaders(
      streamId,
      [
        ['grpc-status', String(grpcStatus)],
        ...(grpcMessage ? [['grpc-message', grpcMessage] as [string, string]] : []),
      ],
      { endStream: true },
    );
  }

  /** A DATA frame; `padding` bytes of padding make it PADDED. */
  sendData(streamId: number, bytes: Buffer, options: { endStream?: boolean; padding?: number } = {}): void {
    const padding = options.padding;
    if (padding === undefined) {
      this.sendRaw(
        Buffer.concat([dataFrameHeader(streamId, bytes.length, options.endStream ?? false), bytes]),
      );
      return;
    }
    const frame = Buffer.alloc(FRAME_HEADER_BYTES + 1 + bytes.length + padding);
    const flags = FLAG.PADDED | (options.endStream ? FLAG.END_STREAM : 0);
    writeFrameHeader(frame, 0, 1 + bytes.length + padding, FRAME.DATA, flags, streamId);
    frame[FRAME_HEADER_BYTES] = padding;
    bytes.copy(frame, FRAME_HEADER_BYTES + 1);
    this.sendRaw(frame);
  }

  /** gRPC messages as DATA on a stream, each framed with its 5-byte prefix, in frames of at most `frameBytes`. */
  sendMessages(streamId: number, messages: readonly Buffer[], frameBytes = 16_384): void {
    const framed = Buffer.concat(messages.flatMap((m) => [grpcPrefix(m.length), m]));
    for (let at = 0; at < framed.length; at += frameBytes)
      this.sendData(streamId, framed.subarray(at, Math.min(framed.length, at + frameBytes)));
  }

  /** RST_STREAM with an HTTP/2 error code (`HTTP2_ERROR` of the package). */
  sendReset(streamId: number, code: number): void {
    this.sendRaw(rstStreamFrame(streamId, code));
  }

  /** GOAWAY naming the last stream taken and an error code. */
  sendGoaway(lastStreamId: number, code: number): void {
    this.sendRaw(goawayFrame(lastStreamId, code));
  }

  /** WINDOW_UPDATE on a stream (0: the connection). */
  sendWindowUpdate(streamId: number, increment: number): void {
    this.sendRaw(windowUpdateFrame(streamId, increment));
  }

  /** PING with 8 bytes the client must echo. */
  sendPing(opaque: Buffer): void {
    this.sendRaw(pingFrame(opaque, false));
  }

  /** The next request the client opens (or one it opened already and no one took). */
  nextRequest(): Promise<ReceivedRequest> {
    const ready = this.#requests.shift();
    if (ready) return Promise.resolve(ready);
    return new Promise((resolve) => this.#requestWaiters.push(resolve));
  }

  /** The first frame received (now or later) that `match` accepts. */
  waitForFrame(match: (f: ReceivedFrame) => boolean): Promise<ReceivedFrame> {
    const seen = this.frames.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.#waiters.push({ match, resolve }));
  }

  /** The gRPC messages the client sent on a stream so far (its DATA, unframed). */
  messagesOn(streamId: number): Buffer[] {
    const bytes = Buffer.concat(
      this.frames
        .filter((f) => f.type === FRAME.DATA && f.streamId === streamId)
        .map((f) =>
          f.flags & FLAG.PADDED ? f.payload.subarray(1, f.payload.length - f.payload[0]!) : f.payload,
        ),
    );
    const out: Buffer[] = [];
    for (let at = 0; at + 5 <= bytes.length;) {
      const length = bytes.readUInt32BE(at + 1);
      out.push(bytes.subarray(at + 5, at + 5 + length));
      at += 5 + length;
    }
    return out;
  }

  /** Closes the socket at once (a crashed server). */
  destroy(): void {
    this.socket.destroy();
  }

  #onData(chunk: Buffer): void {
    this.#buffered = this.#buffered.length === 0 ? chunk : Buffer.concat([this.#buffered, chunk]);
    if (!this.#prefaceSeen) {
      if (this.#buffered.length < CLIENT_PREFACE.length) return;
      if (!this.#buffered.subarray(0, CLIENT_PREFACE.length).equals(CLIENT_PREFACE)) {
        this.socket.destroy();
        return;
      }
      this.#prefaceSeen = true;
      this.#buffered = this.#buffered.subarray(CLIENT_PREFACE.length);
    }
    while (this.#buffered.length >= FRAME_HEADER_BYTES) {
      const b = this.#buffered;
      const length = (b[0]! << 16) | (b[1]! << 8) | b[2]!;
      if (b.length < FRAME_HEADER_BYTES + length) return;
      const frame: ReceivedFrame = {
        type: b[3]!,
        flags: b[4]!,
        streamId: b.readUInt32BE(5) & 0x7fffffff,
        payload: Buffer.from(b.subarray(FRAME_HEADER_BYTES, FRAME_HEADER_BYTES + length)),
      };
      this.#buffered = b.subarray(FRAME_HEADER_BYTES + length);
      this.#onFrame(frame);
    }
  }

  #onFrame(frame: ReceivedFrame): void {
    this.frames.push(frame);
    if (frame.type === FRAME.SETTINGS && !(frame.flags & FLAG.ACK)) this.sendRaw(settingsAckFrame());
    // The client's request blocks come whole in one HEADERS frame (its blocks are a few dozen bytes).
    if (frame.type === FRAME.HEADERS) {
      const request = { streamId: frame.streamId, headers: this.#decoder.decode(frame.payload) };
      const waiter = this.#requestWaiters.shift();
      if (waiter) waiter(request);
      else this.#requests.push(request);
    }
    for (let i = 0; i < this.#waiters.length; i++) {
      const w = this.#waiters[i]!;
      if (w.match(frame)) {
        this.#waiters.splice(i--, 1);
        w.resolve(frame);
      }
    }
  }
}

/** A frame server listening on loopback. */
export interface FrameServer {
  /** The port it listens on (127.0.0.1). */
  readonly port: number;
  /** `127.0.0.1:<port>`. */
  readonly address: string;
  /** The next connection a client opens. */
  nextPeer(): Promise<FrameServerPeer>;
  /** Closes every connection and the listener. */
  close(): Promise<void>;
}

/**
 * Starts a frame server on 127.0.0.1 (port 0). Each connection sends the server's SETTINGS
 * (`settings`, default none) unless `sendSettings` is false, and acknowledges the client's.
 */
export async function startFrameServer(
  options: { settings?: ReadonlyArray<readonly [number, number]>; sendSettings?: boolean } = {},
): Promise<FrameServer> {
  const peers: FrameServerPeer[] = [];
  const waiters: Array<(p: FrameServerPeer) => void> = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.setNoDelay(true);
    socket.on('close', () => sockets.delete(socket));
    const peer = new FrameServerPeer(socket);
    if (options.sendSettings !== false) peer.sendSettings(options.settings ?? []);
    const waiter = waiters.shift();
    if (waiter) waiter(peer);
    else peers.push(peer);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    address: `127.0.0.1:${port}`,
    nextPeer: () => {
      const ready = peers.shift();
      if (ready) return Promise.resolve(ready);
      return new Promise((resolve) => waiters.push(resolve));
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function grpcPrefix(length: number): Buffer {
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(length, 1);
  return prefix;
}
