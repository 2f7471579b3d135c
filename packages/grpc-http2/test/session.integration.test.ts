// The session against a real gRPC server (grpc-js on Node's http2, i.e. nghttp2: HPACK with
// Huffman and its dynamic table, its own windows and frame sizes), plain and over TLS.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  Metadata,
  Server,
  ServerCredentials,
  status,
  type sendUnaryData,
  type ServerDuplexStream,
  type ServerUnaryCall,
  type ServiceDefinition,
} from '@grpc/grpc-js';
import { createTestCertificateAuthority, type TestCertificateAuthority } from '@fastpath/test-support';
import {
  GrpcCallError,
  GrpcHttp2Session,
  type GrpcHttp2Call,
  type GrpcHttp2SessionOptions,
} from '@fastpath/grpc-http2';

const raw = { serialize: (b: Buffer) => b, deserialize: (b: Buffer) => b };
const method = (path: string, streaming: boolean) => ({
  path,
  requestStream: streaming,
  responseStream: streaming,
  requestSerialize: raw.serialize,
  requestDeserialize: raw.deserialize,
  responseSerialize: raw.serialize,
  responseDeserialize: raw.deserialize,
});
const SERVICE = {
  echo: method('/test.Echo/echo', true),
  unary: method('/test.Echo/unary', false),
  commands: method('/test.Echo/commands', false),
} as unknown as ServiceDefinition;

/** The bidi echo's commands, by a request's first byte. */
const ECHO = 0x00;
const REPEAT = 0x01; // answer `count` (bytes 1-4) messages of `size` (bytes 5-8) bytes, then OK
const FAIL = 0x02; // end the call with status bytes[1] and the rest as its message
const HANG = 0x03; // answer nothing

/** A pattern every byte of which depends on its message and offset. */
function pattern(seed: number, size: number): Buffer {
  const out = Buffer.allocUnsafe(size);
  for (let i = 0; i < size; i++) out[i] = (seed * 31 + i * 7 + (i >>> 11)) & 0xff;
  return out;
}

function collect(call: GrpcHttp2Call): Promise<Buffer[]> {
  const messages: Buffer[] = [];
  call.on('data', (m) => messages.push(m));
  return new Promise((resolve, reject) => {
    call.on('end', () => resolve(messages));
    call.on('error', reject);
  });
}

let server: Server;
let plainAddress: string;
let tlsAddress: string;
let ca: TestCertificateAuthority;
const cancelled: string[] = [];

beforeAll(async () => {
  ca = await createTestCertificateAuthority();
  const cert = await ca.issue(['127.0.0.1', 'localhost']);
  server = new Server({
    'grpc.max_receive_message_length': 64 << 20,
    'grpc.max_send_message_length': 64 << 20,
  });
  server.addService(SERVICE, {
    echo: (call: ServerDuplexStream<Buffer, Buffer>) => {
      call.on('cancelled', () => cancelled.push('echo'));
      call.on('data', (m: Buffer) => {
        switch (m[0]) {
          case REPEAT: {
            const count = m.readUInt32BE(1);
            const size = m.readUInt32BE(5);
            for (let i = 0; i < count; i++) call.write(pattern(i, size));
            call.end();
            return;
          }
          case FAIL: {
            // Ratis names its exception's class in a trailer: the client reads it from there.
            const metadata = new Metadata();
            metadata.set('exception-type', 'test.NoSuchBlockException');
            call.emit('error', { code: m[1], details: m.subarray(2).toString('utf8'), metadata });
            return;
          }
          case HANG:
            return;
          default:
            call.write(m);
        }
      });
      call.on('end', () => call.end());
    },
    unary: (call: ServerUnaryCall<Buffer, Buffer>, done: sendUnaryData<Buffer>) => done(null, call.request),
    // A unary method that takes the echo's commands: FAIL and HANG, else it echoes.
    commands: (call: ServerUnaryCall<Buffer, Buffer>, done: sendUnaryData<Buffer>) => {
      const m = call.request;
      if (m[0] === FAIL) return done({ code: m[1] as status, details: m.subarray(2).toString('utf8') }, null);
      if (m[0] === HANG) return void call.on('cancelled', () => cancelled.push('unary'));
      done(null, m);
    },
  });
  const bind = (address: string, credentials: ServerCredentials) =>
    new Promise<number>((resolve, reject) =>
      server.bindAsync(address, credentials, (err, port) => (err ? reject(err) : resolve(port))),
    );
  plainAddress = `127.0.0.1:${await bind('127.0.0.1:0', ServerCredentials.createInsecure())}`;
  tlsAddress = `127.0.0.1:${await bind(
    '127.0.0.1:0',
    ServerCredentials.createSsl(null, [{ private_key: cert.key, cert_chain: cert.cert }]),
  )}`;
});

