// The channel: one session at a time to one server, a new one for the calls after a session goes.
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { GrpcHttp2Channel, HTTP2_ERROR, type GrpcCallError, type GrpcHttp2Call } from '@fastpath/grpc-http2';
import {
  FRAME,
  startFrameServer,
  type FrameServer,
  type FrameServerPeer,
} from '@fastpath/grpc-http2/testing';

const OK = 0;
const UNAVAILABLE = 14;

function outcome(call: GrpcHttp2Call): Promise<{ messages: Buffer[]; error: GrpcCallError | undefined }> {
  const messages: Buffer[] = [];
  call.on('data', (m) => messages.push(Buffer.from(m)));
  return new Promise((resolve) => {
    call.on('end', () => resolve({ messages, error: undefined }));
    call.on('error', (error) => resolve({ messages, error }));
  });
}

/** Answers the next request on `peer` with `answer` and OK. */
async function answerNext(peer: FrameServerPeer, answer: string): Promise<void> {
  const { streamId } = await peer.nextRequest();
  peer.sendResponseHeaders(streamId);
  peer.sendMessages(streamId, [Buffer.from(answer)]);
  peer.sendTrailers(streamId, OK);
}

let server: FrameServer;
let channel: GrpcHttp2Channel | undefined;

beforeEach(async () => {
  server = await startFrameServer();
});

afterEach(async () => {
  channel?.close();
  channel = undefined;
  await server.close();
});

describe('GrpcHttp2Channel', () => {
  it('runs calls on one session, and after the server sends GOAWAY opens a new one for the next call', async () => {
    channel = new GrpcHttp2Channel({ address: server.address });
    const lost: string[] = [];
    channel.on('lost', () => lost.push('lost'));
    const first = outcome(channel.openCall('/pkg.Service/Method'));
    const peer1 = await server.nextPeer();
    await answerNext(peer1, 'one');
    const second = outcome(channel.openCall('/pkg.Service/Method'));
    await answerNext(peer1, 'two');
    expect((await first).messages).toEqual([Buffer.from('one')]);
    expect((await second).messages).toEqual([Buffer.from('two')]);

    peer1.sendGoaway(3, HTTP2_ERROR.NO_ERROR);
    await peer1.waitForFrame((f) => f.type === FRAME.GOAWAY);
    expect(lost).toEqual(['lost']);
    // The next call goes to a new connection.
    const third = outcome(channel.openCall('/pkg.Service/Method'));
    const peer2 = await server.nextPeer();
    expect(peer2).not.toBe(peer1);
    await answerNext(peer2, 'three');
    expect(await third).toEqual({ messages: [Buffer.from('three')], error: undefined });
  });

  it('opens a new session after the connection is lost; the call on the lost one failed UNAVAILABLE', async () => {
    channel = new GrpcHttp2Channel({ address: server.address });
    const lost = new Promise<void>((resolve) => channel!.once('lost', resolve));
    const first = outcome(channel.openCall('/pkg.Service/Method'));
    const peer1 = await server.nextPeer();
    await peer1.nextRequest();
    peer1.destroy();
    expect((await first).error).toMatchObject({ grpcCode: UNAVAILABLE });
    await lost;
    const second = outcome(channel.openCall('/pkg.Service/Method'));
    await answerNext(await server.nextPeer(), 'again');
    expect((await second).messages).toEqual([Buffer.from('again')]);
  });

  it('lets the open calls finish on close; calls after it fail UNAVAILABLE without connecting', async () => {
    channel = new GrpcHttp2Channel({ address: server.address });
    const open = outcome(channel.openCall('/pkg.Service/Method'));
    const peer = await server.nextPeer();
    const { streamId } = await peer.nextRequest();
    channel.close();
    peer.sendResponseHeaders(streamId);
    peer.sendMessages(streamId, [Buffer.from('done')]);
    peer.sendTrailers(streamId, OK);
    expect(await open).toEqual({ messages: [Buffer.from('done')], error: undefined });
    const late = await outcome(channel.openCall('/pkg.Service/Method'));
    expect(late.error).toMatchObject({ grpcCode: UNAVAILABLE, details: 'the channel is closed' });
  });

  it('unary(): two answers fail INTERNAL and reset the stream; an OK with no answer fails INTERNAL', async () => {
    channel = new GrpcHttp2Channel({ address: server.address });
    const twice = channel.unary('/pkg.Service/Method', Buffer.from('q1'));
    const peer = await server.nextPeer();
    const first = await peer.nextRequest();
    expect(peer.messagesOn(first.streamId)).toEqual([Buffer.from('q1')]);
    peer.sendResponseHeaders(first.streamId);
    peer.sendMessages(first.streamId, [Buffer.from('a'), Buffer.from('b')]);
    await expect(twice).rejects.toMatchObject({
      grpcCode: 13,
      details: 'a unary call answered two messages',
    });
    await peer.waitForFrame((f) => f.type === FRAME.RST_STREAM && f.streamId === first.streamId);

    const none = channel.unary('/pkg.Service/Method', Buffer.from('q2'));
    const second = await peer.nextRequest();
    peer.sendResponseHeaders(second.streamId);
    peer.sendTrailers(second.streamId, OK);
    await expect(none).rejects.toMatchObject({ grpcCode: 13, details: 'the call ended without an answer' });
  });

  it('unary(): fails UNAVAILABLE when the connection is lost, and after close() without connecting', async () => {
    channel = new GrpcHttp2Channel({ address: server.address });
    const lostCall = channel.unary('/pkg.Service/Method', Buffer.from('q'), { deadlineMs: 60_000 });
    const peer = await server.nextPeer();
    await peer.nextRequest();
    peer.destroy();
    await expect(lostCall).rejects.toMatchObject({ grpcCode: UNAVAILABLE });
    channel.close();
    await expect(channel.unary('/pkg.Service/Method', Buffer.from('q'))).rejects.toMatchObject({
      grpcCode: UNAVAILABLE,
      details: 'the channel is closed',
    });
  });

  it('checks its options when built', () => {
    expect(() => new GrpcHttp2Channel({ address: 'dn1:9859', maxFrameBytes: 100 })).toThrow(/maxFrameBytes/);
  });
});
