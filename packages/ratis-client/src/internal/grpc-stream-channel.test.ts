import { once } from 'node:events';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import * as grpc from '@grpc/grpc-js';
import {
  GRPC_STATUS,
  type GrpcStreamCall,
  GrpcStreamChannel,
  type GrpcStreamChannelOptions,
  type StreamChannel,
  type StreamError,
  type StreamStatus,
} from './grpc-stream-channel.js';
import { SocketStreamChannel } from './socket-stream-channel.js';

const raw = (b: Buffer): Buffer => b;
const ECHO_PATH = '/test.Echo/stream';

/** A grpc-js server with one bidirectional method of raw bytes: echoes each message, or fails the call when asked. */
async function startEchoServer(): Promise<{ address: string; received: Buffer[]; close(): Promise<void> }> {
  const received: Buffer[] = [];
  const server = new grpc.Server({ 'grpc.max_receive_message_length': 64 << 20 });
  server.addService(
    {
      stream: {
        path: ECHO_PATH,
        requestStream: true,
        responseStream: true,
        requestSerialize: raw,
        requestDeserialize: raw,
        responseSerialize: raw,
        responseDeserialize: raw,
      },
    },
    {
      stream: (call: grpc.ServerDuplexStream<Buffer, Buffer>) => {
        call.on('data', (m: Buffer) => {
          received.push(Buffer.from(m));
          if (m.toString() === 'fail') {
            const metadata = new grpc.Metadata();
            metadata.set('exception-type', 'org.apache.ratis.protocol.exceptions.GroupMismatchException');
            call.emit('error', { code: grpc.status.INTERNAL, details: 'no such group: 50%', metadata });
            return;
          }
          call.write(Buffer.concat([Buffer.from('echo:'), m.subarray(0, 16)]));
        });
        call.on('end', () => call.end());
      },
    },
  );
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return {
    address: `127.0.0.1:${port}`,
    received,
    close: () => new Promise((resolve) => server.tryShutdown(() => resolve())),
  };
}

/** Everything a call emits, in order, until its status. */
function record(call: GrpcStreamCall): {
  data: Buffer[];
  errors: StreamError[];
  status: Promise<StreamStatus>;
} {
  const data: Buffer[] = [];
  const errors: StreamError[] = [];
  call.on('data', (m) => data.push(Buffer.from(m)));
  call.on('error', (e) => errors.push(e));
  return { data, errors, status: new Promise((resolve) => call.on('status', resolve)) };
}

const SIZES = { maxReceiveMessageBytes: 64 << 20, maxSendMessageBytes: 8 << 20 };