afterAll(async () => {
  server.forceShutdown();
  await ca.dispose();
});

describe.each([
  ['plain', false],
  ['TLS', true],
])('a session to grpc-js (%s)', (_name, tls) => {
  const open = (options: Partial<GrpcHttp2SessionOptions> = {}) =>
    new GrpcHttp2Session({
      address: tls ? tlsAddress : plainAddress,
      ...(tls ? { tls: { ca: ca.caCert } } : {}),
      ...options,
    });

  it('runs a unary call and a bidi call with many messages on one session', async () => {
    const session = open();
    const unary = session.openCall('/test.Echo/unary');
    const unaryAnswer = collect(unary);
    unary.write(Buffer.from([ECHO, 1, 2, 3]));
    unary.end();
    expect(await unaryAnswer).toEqual([Buffer.from([ECHO, 1, 2, 3])]);

    const bidi = session.openCall('/test.Echo/echo');
    const answers = collect(bidi);
    const sent = Array.from({ length: 50 }, (_, i) =>
      Buffer.concat([Buffer.from([ECHO]), pattern(i, 10 + i * 97)]),
    );
    for (const m of sent) bidi.write(m);
    bidi.end();
    expect(await answers).toEqual(sent);
    session.close();
  });

  it.each([16_384, 1 << 20, 16_777_215])(
    'reads 4 MiB answers whole and exact with SETTINGS_MAX_FRAME_SIZE %i, each into the buffer allocateMessage gives',
    async (maxFrameBytes) => {
      const given = new Set<Buffer>();
      const session = open({
        maxFrameBytes,
        maxReceiveMessageBytes: 8 << 20,
        streamWindowBytes: 8 << 20,
        connectionWindowBytes: 16 << 20,
        allocateMessage: (length) => {
          const b = Buffer.allocUnsafe(length);
          given.add(b);
          return b;
        },
      });
      const call = session.openCall('/test.Echo/echo');
      const answers = collect(call);
      const request = Buffer.alloc(9);
      request[0] = REPEAT;
      request.writeUInt32BE(3, 1);
      request.writeUInt32BE(4 << 20, 5);
      call.write(request);
      call.end();
      const messages = await answers;
      expect(messages.map((m) => m.length)).toEqual([4 << 20, 4 << 20, 4 << 20]);
      messages.forEach((m, i) => expect(m.equals(pattern(i, 4 << 20))).toBe(true));
      for (const m of messages) expect(given.has(m)).toBe(true);
      session.close();
    },
  );

  it('sends a 20 MiB message through the server windows and reads it back (flow control both ways)', async () => {
    const session = open({ maxReceiveMessageBytes: 32 << 20 });
    const call = session.openCall('/test.Echo/echo');
    const answers = collect(call);
    const big = Buffer.concat([Buffer.from([ECHO]), pattern(9, 20 << 20)]);
    call.write(big);
    call.end();
    const [echoed] = await answers;
    expect(echoed?.equals(big)).toBe(true);
    session.close();
  });

  it("ends a call with the server's status and its percent-encoded message", async () => {
    const session = open();
    const call = session.openCall('/test.Echo/echo');
    const answers = collect(call);
    call.write(Buffer.concat([Buffer.from([FAIL, status.NOT_FOUND]), Buffer.from('no such block: ü 100%')]));
    const err = await answers.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(GrpcCallError);
    expect(err).toMatchObject({
      grpcCode: status.NOT_FOUND,
      details: 'no such block: ü 100%',
      code: 'ERR_GRPC_CALL',
    });
    // The trailers the status came in, as sent.
    expect((err as GrpcCallError).trailer('exception-type')).toBe('test.NoSuchBlockException');
    expect((err as GrpcCallError).trailers).toContainEqual(['grpc-status', String(status.NOT_FOUND)]);
    session.close();
  });

  it('sends a message given as pieces as their concatenation, empty pieces included', async () => {
    const session = open({ maxReceiveMessageBytes: 16 << 20 });
    const call = session.openCall('/test.Echo/echo');
    const answers = collect(call);
    const pieces = [
      Buffer.from([ECHO]),
      pattern(1, 70_000),
      Buffer.alloc(0),
      pattern(2, 5 << 20),
      new Uint8Array([9]),
    ];
    call.write(pieces);
    call.write([Buffer.from([ECHO, 4])]);
    call.end();
    const echoed = await answers;
    expect(echoed).toHaveLength(2);
    expect(echoed[0]!.equals(Buffer.concat(pieces))).toBe(true);
    expect(echoed[1]).toEqual(Buffer.from([ECHO, 4]));
    session.close();
  });

  it('answers UNIMPLEMENTED for an unknown method (a trailers-only answer)', async () => {
    const session = open();
    const call = session.openCall('/test.Echo/nothing');
    const answers = collect(call);
    call.write(Buffer.from([1]));
    call.end();
    await expect(answers).rejects.toMatchObject({ grpcCode: status.UNIMPLEMENTED });
    session.close();
  });

  it('cancels a call: CANCELLED here, and the server sees it cancelled', async () => {
    const session = open();
    const call = session.openCall('/test.Echo/echo');
    const answers = collect(call);
    call.write(Buffer.from([ECHO, 7]));
    const first = await new Promise<Buffer>((resolve) => call.once('data', resolve));
    expect(first).toEqual(Buffer.from([ECHO, 7]));
    const before = cancelled.length;
    call.write(Buffer.from([HANG]));
    call.cancel();
    await expect(answers).rejects.toMatchObject({ grpcCode: status.CANCELLED });
    await new Promise<void>((resolve) => {
      const check = () => (cancelled.length > before ? resolve() : setTimeout(check, 10));
      check();
    });
    // The session goes on serving other calls.
    const next = session.openCall('/test.Echo/unary');
    const nextAnswer = collect(next);
    next.write(Buffer.from([5]));
    next.end();
    expect(await nextAnswer).toEqual([Buffer.from([5])]);
    session.close();
  });

  it('runs 200 calls at once on one session', async () => {
    const session = open();
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => {
        const call = session.openCall('/test.Echo/unary');
        const answer = collect(call);
        call.write(pattern(i, 1000 + i));
        call.end();
        return answer;
      }),
    );
    results.forEach((r, i) => expect(r[0]?.equals(pattern(i, 1000 + i))).toBe(true));
    session.close();
  });
});

