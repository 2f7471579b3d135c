// Golden bytes for every header: what the generated codecs and the frame builders write, against
// bytes built by hand from the field tables of the Hadoop RPC spec (§1.1, §1.5, §2.1-§2.3, §3.1)
// with a writer that knows no .proto file, and against the spec's worked bytes (§2.5). A wrong
// field number, wire type (sint32 vs int32, uint32 vs sint32) or default fails here.
import { type Bytes, hex, l, v } from '@fastpath/test-support';
import Long from 'long';
import { callFrame, contextFrame, pingFrame, preamble, requestHeader, saslFrame } from '../frames.js';
import { rpc } from './wire.js';

const zigzag = (n: number): number => (n << 1) ^ (n >> 31);
const sint = (field: number, n: number): Bytes => v(field, zigzag(n) >>> 0);
const delimited = (b: Bytes): Bytes => [...l(0, b).slice(1)]; // the length varint, then the bytes
const framed = (...messages: Bytes[]): Bytes => {
  const body = messages.flatMap(delimited);
  return [
    (body.length >>> 24) & 0xff,
    (body.length >>> 16) & 0xff,
    (body.length >>> 8) & 0xff,
    body.length & 0xff,
    ...body,
  ];
};
const clientId = Buffer.from('00112233445566778899aabbccddeeff', 'hex');

describe('zigzag of the special call ids (spec §2.5)', () => {
  it.each([
    [-3, 5],
    [-4, 7],
    [-33, 65],
    [-1, 1],
  ])('%i → %i', (id, expected) => expect(zigzag(id)).toBe(expected));
});

describe('preamble (spec §1.1)', () => {
  it('is hrpc, version 9, the service class and the auth protocol', () => {
    expect(hex(preamble('none', 0))).toBe('68727063090000');
    expect(hex(preamble('sasl', 0))).toBe('687270630900df');
    expect(hex(preamble('none', 7))).toBe('68727063090700');
  });
});

describe('RpcRequestHeaderProto (spec §2.1)', () => {
  it('writes every field Java sets, call id and retry count as sint32', () => {
    const expected: Bytes = [...v(1, 2), ...v(2, 0), ...sint(3, 300), ...l(4, clientId), ...sint(5, 2)];
    expect(hex(requestHeader(300, clientId, 2))).toBe(hex(expected));
  });

  it('writes the optional fields at their numbers and types', () => {
    const header = {
      rpcKind: 2,
      rpcOp: 1,
      callId: -5,
      clientId,
      retryCount: 3,
      traceInfo: { traceId: Long.fromNumber(7), parentId: Long.fromNumber(8), spanContext: Buffer.from('s') },
      callerContext: { context: 'ctx', signature: Buffer.from('sig') },
      stateId: Long.fromNumber(99),
    };
    const expected: Bytes = [
      ...v(1, 2),
      ...v(2, 1),
      ...sint(3, -5),
      ...l(4, clientId),
      ...sint(5, 3),
      ...l(6, [...v(1, 7), ...v(2, 8), ...l(3, 's')]),
      ...l(7, [...l(1, 'ctx'), ...l(2, 'sig')]),
      ...v(8, 99),
    ];
    expect(hex(rpc.RpcRequestHeaderProto.encode(header).finish())).toBe(hex(expected));
  });
});

