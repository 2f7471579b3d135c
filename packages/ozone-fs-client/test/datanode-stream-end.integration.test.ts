// A datanode command's stream ends the way Ozone's own client ends it: half-closed after the
// request, and left for the datanode to finish after the answer. The client used to cancel the
// stream (RST_STREAM) as soon as the answer arrived; at thousands of reads per second that trips
// the server's HTTP/2 rapid-reset limit, which closes the whole session and fails every read in
// flight on it (the ozone-read benchmark saw 64 failovers in 4,800 reads on one stream). The
// server here speaks gRPC over Node's own HTTP/2 so that it can see how each stream closes: it
// answers at once and sends the status a little later.
import { createServer, constants, type Http2Server, type ServerHttp2Stream } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { waitFor } from '@fastpath/test-support';
import { DatanodeChannel } from '../src/internal/grpc/datanode-channel.js';
import { dn, int64 } from '../src/internal/proto/wire.js';

const ANSWER_TO_STATUS_MS = 200;
const COMMANDS = 20;
let server: Http2Server;
let port: number;
/** How each stream closed: 0 when both sides ended it, 8 (CANCEL) when the client reset it. */
const closeCodes: number[] = [];

function grpcFrame(message: Uint8Array): Buffer {
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, 5);
  return frame;
}

beforeAll(async () => {
  server = createServer();
  server.on('stream', (stream: ServerHttp2Stream) => {
    stream.on('close', () => closeCodes.push(stream.rstCode));
    stream.on('error', () => undefined);
    stream.once('data', () => {
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      const answer = dn.ContainerCommandResponseProto.encode({
        cmdType: dn.Type.Echo,
        result: dn.Result.SUCCESS,
        echo: { payload: Buffer.alloc(16) },
      }).finish();
      stream.write(grpcFrame(answer));
      setTimeout(() => {
        if (!stream.destroyed) stream.end();
      }, ANSWER_TO_STATUS_MS);
    });
    stream.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

it('resets no stream: every command is answered and its stream ends by the datanode', async () => {
  const channel = new DatanodeChannel(`127.0.0.1:${port}`, {
    maxReceiveBytes: 1 << 20,
    maxInFlight: 32,
    tls: undefined,
    reconnectBackoffMs: 1000,
  });
  try {
    const request = { cmdType: dn.Type.Echo, containerID: int64(1n), datanodeUuid: 'dn-1', echo: {} };
    const answers = await Promise.all(Array.from({ length: COMMANDS }, () => channel.send(request, 10_000)));
    expect(answers.every((a) => a.cmdType === dn.Type.Echo && a.result === dn.Result.SUCCESS)).toBe(true);
    await waitFor('every stream closed', () => closeCodes.length === COMMANDS);
    expect(closeCodes).toEqual(Array.from({ length: COMMANDS }, () => constants.NGHTTP2_NO_ERROR));
  } finally {
    channel.close();
  }
});