describe.each([
  ['plain', false],
  ['TLS', true],
])('unary() on a session to grpc-js (%s)', (_name, tls) => {
  const open = () =>
    new GrpcHttp2Session({
      address: tls ? tlsAddress : plainAddress,
      ...(tls ? { tls: { ca: ca.caCert } } : {}),
    });

  it('runs 200 unary calls at once, each resolving with its own answer', async () => {
    const session = open();
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        session.unary('/test.Echo/commands', Buffer.concat([Buffer.from([ECHO]), pattern(i, 100 + i * 37)])),
      ),
    );
    answers.forEach((a, i) =>
      expect(a.equals(Buffer.concat([Buffer.from([ECHO]), pattern(i, 100 + i * 37)]))).toBe(true),
    );
    session.close();
  });

  it("rejects with the server's status and message", async () => {
    const session = open();
    const failed = session.unary(
      '/test.Echo/commands',
      Buffer.concat([Buffer.from([FAIL, status.NOT_FOUND]), Buffer.from('no such key')]),
    );
    await expect(failed).rejects.toBeInstanceOf(GrpcCallError);
    await expect(failed).rejects.toMatchObject({ grpcCode: status.NOT_FOUND, details: 'no such key' });
    session.close();
  });

  it('fails DEADLINE_EXCEEDED past its deadline and cancels the call on the server; the session goes on', async () => {
    const session = open();
    const before = cancelled.filter((c) => c === 'unary').length;
    await expect(
      session.unary('/test.Echo/commands', Buffer.from([HANG]), { deadlineMs: 100 }),
    ).rejects.toMatchObject({
      grpcCode: status.DEADLINE_EXCEEDED,
    });
    await new Promise<void>((resolve) => {
      const check = () =>
        cancelled.filter((c) => c === 'unary').length > before ? resolve() : setTimeout(check, 10);
      check();
    });
    expect(
      await session.unary('/test.Echo/commands', Buffer.from([ECHO, 9]), { deadlineMs: 10_000 }),
    ).toEqual(Buffer.from([ECHO, 9]));
    session.close();
  });

  it('fails each call at its own deadline on one session, a later call’s earlier deadline first', async () => {
    const session = open();
    const settled: string[] = [];
    const call = (name: string, deadlineMs: number) =>
      session.unary('/test.Echo/commands', Buffer.from([HANG]), { deadlineMs }).catch((e: GrpcCallError) => {
        settled.push(`${name} ${e.grpcCode}`);
      });
    const answered = session
      .unary('/test.Echo/commands', Buffer.from([ECHO, 7]), { deadlineMs: 200 })
      .then(() => settled.push('echo answered'));
    await Promise.all([call('long', 600), call('short', 150), answered]);
    expect(settled).toEqual([
      'echo answered',
      `short ${status.DEADLINE_EXCEEDED}`,
      `long ${status.DEADLINE_EXCEEDED}`,
    ]);
    session.close();
  });
});

