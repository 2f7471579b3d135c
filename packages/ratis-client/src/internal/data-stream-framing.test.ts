// The DataStream frames byte for byte (lengths and headers built by hand from the field numbers),
// and the readers against the ways TCP hands bytes over: one byte at a time, frames cut anywhere,
// several frames in one chunk.
import { hex, l, v } from '@fastpath/test-support';
import {
  DataStreamFramingError,
  encodeReplyFrame,
  encodeRequestHead,
  type PacketHeader,
  type ReplyFrame,
  ReplyFrameReader,
  type RequestFrame,
  RequestFrameReader,
} from './data-stream-framing.js';

const clientId = Buffer.from('0f1e2d3c4b5a69788796a5b4c3d2e1f0', 'hex');
const dataHeader = (streamOffset: number, dataLength: number, options: number[] = []): PacketHeader => ({
  clientId,
  type: 1,
  streamId: 7,
  streamOffset,
  dataLength,
  options,
});

function int64(n: number): number[] {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(BigInt(n));
  return [...b];
}
function int32(n: number): number[] {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return [...b];
}

/** Every way of cutting `bytes` in two, and one byte at a time. */
function cuts(bytes: Buffer): Buffer[][] {
  const out: Buffer[][] = [];
  for (let i = 1; i < bytes.length; i++) out.push([bytes.subarray(0, i), bytes.subarray(i)]);
  out.push([...bytes].map((b) => Buffer.from([b])));
  return out;
}

describe('request frames', () => {
  it('the head is the 12-byte prefix (header + data length, header length) and the request header', () => {
    const header = [
      ...l(1, clientId),
      ...v(2, 1),
      ...v(3, 7),
      ...v(4, 4096),
      ...v(5, 100),
      ...l(6, [0, 1]), // SYNC, CLOSE: packed
    ];
    const request = l(1, header);
    expect(hex(encodeRequestHead(dataHeader(4096, 100, [0, 1])))).toBe(
      hex([...int64(request.length + 100), ...int32(request.length), ...request]),
    );
  });

  it('a header packet leaves type 0, offset 0 and no options off the wire', () => {
    const head = encodeRequestHead({
      clientId,
      type: 0,
      streamId: 3,
      streamOffset: 0,
      dataLength: 5,
      options: [],
    });
    const request = l(1, [...l(1, clientId), ...v(3, 3), ...v(5, 5)]);
    expect(hex(head)).toBe(hex([...int64(request.length + 5), ...int32(request.length), ...request]));
  });

  it('are read back however the bytes are cut, several in one chunk', () => {
    const frames = [
      Buffer.concat([encodeRequestHead(dataHeader(0, 3)), Buffer.from('abc')]),
      encodeRequestHead(dataHeader(3, 0, [1])),
      Buffer.concat([encodeRequestHead(dataHeader(3, 2, [0])), Buffer.from('de')]),
    ];
    const all = Buffer.concat(frames);
    for (const pieces of [[all], ...cuts(all)]) {
      const seen: RequestFrame[] = [];
      const reader = new RequestFrameReader(1024, (r) => seen.push(r));
      for (const p of pieces) reader.push(p);
      expect(seen.map((r) => [r.header.streamOffset, r.header.options, r.data.toString()])).toEqual([
        [0, [], 'abc'],
        [3, [1], ''],
        [3, [0], 'de'],
      ]);
      expect(seen.every((r) => Buffer.from(r.header.clientId).equals(clientId))).toBe(true);
    }
  });

  it('refuses a frame whose lengths disagree with its header, and reads nothing after', () => {
    const head = encodeRequestHead(dataHeader(0, 3));
    head.writeBigInt64BE(head.readBigInt64BE(0) + 1n, 0); // one byte more than the header says
    const reader = new RequestFrameReader(1024, () => undefined);
    expect(() => reader.push(Buffer.concat([head, Buffer.from('abcd')]))).toThrow(DataStreamFramingError);
    expect(() => reader.push(Buffer.from('x'))).toThrow(DataStreamFramingError);
  });

  it('refuses data over the bound before reading it', () => {
    const reader = new RequestFrameReader(10, () => undefined);
    expect(() => reader.push(encodeRequestHead(dataHeader(0, 11)))).toThrow(/more than allowed/);
  });
});