describe('frames', () => {
  it('SASL NEGOTIATE is the spec’s worked frame (§2.5)', () => {
    expect(hex(saslFrame({ state: 1 }))).toBe('0000000e' + '0a08021000184122002801' + '021001');
  });

  it('a call: request header, RequestHeaderProto, then the request message (§2.2)', () => {
    const request = Buffer.from([0x0a, 0x02, 0x68, 0x69]); // EchoRequestProto{message="hi"}
    const expected = framed(
      [...v(1, 2), ...v(2, 0), ...sint(3, 42), ...l(4, clientId), ...sint(5, 0)],
      [...l(1, 'echo'), ...l(2, 'org.example.Echo'), ...v(3, 1)],
      [...request],
    );
    const bytes = callFrame(
      42,
      clientId,
      0,
      { method: 'echo', protocol: 'org.example.Echo', protocolVersion: 1 },
      request,
    );
    expect(hex(bytes)).toBe(hex(expected));
  });

  it('a call frame is the hand-built bytes for any call id, retry count and size', () => {
    const id = { method: 'submitRequest', protocol: 'org.example.Om', protocolVersion: 1 };
    const engine = [...l(1, id.method), ...l(2, id.protocol), ...v(3, id.protocolVersion)];
    const callIds = [0, 1, 63, 64, 127, 128, 8191, 8192, 2 ** 20, 2 ** 31 - 1, -1, -4, -33, -(2 ** 31)];
    const retries = [-1, 0, 1, 63, 64, 2 ** 31 - 1];
    // Lengths either side of each varint width (1, 2 and 3 bytes).
    for (const size of [0, 1, 127, 128, 16_383, 16_384]) {
      const request = Buffer.alloc(size, 0x5a);
      for (const callId of callIds)
        for (const retryCount of retries) {
          const expected = framed(
            [...v(1, 2), ...v(2, 0), ...sint(3, callId), ...l(4, clientId), ...sint(5, retryCount)],
            engine,
            [...request],
          );
          expect(hex(callFrame(callId, clientId, retryCount, id, request))).toBe(hex(expected));
        }
    }
    // A method's later version is encoded again, not taken from the first.
    const v2 = { ...id, protocolVersion: 2 };
    expect(hex(callFrame(1, clientId, 0, v2, Buffer.alloc(0)))).toBe(
      hex(
        framed(
          [...v(1, 2), ...v(2, 0), ...sint(3, 1), ...l(4, clientId), ...sint(5, 0)],
          [...l(1, v2.method), ...l(2, v2.protocol), ...v(3, 2)],
          [],
        ),
      ),
    );
  });

  it('the connection context: call id −3, retry count −1, userInfo at 2, protocol at 3 (§1.5)', () => {
    const expected = framed(
      [...v(1, 2), ...v(2, 0), ...v(3, 5), ...l(4, clientId), ...v(5, 1)],
      [...l(2, [...l(1, 'alice'), ...l(2, 'hdfs')]), ...l(3, 'org.example.Echo')],
    );
    expect(
      hex(contextFrame(clientId, 'org.example.Echo', { effectiveUser: 'alice', realUser: 'hdfs' })),
    ).toBe(hex(expected));
  });

  it('a ping: a header alone with call id −4 (§1.3)', () => {
    const expected = framed([...v(1, 2), ...v(2, 0), ...v(3, 7), ...l(4, clientId), ...v(5, 1)]);
    expect(hex(pingFrame(clientId))).toBe(hex(expected));
  });
});

describe('RpcResponseHeaderProto (spec §2.3)', () => {
  it('decodes Java’s SASL reply header: call id −33 as a 5-byte uint32 varint (§2.5)', () => {
    const header = rpc.RpcResponseHeaderProto.decode(Buffer.from('08dfffffff0f100018093a004001', 'hex'));
    expect(header.callId).toBe(4294967263);
    expect(header.callId | 0).toBe(-33);
    expect(header.status).toBe(0);
    expect(header.serverIpcVersionNum).toBe(9);
    expect(header.clientId).toHaveLength(0);
    expect(header.retryCount).toBe(-1);
  });

  it('writes every field at its number and type', () => {
    const header = {
      callId: 12,
      status: 1,
      serverIpcVersionNum: 9,
      exceptionClassName: 'java.io.IOException',
      errorMsg: 'boom',
      errorDetail: 1,
      clientId,
      retryCount: 4,
      stateId: Long.fromNumber(5),
    };
    const expected: Bytes = [
      ...v(1, 12),
      ...v(2, 1),
      ...v(3, 9),
      ...l(4, 'java.io.IOException'),
      ...l(5, 'boom'),
      ...v(6, 1),
      ...l(7, clientId),
      ...sint(8, 4),
      ...v(9, 5),
    ];
    expect(hex(rpc.RpcResponseHeaderProto.encode(header).finish())).toBe(hex(expected));
    const decoded = rpc.RpcResponseHeaderProto.decode(Buffer.from(expected));
    expect(decoded.retryCount).toBe(4);
    expect(decoded.errorDetail).toBe(rpc.RpcResponseHeaderProto.RpcErrorCodeProto.ERROR_APPLICATION);
  });

  it('numbers the error codes as Hadoop does', () => {
    const codes = rpc.RpcResponseHeaderProto.RpcErrorCodeProto;
    expect([
      codes.ERROR_APPLICATION,
      codes.ERROR_RPC_VERSION_MISMATCH,
      codes.FATAL_UNKNOWN,
      codes.FATAL_UNAUTHORIZED,
    ]).toEqual([1, 6, 10, 15]);
  });
});

describe('RpcSaslProto (spec §3.1)', () => {
  it('writes state, token and auths with every SaslAuth field', () => {
    const message = {
      version: 0,
      state: 1,
      token: Buffer.from('t'),
      auths: [
        {
          method: 'TOKEN',
          mechanism: 'DIGEST-MD5',
          protocol: '',
          serverId: 'default',
          challenge: Buffer.from('c'),
        },
        { method: 'KERBEROS', mechanism: 'GSSAPI', protocol: 'om', serverId: 'host1' },
      ],
    };
    const expected: Bytes = [
      ...v(1, 0),
      ...v(2, 1),
      ...l(3, 't'),
      ...l(4, [...l(1, 'TOKEN'), ...l(2, 'DIGEST-MD5'), ...l(3, ''), ...l(4, 'default'), ...l(5, 'c')]),
      ...l(4, [...l(1, 'KERBEROS'), ...l(2, 'GSSAPI'), ...l(3, 'om'), ...l(4, 'host1')]),
    ];
    expect(hex(rpc.RpcSaslProto.encode(message).finish())).toBe(hex(expected));
  });
});