describe('a session that cannot connect', () => {
  it('fails its calls UNAVAILABLE when nothing listens', async () => {
    const probe = new Server();
    const port = await new Promise<number>((resolve, reject) =>
      probe.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (e, p) =>
        e ? reject(e) : resolve(p),
      ),
    );
    probe.forceShutdown();
    const session = new GrpcHttp2Session({ address: `127.0.0.1:${port}`, peer: 'the datanode' });
    const call = session.openCall('/test.Echo/commands');
    const err = await collect(call).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ grpcCode: status.UNAVAILABLE, retriable: true });
    expect((err as GrpcCallError).details).toMatch(
      /^no connection to the datanode was established: .*ECONNREFUSED/,
    );
    expect(session.accepting).toBe(false);
  });

  it('fails UNAVAILABLE when the server speaks TLS and the session plain text, and the other way round', async () => {
    const toTls = new GrpcHttp2Session({ address: tlsAddress, connectTimeoutMs: 5000 });
    await expect(collect(toTls.openCall('/test.Echo/commands'))).rejects.toMatchObject({
      grpcCode: status.UNAVAILABLE,
    });
    const toPlain = new GrpcHttp2Session({
      address: plainAddress,
      tls: { ca: ca.caCert },
      connectTimeoutMs: 5000,
    });
    await expect(collect(toPlain.openCall('/test.Echo/commands'))).rejects.toMatchObject({
      grpcCode: status.UNAVAILABLE,
    });
  });

  it("fails UNAVAILABLE when the server's certificate does not carry the name checked", async () => {
    const session = new GrpcHttp2Session({
      address: tlsAddress,
      tls: { ca: ca.caCert, serverNameOverride: 'dn.example.com' },
    });
    const err = await collect(session.openCall('/test.Echo/commands')).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ grpcCode: status.UNAVAILABLE });
    expect((err as GrpcCallError).details).toMatch(/dn\.example\.com/);
  });
});
