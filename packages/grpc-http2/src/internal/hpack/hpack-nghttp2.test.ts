import { createServer, type IncomingHttpHeaders, type ServerHttp2Session } from 'node:http2';
import { connect, type Socket } from 'node:net';
import { describe, expect, it } from '@jest/globals';
import { HpackDecoder } from './hpack-decoder.js';
import { encodeHeaderBlock } from './hpack-encoder.js';
import { huffmanEncode } from './huffman.js';

// A cross-check with a real HPACK implementation: node:http2's server is nghttp2. Our encoder's
// requests must decode there to what we sent, and the blocks its encoder answers with (dynamic
// table, Huffman) must decode here to what its handler sent. The HTTP/2 framing is done by hand
// on a plain socket, so that the raw header blocks are seen.

const FRAME_DATA = 0x0;
const FRAME_HEADERS = 0x1;
const FRAME_RST_STREAM = 0x3;
const FRAME_SETTINGS = 0x4;
const FRAME_GOAWAY = 0x7;
const FRAME_CONTINUATION = 0x9;
const FLAG_END_STREAM = 0x1;
const FLAG_ACK = 0x1;
const FLAG_END_HEADERS = 0x4;
const FLAG_PADDED = 0x8;
const FLAG_PRIORITY = 0x20;

function frame(
  type: number,
  flags: number,
  streamId: number,
  payload: Uint8Array = new Uint8Array(0),
): Buffer {
  const header = Buffer.alloc(9);
  header.writeUIntBE(payload.length, 0, 3);
  header[3] = type;
  header[4] = flags;
  header.writeUInt32BE(streamId, 5);
  return Buffer.concat([header, payload]);
}

// Long enough to be worth Huffman-coding; no space at either end, which RFC 9113 §8.2.1 forbids
// (nghttp2 drops such a field).
const LONG_VALUE = `a long value, so that the encoder Huffman-codes it: ${'the quick brown fox jumps over the lazy dog 0123456789 '.repeat(4)}end`;

// What the handler answers, in the order node sends fields: :status first, then the object's
// keys, an array as one field per element. The date is set so that node adds none of its own.
const RESPONSE_HEADERS: Record<string, string | string[] | number> = {
  ':status': 200,
  'content-type': 'application/grpc',
  date: 'Mon, 21 Oct 2013 20:13:21 GMT',
  'grpc-encoding': 'identity',
  'x-long': LONG_VALUE,
  'x-repeated': ['first', 'second', 'third'],
  'set-cookie': ['a=1', 'b=2'],
  'x-latin1': 'caf\u00e9 \u00ff\u0080',
  'x-request-number': '',
};

function expectedResponse(requestNumber: number): Array<[string, string]> {
  const fields: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(RESPONSE_HEADERS)) {
    if (name === 'x-request-number') fields.push([name, String(requestNumber)]);
    else if (Array.isArray(value)) for (const v of value) fields.push([name, v]);
    else fields.push([name, String(value)]);
  }
  return fields;
}

function request(requestNumber: number): Array<[string, string]> {
  return [
    [':method', 'GET'],
    [':scheme', 'http'],
    [':path', '/'],
    [':authority', 'localhost'],
    ['user-agent', 'hpack-test/1.0'],
    ['x-request-number', String(requestNumber)],
    ['x-request-long', LONG_VALUE],
    ['x-request-latin1', '\u00e9t\u00e9'],
  ];
}

interface Exchange {
  /** Per stream, the response's header block as it came (HEADERS + CONTINUATION payloads). */
  blocks: Map<number, Buffer>;
  /** Per stream, the fields our decoder made of it. */
  decoded: Map<number, Array<[string, string]>>;
}

/**
 * Speaks HTTP/2 to `port` on a plain socket: the preface and SETTINGS, then one request per
 * entry of `requests`, each on the next odd stream once the previous response has ended. Every
 * response header block is decoded by one HpackDecoder, in order, as a connection's would be.
 */