describe('reply frames', () => {
  const ok: Omit<ReplyFrame, 'data'> = {
    header: dataHeader(4096, 0),
    bytesWritten: 100,
    success: true,
    commitInfos: [{ server: { id: Buffer.from('p0') }, commitIndex: 4 as never }],
  };

  it('are the int32 header length, the reply header (dataLength = the data) and the data', () => {
    const frame = encodeReplyFrame(
      { ...ok, success: false, bytesWritten: 0, commitInfos: [] },
      Buffer.from('xyz'),
    );
    const header = l(1, [...l(1, clientId), ...v(2, 1), ...v(3, 7), ...v(4, 4096), ...v(5, 3)]);
    expect(hex(frame)).toBe(hex([...int32(header.length), ...header, ...Buffer.from('xyz')]));
    const success = encodeReplyFrame(ok);
    const successHeader = [
      ...l(1, [...l(1, clientId), ...v(2, 1), ...v(3, 7), ...v(4, 4096)]),
      ...v(2, 100),
      ...v(3, true),
      ...l(15, [...l(1, l(1, 'p0')), ...v(2, 4)]),
    ];
    expect(hex(success)).toBe(hex([...int32(successHeader.length), ...successHeader]));
  });

  it('are read back however the bytes are cut, several in one chunk', () => {
    const all = Buffer.concat([
      encodeReplyFrame(ok),
      encodeReplyFrame(
        { ...ok, header: dataHeader(0, 0), success: false, bytesWritten: 0 },
        Buffer.from('failure'),
      ),
      encodeReplyFrame({ ...ok, header: { ...dataHeader(0, 0), type: 0 } }),
    ]);
    for (const pieces of [[all], ...cuts(all)]) {
      const seen: ReplyFrame[] = [];
      const reader = new ReplyFrameReader(1024, (r) => seen.push(r));
      for (const p of pieces) reader.push(p);
      expect(reader.atBoundary).toBe(true);
      expect(
        seen.map((r) => [r.header.type, r.header.streamOffset, r.success, r.bytesWritten, r.data.toString()]),
      ).toEqual([
        [1, 4096, true, 100, ''],
        [1, 0, false, 0, 'failure'],
        [0, 0, true, 100, ''],
      ]);
      expect(seen[0]?.commitInfos[0]?.commitIndex?.toString()).toBe('4');
    }
  });

  it('hands data that lies whole in one chunk on as a view of it', () => {
    const frame = encodeReplyFrame(ok, Buffer.from('data'));
    let data: Buffer | undefined;
    new ReplyFrameReader(1024, (r) => (data = r.data)).push(frame);
    expect(data?.buffer).toBe(frame.buffer);
  });

  it.each([
    ['a negative header length', Buffer.from(int32(-1))],
    ['a header length over the bound', Buffer.from(int32(2 << 20))],
    ['a header that does not decode', Buffer.from([...int32(3), 0x0a, 0x05, 0x01])], // field 1 cut short
    ['a wire type protobuf does not know', Buffer.from([...int32(1), 0x0f])],
  ])('refuses %s with a typed error, and reads nothing after', (_what, bytes) => {
    const reader = new ReplyFrameReader(1024, () => undefined);
    expect(() => reader.push(bytes)).toThrow(DataStreamFramingError);
    expect(() => reader.push(encodeReplyFrame(ok))).toThrow(DataStreamFramingError);
  });

  it('refuses reply data over the bound', () => {
    const reader = new ReplyFrameReader(4, () => undefined);
    expect(() => reader.push(encodeReplyFrame(ok, Buffer.alloc(5)))).toThrow(/more than the 4 allowed/);
  });
});
