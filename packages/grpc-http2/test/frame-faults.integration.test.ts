// The session against a server that sends exactly the frames each test needs (`/testing`'s frame
// server): what HTTP/2 allows a server to do that grpc-js and Netty rarely do, and what it forbids.
import { Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { GrpcCallError } from '@fastpath/grpc-http2';
import { GrpcHttp2Session, HTTP2_ERROR, Http2ProtocolError, type GrpcHttp2Call } from '@fastpath/grpc-http2';
import {
  FLAG,
  FRAME,
  SETTING,
  startFrameServer,
  type FrameServer,
  type FrameServerPeer,
} from '@fastpath/grpc-http2/testing';

const OK = 0;
const CANCELLED = 1;
const RESOURCE_EXHAUSTED = 8;
const INTERNAL = 13;
const UNAVAILABLE = 14;

interface Outcome {
  messages: Buffer[];
  error: GrpcCallError | undefined;
}

function outcome(call: GrpcHttp2Call): Promise<Outcome> {
  const messages: Buffer[] = [];
  call.on('data', (m) => messages.push(Buffer.from(m)));
  return new Promise((resolve) => {
    call.on('end', () => resolve({ messages, error: undefined }));
    call.on('error', (error) => resolve({ messages, error }));
  });
}

function framed(message: Buffer, flag = 0): Buffer {
  const prefix = Buffer.alloc(5);
  prefix[0] = flag;
  prefix.writeUInt32BE(message.length, 1);
  return Buffer.concat([prefix, message]);
}

let server: FrameServer;
let session: GrpcHttp2Session | undefined;

async function connect(
  options: {
    settings?: Array<[number, number]>;
    session?: Partial<ConstructorParameters<typeof GrpcHttp2Session>[0]>;
  } = {},
): Promise<{ session: GrpcHttp2Session; peer: FrameServerPeer }> {
  await server.close();
  server = await startFrameServer(options.settings ? { settings: options.settings } : {});
  session = new GrpcHttp2Session({ address: server.address, peer: 'the test server', ...options.session });
  // The session connects as it is built; the peer is there once the socket is accepted.
  const peer = await server.nextPeer();
  return { session, peer };
}

beforeEach(async () => {
  server = await startFrameServer();
});

afterEach(async () => {
  session?.destroy();
  session = undefined;
  await server.close();
});

describe('what the session sends', () => {
  it('opens with the preface, its SETTINGS and the wider connection window, then a request with gRPC headers', async () => {
    const { session, peer } = await connect({
      session: { maxFrameBytes: 1 << 20, streamWindowBytes: 2 << 20, connectionWindowBytes: 8 << 20 },
    });
    const settings = await peer.waitForFrame((f) => f.type === FRAME.SETTINGS && !(f.flags & FLAG.ACK));
    expect(settings.streamId).toBe(0);
    // (ENABLE_PUSH 0) (INITIAL_WINDOW_SIZE 2 MiB) (MAX_FRAME_SIZE 1 MiB) (MAX_HEADER_LIST_SIZE 64 KiB)
    expect(settings.payload.toString('hex')).toBe(
      '000200000000' + '000400200000' + '000500100000' + '000600010000',
    );
    const widen = await peer.waitForFrame((f) => f.type === FRAME.WINDOW_UPDATE);
    expect(widen.streamId).toBe(0);
    expect(widen.payload.readUInt32BE(0)).toBe((8 << 20) - 65_535);

    const call = session.openCall('/pkg.Service/Method', { 'x-extra': 'yes' });
    call.write(Buffer.from('hello'));
    call.end();
    const request = await peer.nextRequest();
    expect(request.streamId).toBe(1);
    expect(request.headers).toEqual([
      [':method', 'POST'],
      [':scheme', 'http'],
      [':path', '/pkg.Service/Method'],
      [':authority', server.address],
      ['content-type', 'application/grpc'],
      ['te', 'trailers'],
      ['x-extra', 'yes'],
    ]);
    await peer.waitForFrame((f) => f.type === FRAME.DATA && (f.flags & FLAG.END_STREAM) !== 0);
    expect(peer.messagesOn(1)).toEqual([Buffer.from('hello')]);
    // Stream ids go up by two.
    session.openCall('/pkg.Service/Method');
    expect((await peer.nextRequest()).streamId).toBe(3);
  });

  it('keeps to the send windows and frame size the server allows, and goes on when it widens them', async () => {
    const { session, peer } = await connect({ settings: [[SETTING.INITIAL_WINDOW_SIZE, 1000]] });
    await peer.waitForFrame((f) => f.type === FRAME.SETTINGS && (f.flags & FLAG.ACK) !== 0);
    const call = session.openCall('/pkg.Service/Method');
    const message = Buffer.alloc(100_000, 7);
    call.write(message);
    call.end();
    const { streamId } = await peer.nextRequest();
    await peer.waitForFrame((f) => f.type === FRAME.DATA && f.streamId === streamId);
    // Give the session the chance to overrun: a PING round trip after the first DATA.
    peer.sendPing(Buffer.alloc(8, 1));
    await peer.waitForFrame((f) => f.type === FRAME.PING && (f.flags & FLAG.ACK) !== 0);
    const sentBytes = () =>
      peer.frames
        .filter((f) => f.type === FRAME.DATA && f.streamId === streamId)
        .reduce((n, f) => n + f.payload.length, 0);
    expect(sentBytes()).toBe(1000);
    peer.sendWindowUpdate(streamId, 200_000);
    // Now the connection's window (65 535) holds it back.
    await peer.waitForFrame(() => sentBytes() === 65_535);
    peer.sendWindowUpdate(0, 100_000);
    await peer.waitForFrame((f) => f.type === FRAME.DATA && (f.flags & FLAG.END_STREAM) !== 0);
    expect(sentBytes()).toBe(100_005);
    expect(peer.messagesOn(streamId)).toEqual([message]);
    for (const f of peer.frames.filter((f) => f.type === FRAME.DATA))
      expect(f.payload.length).toBeLessThanOrEqual(16_384);
  });

  it('sends what one turn of the event loop writes in one system call', async () => {
    const { session, peer } = await connect();
    if (!session.connected) await new Promise<void>((resolve) => session.once('connect', () => resolve()));
    await new Promise((resolve) => setImmediate(resolve));
    // Node hands a corked socket's writes to the handle together (one writev); each write alone
    // goes through _write. Only the session's socket (its peer is the server's port) is counted.
    const sends: string[] = [];
    const ours = (socket: Socket) => socket.remotePort === server.port;
    const proto = Socket.prototype as unknown as Record<'_writev' | '_write', (...a: unknown[]) => void>;
    const original = { writev: proto._writev, write: proto._write };
    proto._writev = function (this: Socket, ...args: unknown[]) {
      if (ours(this)) sends.push('writev');
      return original.writev.apply(this, args);
    };
    proto._write = function (this: Socket, ...args: unknown[]) {
      if (ours(this)) sends.push('write');
      return original.write.apply(this, args);
    };
    try {
      for (let i = 0; i < 20; i++) {
        const call = session.openCall('/pkg.Service/Method');
        call.write(Buffer.from(`request ${i}`));
        call.end();
      }
      for (let i = 0; i < 20; i++) await peer.nextRequest();
      // 20 HEADERS and 40 DATA frames: one send of them joined (without holding the writes: one
      // per call or more; corked, one writev of 60 chunks).
      expect(sends).toEqual(['write']);
    } finally {
      proto._writev = original.writev;
      proto._write = original.write;
    }
  });

  it('answers a PING with its payload', async () => {
    const { peer } = await connect();
    peer.sendPing(Buffer.from('01234567'));
    const ack = await peer.waitForFrame((f) => f.type === FRAME.PING && (f.flags & FLAG.ACK) !== 0);
    expect(ack.payload.toString()).toBe('01234567');
  });

  it('opens no more streams than SETTINGS_MAX_CONCURRENT_STREAMS; the others wait their turn', async () => {
    const { session, peer } = await connect({ settings: [[SETTING.MAX_CONCURRENT_STREAMS, 1]] });
    await peer.waitForFrame((f) => f.type === FRAME.SETTINGS && (f.flags & FLAG.ACK) !== 0);
    const calls = [0, 1, 2].map(() => {
      const call = session.openCall('/pkg.Service/Method');
      call.write(Buffer.from('x'));
      call.end();
      return outcome(call);
    });
    expect(session.activeCalls).toBe(3);
    for (const id of [1, 3, 5]) {
      const request = await peer.nextRequest();
      expect(request.streamId).toBe(id);
      expect(peer.frames.filter((f) => f.type === FRAME.HEADERS)).toHaveLength((id + 1) / 2);
      await peer.waitForFrame(
        (f) => f.type === FRAME.DATA && f.streamId === id && (f.flags & FLAG.END_STREAM) !== 0,
      );
      peer.sendResponseHeaders(id);
      peer.sendTrailers(id, OK);
    }
    for (const o of await Promise.all(calls)) expect(o.error).toBeUndefined();
  });
});

describe('what the server may send', () => {
  it('reads padded DATA, a header block cut into CONTINUATIONs, and messages cut anywhere', async () => {
    const { session, peer } = await connect();
    const call = session.openCall('/pkg.Service/Method');
    const done = outcome(call);
    const { streamId } = await peer.nextRequest();
    peer.sendHeaders(
      streamId,
      [
        [':status', '200'],
        ['content-type', 'application/grpc'],
        ['x-long', 'v'.repeat(300)],
      ],
      { maxFrameBytes: 100 },
    );
    const bytes = Buffer.concat([
      framed(Buffer.from('first')),
      framed(Buffer.alloc(40_000, 3)),
      framed(Buffer.alloc(0)),
    ]);
    // Cut at odd places, some frames padded.
    const cuts = [1, 3, 5, 6, 20, 16_000, 30_000, bytes.length];
    let from = 0;
    cuts.forEach((to, i) => {
      peer.sendData(streamId, bytes.subarray(from, to), i % 2 === 0 ? { padding: i * 3 } : {});
      from = to;
    });
    peer.sendHeaders(
      streamId,
      [
        ['grpc-status', '0'],
        ['x-trailer', 't'.repeat(200)],
      ],
      { endStream: true, maxFrameBytes: 64 },
    );
    const o = await done;
    expect(o.error).toBeUndefined();
    expect(o.messages).toEqual([Buffer.from('first'), Buffer.alloc(40_000, 3), Buffer.alloc(0)]);
  });

  it('ends this side cleanly (END_STREAM, not a reset) when the server ends a stream still open here', async () => {
    const { session, peer } = await connect();
    const call = session.openCall('/pkg.Service/Method');
    const done = outcome(call);
    call.write(Buffer.from('a'));
    const { streamId } = await peer.nextRequest();
    peer.sendResponseHeaders(streamId);
    peer.sendTrailers(streamId, OK);
    expect((await done).error).toBeUndefined();
    const end = await peer.waitForFrame((f) => f.type === FRAME.DATA && (f.flags & FLAG.END_STREAM) !== 0);
    expect(end.payload.length).toBe(0);
    expect(peer.frames.some((f) => f.type === FRAME.RST_STREAM)).toBe(false);
    expect(session.activeCalls).toBe(0);
  });

  it.each([
    [HTTP2_ERROR.REFUSED_STREAM, UNAVAILABLE],
    [HTTP2_ERROR.CANCEL, CANCELLED],
    [HTTP2_ERROR.ENHANCE_YOUR_CALM, RESOURCE_EXHAUSTED],
    [HTTP2_ERROR.PROTOCOL_ERROR, INTERNAL],
    [HTTP2_ERROR.INTERNAL_ERROR, INTERNAL],
  ])(
    'maps RST_STREAM %i to gRPC status %i, the reset code on the error, and the session goes on',
    async (http2Code, grpcCode) => {
      const { session, peer } = await connect();
      const call = session.openCall('/pkg.Service/Method');
      const done = outcome(call);
      const { streamId } = await peer.nextRequest();
      peer.sendReset(streamId, http2Code);
      // The reset's own code: an INTERNAL the server answered and one its reset meant differ there.
      expect((await done).error).toMatchObject({ grpcCode, http2ResetCode: http2Code, trailers: [] });
      expect(session.accepting).toBe(true);
      expect(session.activeCalls).toBe(0);
    },
  );

  it('an INTERNAL status the server answered carries its trailers and no reset code', async () => {
    const { session, peer } = await connect();
    const done = outcome(session.openCall('/pkg.Service/Method'));
    const { streamId } = await peer.nextRequest();
    peer.sendResponseHeaders(streamId);
    peer.sendTrailers(streamId, INTERNAL, 'java.io.IOException: no');
    const { error } = await done;
    expect(error).toMatchObject({
      grpcCode: INTERNAL,
      details: 'java.io.IOException: no',
      http2ResetCode: undefined,
    });
    expect((error as GrpcCallError).trailer('grpc-status')).toBe(String(INTERNAL));
  });

  it('on GOAWAY: calls the server did not take fail UNAVAILABLE at once, the ones it took finish, then the session closes', async () => {
    const { session, peer } = await connect();
    const first = session.openCall('/pkg.Service/Method');
    const firstDone = outcome(first);
    const second = session.openCall('/pkg.Service/Method');
    const secondDone = outcome(second);
    await peer.nextRequest();
    await peer.nextRequest();
    const goaway = new Promise<number>((resolve) => session.once('goaway', resolve));
    peer.sendGoaway(1, HTTP2_ERROR.NO_ERROR);
    expect(await goaway).toBe(HTTP2_ERROR.NO_ERROR);
    expect((await secondDone).error).toMatchObject({ grpcCode: UNAVAILABLE });
    expect(session.accepting).toBe(false);
    const late = await outcome(session.openCall('/pkg.Service/Method'));
    expect(late.error).toMatchObject({ grpcCode: UNAVAILABLE, details: 'the connection is going away' });
    peer.sendResponseHeaders(1);
    peer.sendMessages(1, [Buffer.from('answer')]);
    peer.sendTrailers(1, OK);
    const o = await firstDone;
    expect(o.error).toBeUndefined();
    expect(o.messages).toEqual([Buffer.from('answer')]);
    // Its last call done, the session says GOAWAY itself and ends the socket.
    await peer.waitForFrame((f) => f.type === FRAME.GOAWAY);
    await new Promise<void>((resolve) => session.once('close', () => resolve()));
  });

  it('fails calls UNAVAILABLE when the server goes mid-message', async () => {
    const { session, peer } = await connect();
    const call = session.openCall('/pkg.Service/Method');
    const done = outcome(call);
    const { streamId } = await peer.nextRequest();
    peer.sendResponseHeaders(streamId);
    peer.sendData(streamId, framed(Buffer.alloc(10_000)).subarray(0, 5_000));
    await new Promise((resolve) => setImmediate(resolve));
    peer.destroy();
    const o = await done;
    expect(o.error).toMatchObject({ grpcCode: UNAVAILABLE, retriable: true });
    expect(o.error?.details).toMatch(/^the connection to the test server was lost/);
  });

  it.each([
    [
      'END_STREAM inside a message',
      (p: FrameServerPeer, id: number) => {
        p.sendData(id, framed(Buffer.alloc(100)).subarray(0, 50));
        p.sendTrailers(id, OK);
      },
      INTERNAL,
      'the stream ended inside a message',
    ],
    [
      'END_STREAM without a gRPC status',
      (p: FrameServerPeer, id: number) => p.sendData(id, Buffer.alloc(0), { endStream: true }),
      INTERNAL,
      'the stream ended without a gRPC status',
    ],
    [
      'a compressed message',
      (p: FrameServerPeer, id: number) => p.sendData(id, framed(Buffer.from('zz'), 1)),
      INTERNAL,
      'a compressed message (no compression was offered)',
    ],
    [
      'a message over the bound',
      (p: FrameServerPeer, id: number) => p.sendData(id, framed(Buffer.alloc(2000))),
      RESOURCE_EXHAUSTED,
      'a message of 2000 bytes, more than the 1000 allowed',
    ],
  ])('fails the call on %s', async (_what, send, grpcCode, details) => {
    const { session, peer } = await connect({ session: { maxReceiveMessageBytes: 1000 } });
    const call = session.openCall('/pkg.Service/Method');
    const done = outcome(call);
    const { streamId } = await peer.nextRequest();
    peer.sendResponseHeaders(streamId);
    send(peer, streamId);
    expect((await done).error).toMatchObject({ grpcCode, details });
  });

  it('maps an HTTP error status without a gRPC status (503: UNAVAILABLE)', async () => {
    const { session, peer } = await connect();
    const done = outcome(session.openCall('/pkg.Service/Method'));
    const { streamId } = await peer.nextRequest();
    peer.sendHeaders(streamId, [[':status', '503']], { endStream: true });
    expect((await done).error).toMatchObject({ grpcCode: UNAVAILABLE, details: 'HTTP status 503' });
  });
});

describe('what the server must not send', () => {
  async function expectConnectionError(
    send: (peer: FrameServerPeer, streamId: number) => void,
    http2Code: number,
    options: Parameters<typeof connect>[0] = {},
  ): Promise<void> {
    const { session, peer } = await connect(options);
    const call = session.openCall('/pkg.Service/Method');
    const done = outcome(call);
    const { streamId } = await peer.nextRequest();
    send(peer, streamId);
    const goaway = await peer.waitForFrame((f) => f.type === FRAME.GOAWAY);
    expect(goaway.payload.readUInt32BE(4)).toBe(http2Code);
    const o = await done;
    expect(o.error).toMatchObject({ grpcCode: INTERNAL });
    expect(o.error?.cause).toBeInstanceOf(Http2ProtocolError);
    expect(o.error?.cause).toMatchObject({ http2Code });
    expect(session.accepting).toBe(false);
  }

  it('a frame larger than SETTINGS_MAX_FRAME_SIZE: FRAME_SIZE_ERROR', () =>
    expectConnectionError((p, id) => p.sendData(id, Buffer.alloc(16_385)), HTTP2_ERROR.FRAME_SIZE_ERROR));

  it('a header block that is not HPACK (index 0): COMPRESSION_ERROR', () =>
    expectConnectionError((p, id) => {
      const frame = Buffer.alloc(10);
      frame.writeUIntBE(1, 0, 3);
      frame[3] = FRAME.HEADERS;
      frame[4] = FLAG.END_HEADERS;
      frame.writeUInt32BE(id, 5);
      frame[9] = 0x80;
      p.sendRaw(frame);
    }, HTTP2_ERROR.COMPRESSION_ERROR));

  it('DATA beyond the connection window: FLOW_CONTROL_ERROR', () =>
    expectConnectionError((p, id) => p.sendData(id, Buffer.alloc(70_000)), HTTP2_ERROR.FLOW_CONTROL_ERROR, {
      session: { maxFrameBytes: 1 << 20, connectionWindowBytes: 65_535, streamWindowBytes: 1 << 20 },
    }));

  it('a frame between HEADERS and its CONTINUATION: PROTOCOL_ERROR', () =>
    expectConnectionError((p, id) => {
      p.sendHeaders(
        id,
        [
          [':status', '200'],
          ['x', 'y'.repeat(100)],
        ],
        { maxFrameBytes: 20, huffman: false },
      );
      // sendHeaders sent the whole block; a frame inside another block's CONTINUATIONs:
      const frame = Buffer.alloc(9 + 4);
      frame.writeUIntBE(4, 0, 3);
      frame[3] = FRAME.HEADERS;
      frame.writeUInt32BE(id, 5);
      p.sendRaw(frame);
      p.sendPing(Buffer.alloc(8));
    }, HTTP2_ERROR.PROTOCOL_ERROR));

  it('PUSH_PROMISE (push is off): PROTOCOL_ERROR', () =>
    expectConnectionError((p, id) => {
      const frame = Buffer.alloc(9 + 4);
      frame.writeUIntBE(4, 0, 3);
      frame[3] = FRAME.PUSH_PROMISE;
      frame[4] = FLAG.END_HEADERS;
      frame.writeUInt32BE(id, 5);
      frame.writeUInt32BE(2, 9);
      p.sendRaw(frame);
    }, HTTP2_ERROR.PROTOCOL_ERROR));

  it('DATA beyond a stream window fails that call only (RST_STREAM FLOW_CONTROL_ERROR)', async () => {
    const { session, peer } = await connect({
      session: { maxFrameBytes: 1 << 20, streamWindowBytes: 65_535, connectionWindowBytes: 1 << 20 },
    });
    const done = outcome(session.openCall('/pkg.Service/Method'));
    const { streamId } = await peer.nextRequest();
    peer.sendResponseHeaders(streamId);
    peer.sendData(streamId, Buffer.alloc(70_000));
    expect((await done).error).toMatchObject({ grpcCode: INTERNAL });
    const rst = await peer.waitForFrame((f) => f.type === FRAME.RST_STREAM);
    expect(rst.payload.readUInt32BE(0)).toBe(HTTP2_ERROR.FLOW_CONTROL_ERROR);
    expect(session.accepting).toBe(true);
  });

  it('a first frame other than SETTINGS: PROTOCOL_ERROR', async () => {
    await server.close();
    server = await startFrameServer({ sendSettings: false });
    session = new GrpcHttp2Session({ address: server.address });
    const peer = await server.nextPeer();
    const done = outcome(session.openCall('/pkg.Service/Method'));
    peer.sendPing(Buffer.alloc(8));
    const goaway = await peer.waitForFrame((f) => f.type === FRAME.GOAWAY);
    expect(goaway.payload.readUInt32BE(4)).toBe(HTTP2_ERROR.PROTOCOL_ERROR);
    expect((await done).error).toMatchObject({ grpcCode: INTERNAL });
  });

  it('no SETTINGS at all: UNAVAILABLE after connectTimeoutMs', async () => {
    await server.close();
    server = await startFrameServer({ sendSettings: false });
    session = new GrpcHttp2Session({
      address: server.address,
      connectTimeoutMs: 200,
      peer: 'the test server',
    });
    const o = await outcome(session.openCall('/pkg.Service/Method'));
    expect(o.error).toMatchObject({ grpcCode: UNAVAILABLE });
    expect(o.error?.details).toBe(
      'no connection to the test server was established: no HTTP/2 connection to the test server within 200 ms',
    );
  });
});