function exchange(
  port: number,
  requests: Array<{ fields: Array<[string, string]>; huffman: boolean }>,
): Promise<Exchange> {
  const decoder = new HpackDecoder({ maxTableBytes: 4096, maxHeaderListBytes: 65_536 });
  const result: Exchange = { blocks: new Map(), decoded: new Map() };
  return new Promise<Exchange>((resolve, reject) => {
    const socket: Socket = connect(port, '127.0.0.1');
    const timer = setTimeout(() => fail(new Error('no complete answer within 10 s')), 10_000);
    let input = Buffer.alloc(0);
    let next = 0;
    let fragments: Buffer[] = [];
    let fragmentStream = 0;
    let endStreamWithHeaders = false;

    function fail(error: Error): void {
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    }

    function sendNextRequest(): void {
      const streamId = 2 * next + 1;
      const { fields, huffman } = requests[next++]!;
      socket.write(
        frame(
          FRAME_HEADERS,
          FLAG_END_HEADERS | FLAG_END_STREAM,
          streamId,
          encodeHeaderBlock(fields, { huffman }),
        ),
      );
    }

    function streamEnded(streamId: number): void {
      if (streamId !== 2 * next - 1) return;
      if (next < requests.length) {
        sendNextRequest();
      } else {
        clearTimeout(timer);
        socket.end();
        resolve(result);
      }
    }

    function onFrame(type: number, flags: number, streamId: number, payload: Buffer): void {
      if (type === FRAME_SETTINGS && (flags & FLAG_ACK) === 0) {
        socket.write(frame(FRAME_SETTINGS, FLAG_ACK, 0));
        if (next === 0) sendNextRequest();
      } else if (type === FRAME_HEADERS) {
        let start = 0;
        let end = payload.length;
        if (flags & FLAG_PADDED) {
          end -= payload[0]!;
          start = 1;
        }
        if (flags & FLAG_PRIORITY) start += 5;
        fragments = [payload.subarray(start, end)];
        fragmentStream = streamId;
        endStreamWithHeaders = (flags & FLAG_END_STREAM) !== 0;
        if (flags & FLAG_END_HEADERS) headersComplete();
      } else if (type === FRAME_CONTINUATION) {
        if (streamId !== fragmentStream) return fail(new Error(`CONTINUATION on stream ${streamId}`));
        fragments.push(payload);
        if (flags & FLAG_END_HEADERS) headersComplete();
      } else if (type === FRAME_DATA && flags & FLAG_END_STREAM) {
        streamEnded(streamId);
      } else if (type === FRAME_RST_STREAM || type === FRAME_GOAWAY) {
        fail(new Error(`server sent frame type ${type} (${payload.toString('hex')})`));
      }
    }

    function headersComplete(): void {
      const block = Buffer.concat(fragments);
      result.blocks.set(fragmentStream, block);
      result.decoded.set(fragmentStream, decoder.decode(block));
      if (endStreamWithHeaders) streamEnded(fragmentStream);
    }

    socket.on('connect', () => {
      socket.write(
        Buffer.concat([
          Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1'),
          frame(FRAME_SETTINGS, 0, 0),
        ]),
      );
    });
    socket.on('data', (chunk: Buffer) => {
      input = Buffer.concat([input, chunk]);
      try {
        while (input.length >= 9) {
          const length = input.readUIntBE(0, 3);
          if (input.length < 9 + length) break;
          const type = input[3]!;
          const flags = input[4]!;
          const streamId = input.readUInt32BE(5) & 0x7fff_ffff;
          const payload = input.subarray(9, 9 + length);
          input = input.subarray(9 + length);
          onFrame(type, flags, streamId, payload);
        }
      } catch (e) {
        fail(e as Error);
      }
    });
    socket.on('error', fail);
  });
}

describe('HPACK against nghttp2 (node:http2)', () => {
  it('our requests decode there, its responses (dynamic table, Huffman) decode here', async () => {
    const server = createServer();
    const sessions = new Set<ServerHttp2Session>();
    const received: IncomingHttpHeaders[] = [];
    server.on('session', (session) => sessions.add(session));
    server.on('stream', (stream, headers) => {
      received.push(headers);
      const number = String(received.length);
      stream.respond({ ...RESPONSE_HEADERS, 'x-request-number': number }, { endStream: true });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');

    try {
      const result = await exchange(address.port, [
        { fields: request(1), huffman: true },
        { fields: request(2), huffman: false },
      ]);

      // nghttp2's decoder read our blocks, Huffman-coded and raw, as we meant them.
      expect(received).toHaveLength(2);
      received.forEach((headers, i) => {
        expect(Object.fromEntries(Object.entries(headers))).toEqual(Object.fromEntries(request(i + 1)));
      });

      // Our decoder read nghttp2's blocks as its handler meant them.
      expect(result.decoded.get(1)).toEqual(expectedResponse(1));
      expect(result.decoded.get(3)).toEqual(expectedResponse(2));

      // nghttp2 Huffman-coded the long value and entered fields in its dynamic table; the second
      // block referred to them, mostly one octet per field where the first spelled them out.
      const first = result.blocks.get(1)!;
      const second = result.blocks.get(3)!;
      expect(first.includes(huffmanEncode(LONG_VALUE))).toBe(true);
      expect(first.includes(Buffer.from(LONG_VALUE, 'latin1'))).toBe(false);
      expect(second.length).toBeLessThan(first.length / 4);
      expect(second.some((octet) => octet >= 0xbe)).toBe(true); // an indexed field at 62 or more
    } finally {
      for (const session of sessions) session.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