// Both sessions' channels keep the same contract: Node's http2 module and @fastpath/grpc-http2's.
describe.each([
  ['GrpcStreamChannel (Node http2)', GrpcStreamChannel],
  ['SocketStreamChannel (@fastpath/grpc-http2)', SocketStreamChannel],
] as Array<[string, new (address: string, options: GrpcStreamChannelOptions) => StreamChannel]>)(
  '%s',
  (_name, Channel) => {
    let server: Awaited<ReturnType<typeof startEchoServer>>;
    beforeAll(async () => {
      server = await startEchoServer();
    });
    afterAll(async () => {
      await server.close();
    });

    it('writes each message from its pieces, reads the replies, and ends with OK', async () => {
      const channel = new Channel(server.address, SIZES);
      try {
        const call = channel.openStream(ECHO_PATH);
        const seen = record(call);
        const before = server.received.length;
        call.write([Buffer.from('one '), new Uint8Array(0), new Uint8Array([116, 119, 111])]);
        call.write([Buffer.from('three')]);
        call.end();
        const status = await seen.status;
        expect(status.code).toBe(GRPC_STATUS.OK);
        expect(seen.errors).toEqual([]);
        expect(server.received.slice(before).map(String)).toEqual(['one two', 'three']);
        expect(seen.data.map(String)).toEqual(['echo:one two', 'echo:three']);
      } finally {
        channel.close();
      }
    });

    it('hands a large piece to HTTP/2 as it is: no copy of it on the way', async () => {
      const channel = new Channel(server.address, SIZES);
      const data = Buffer.alloc(4 << 20);
      for (let i = 0; i < data.length; i += 4096) data[i] = i % 251;
      const fromData = (src: unknown): boolean =>
        src instanceof Uint8Array && src.buffer === data.buffer && src.length > 0;
      const copy = jest.spyOn(Buffer.prototype, 'copy');
      const set = jest.spyOn(Uint8Array.prototype, 'set');
      const concat = jest.spyOn(Buffer, 'concat');
      const spies = [copy, set, concat];
      try {
        const call = channel.openStream(ECHO_PATH);
        const seen = record(call);
        const before = server.received.length;
        call.write([Buffer.from('head'), data]);
        // Every copy made while the message was written: its source is `this` for copy, the first
        // argument for set, each listed buffer for concat.
        const sources: unknown[] = [
          ...(copy.mock.contexts as unknown[]),
          ...set.mock.calls.map((args) => args[0]),
          ...concat.mock.calls.flatMap((args) => [...args[0]]),
        ];
        const copiedFromData = sources.filter(fromData).length;
        for (const spy of spies) spy.mockRestore();
        call.end();
        expect((await seen.status).code).toBe(GRPC_STATUS.OK);
        expect(copiedFromData).toBe(0);
        const got = server.received[before]!;
        expect(got.length).toBe(4 + data.length);
        expect(got.subarray(4).equals(data)).toBe(true);
      } finally {
        for (const spy of spies) spy.mockRestore();
        channel.close();
      }
    });

    it("fails a call with the server's status, message and trailers, then reports the status", async () => {
      const channel = new Channel(server.address, SIZES);
      try {
        const call = channel.openStream(ECHO_PATH);
        const seen = record(call);
        call.write([Buffer.from('fail')]);
        const status = await seen.status;
        expect(status.code).toBe(GRPC_STATUS.INTERNAL);
        expect(seen.errors).toHaveLength(1);
        expect(seen.errors[0]).toMatchObject({ code: GRPC_STATUS.INTERNAL, details: 'no such group: 50%' });
        expect(seen.errors[0]!.metadata.get('exception-type')).toEqual([
          'org.apache.ratis.protocol.exceptions.GroupMismatchException',
        ]);
      } finally {
        channel.close();
      }
    });

    it('refuses a message over the send limit with RESOURCE_EXHAUSTED, unsent', async () => {
      const channel = new Channel(server.address, { ...SIZES, maxSendMessageBytes: 10 });
      try {
        const call = channel.openStream(ECHO_PATH);
        const seen = record(call);
        const before = server.received.length;
        call.write([Buffer.alloc(6), Buffer.alloc(5)]);
        expect((await seen.status).code).toBe(GRPC_STATUS.RESOURCE_EXHAUSTED);
        expect(seen.errors[0]?.code).toBe(GRPC_STATUS.RESOURCE_EXHAUSTED);
        expect(server.received.length).toBe(before);
      } finally {
        channel.close();
      }
    });

    it('reports UNAVAILABLE when nothing listens, and after close', async () => {
      const probe = await startEchoServer();
      const address = probe.address;
      await probe.close();
      const channel = new Channel(address, SIZES);
      const call = channel.openStream(ECHO_PATH);
      const seen = record(call);
      expect((await seen.status).code).toBe(GRPC_STATUS.UNAVAILABLE);
      channel.close();
      const after = record(channel.openStream(ECHO_PATH));
      expect((await after.status).code).toBe(GRPC_STATUS.UNAVAILABLE);
    });

    it('cancels a call: CANCELLED once, however often asked', async () => {
      const channel = new Channel(server.address, SIZES);
      try {
        const call = channel.openStream(ECHO_PATH);
        const seen = record(call);
        call.write([Buffer.from('x')]);
        await once(call as unknown as NodeJS.EventEmitter, 'data');
        call.cancel();
        call.cancel();
        expect((await seen.status).code).toBe(GRPC_STATUS.CANCELLED);
        expect(seen.errors).toHaveLength(1);
      } finally {
        channel.close();
      }
    });

    it('gives up on a server that accepts and never speaks HTTP/2: UNAVAILABLE after connectTimeoutMs', async () => {
      const sockets: Socket[] = [];
      const silent = createServer((socket) => sockets.push(socket));
      silent.listen(0, '127.0.0.1');
      await once(silent, 'listening');
      const { port } = silent.address() as AddressInfo;
      const channel = new Channel(`127.0.0.1:${port}`, { ...SIZES, connectTimeoutMs: 300 });
      try {
        const seen = record(channel.openStream(ECHO_PATH));
        const status = await seen.status;
        expect(status.code).toBe(GRPC_STATUS.UNAVAILABLE);
        expect(sockets).toHaveLength(1);
        // The session was dropped: a later call opens a new connection (and fails the same way).
        const again = record(channel.openStream(ECHO_PATH));
        expect((await again.status).code).toBe(GRPC_STATUS.UNAVAILABLE);
        expect(sockets).toHaveLength(2);
      } finally {
        channel.close();
        for (const socket of sockets) socket.destroy();
        silent.close();
      }
    });
  },
);
