import { describe, expect, it } from '@jest/globals';
import { HTTP2_ERROR, Http2ProtocolError } from '../grpc-http2-errors.js';
import { FrameReader, type FrameSink } from './frame-reader.js';
import { dataFrameHeader, headerFrames, pingFrame, settingsAckFrame, settingsFrame } from './frames.js';

// A small seeded generator, so that a failing random case is the same on every run.
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** A frame written by hand: the 9-byte header (RFC 9113 §4.1), then the payload. */
function rawFrame(type: number, flags: number, streamId: number, payload: Buffer | string): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload.replace(/\s/g, ''), 'hex') : payload;
  const header = Buffer.alloc(9);
  header.writeUIntBE(body.length, 0, 3);
  header[3] = type;
  header[4] = flags;
  header.writeUInt32BE(streamId >>> 0, 5);
  return Buffer.concat([header, body]);
}

type Entry =
  | ['frame', number, number, number, Buffer]
  | ['dataStart', number, number, number]
  | ['data', number, Buffer]
  | ['dataEnd', number, number];

/** Logs what the reader hands on, copying each buffer (valid only during the call). */
class RecordingSink implements FrameSink {
  readonly log: Entry[] = [];

  frame(type: number, flags: number, streamId: number, payload: Buffer): void {
    this.log.push(['frame', type, flags, streamId, Buffer.from(payload)]);
  }

  dataStart(streamId: number, flags: number, length: number): void {
    this.log.push(['dataStart', streamId, flags, length]);
  }

  data(streamId: number, piece: Buffer): void {
    // One DATA frame's content may arrive in any number of pieces: the log keeps it as one.
    const last = this.log[this.log.length - 1];
    if (last !== undefined && last[0] === 'data' && last[1] === streamId)
      last[2] = Buffer.concat([last[2], piece]);
    else this.log.push(['data', streamId, Buffer.from(piece)]);
  }

  dataEnd(streamId: number, flags: number): void {
    this.log.push(['dataEnd', streamId, flags]);
  }
}

const PADDED = 0x8;
const END_STREAM = 0x1;
const bulk = Buffer.from(Array.from({ length: 200 }, (_, i) => (i * 7 + 3) & 0xff));
const headerBlock = Buffer.from('828684418cf1e3c2e5f23a6ba0ab90f4ff', 'hex');
const opaque = Buffer.from('0011223344556677', 'hex');

const frames: Buffer[] = [
  settingsFrame([
    [0x4, 0x100000],
    [0x5, 0x4000],
  ]),
  headerFrames(1, headerBlock, false, 16_384),
  // Padded DATA: pad length 3, "hello", 3 bytes of padding.
  rawFrame(0x0, PADDED, 1, '03 68656c6c6f 000000'),
  // Padded DATA with a pad length of 0: "abc".
  rawFrame(0x0, PADDED, 1, '00 616263'),
  Buffer.concat([dataFrameHeader(1, bulk.length, false), bulk]),
  dataFrameHeader(3, 0, true),
  // Padded DATA of padding only: pad length 4, no content.
  rawFrame(0x0, PADDED | END_STREAM, 5, '04 00000000'),
  pingFrame(opaque, false),
  // A type this reader does not know, on a stream id with the reserved bit set.
  rawFrame(0xfa, 0x3, 0x80000007, '78797a'),
  settingsAckFrame(),
];
const stream = Buffer.concat(frames);

const expected: Entry[] = [
  ['frame', 0x4, 0x0, 0, Buffer.from('0004 00100000 0005 00004000'.replace(/\s/g, ''), 'hex')],
  ['frame', 0x1, 0x4, 1, headerBlock],
  ['dataStart', 1, PADDED, 9],
  ['data', 1, Buffer.from('hello')],
  ['dataEnd', 1, PADDED],
  ['dataStart', 1, PADDED, 4],
  ['data', 1, Buffer.from('abc')],
  ['dataEnd', 1, PADDED],
  ['dataStart', 1, 0x0, 200],
  ['data', 1, bulk],
  ['dataEnd', 1, 0x0],
  ['dataStart', 3, END_STREAM, 0],
  ['dataEnd', 3, END_STREAM],
  ['dataStart', 5, PADDED | END_STREAM, 5],
  ['dataEnd', 5, PADDED | END_STREAM],
  ['frame', 0x6, 0x0, 0, opaque],
  ['frame', 0xfa, 0x3, 7, Buffer.from('xyz')],
  ['frame', 0x4, 0x1, 0, Buffer.alloc(0)],
];

/** The offsets of `stream` at which a frame ends. */
const boundaries = new Set<number>([0]);
let frameEnd = 0;
for (const frame of frames) {
  frameEnd += frame.length;
  boundaries.add(frameEnd);
}

/**
 * Feeds `bytes` cut at `cuts` (sorted offsets) to a new reader, each piece as its own copy; with
 * `overwrite`, each piece is filled with 0xee once pushed, as the socket's reused read buffer is.
 */
function feed(bytes: Buffer, cuts: number[], overwrite = false, maxFrameBytes = 16_384): Entry[] {
  const sink = new RecordingSink();
  const reader = new FrameReader(sink, maxFrameBytes);
  let from = 0;
  for (const to of [...cuts, bytes.length]) {
    const piece = Buffer.from(bytes.subarray(from, to));
    reader.push(piece);
    if (overwrite) piece.fill(0xee);
    from = to;
  }
  expect(reader.atBoundary).toBe(true);
  return sink.log;
}

function everyByte(bytes: Buffer): number[] {
  return Array.from({ length: bytes.length - 1 }, (_, i) => i + 1);
}

function randomCuts(next: () => number, count: number, length: number): number[] {
  return Array.from({ length: count }, () => Math.floor(next() * (length + 1))).sort((a, b) => a - b);
}

function refusal(run: () => void): Http2ProtocolError {
  let caught: unknown;
  try {
    run();
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(Http2ProtocolError);
  return caught as Http2ProtocolError;
}

describe('FrameReader', () => {
  it('hands on every frame of a stream read whole', () => {
    expect(feed(stream, [])).toEqual(expected);
  });

  it('hands on the same frames read one byte at a time', () => {
    expect(feed(stream, everyByte(stream))).toEqual(expected);
  });

  it('hands on the same frames read in two pieces, cut at every offset', () => {
    for (let at = 0; at <= stream.length; at++) expect(feed(stream, [at])).toEqual(expected);
  });

  it('hands on the same frames read in random pieces', () => {
    const next = random(1);
    for (let round = 0; round < 20; round++) {
      const count = 1 + Math.floor(next() * 200);
      expect(feed(stream, randomCuts(next, count, stream.length))).toEqual(expected);
    }
  });

  it('keeps no view of a piece once its push returns', () => {
    expect(feed(stream, [], true)).toEqual(expected);
    expect(feed(stream, everyByte(stream), true)).toEqual(expected);
    for (let at = 0; at <= stream.length; at++) expect(feed(stream, [at], true)).toEqual(expected);
    const next = random(2);
    for (let round = 0; round < 20; round++)
      expect(feed(stream, randomCuts(next, 200, stream.length), true)).toEqual(expected);
  });

  it('is at a boundary exactly between frames', () => {
    const reader = new FrameReader(new RecordingSink(), 16_384);
    expect(reader.atBoundary).toBe(true);
    for (let at = 0; at < stream.length; at++) {
      reader.push(stream.subarray(at, at + 1));
      expect([at + 1, reader.atBoundary]).toEqual([at + 1, boundaries.has(at + 1)]);
    }
  });

  it('takes a frame of exactly maxFrameBytes', () => {
    const payload = Buffer.alloc(16, 0x5a);
    expect(feed(rawFrame(0xfa, 0, 0, payload), [], false, 16)).toEqual([['frame', 0xfa, 0, 0, payload]]);
    expect(feed(rawFrame(0x0, 0, 1, payload), [], false, 16)).toEqual([
      ['dataStart', 1, 0, 16],
      ['data', 1, payload],
      ['dataEnd', 1, 0],
    ]);
  });

  it('refuses a frame longer than maxFrameBytes (FRAME_SIZE_ERROR)', () => {
    const payload = Buffer.alloc(17);
    for (const type of [0xfa, 0x1, 0x0]) {
      const error = refusal(() => feed(rawFrame(type, 0, 1, payload), [], false, 16));
      expect(error.http2Code).toBe(HTTP2_ERROR.FRAME_SIZE_ERROR);
    }
  });

  it('refuses DATA on stream 0 (PROTOCOL_ERROR)', () => {
    const error = refusal(() => feed(rawFrame(0x0, 0, 0, '616263'), []));
    expect(error.http2Code).toBe(HTTP2_ERROR.PROTOCOL_ERROR);
  });

  it('takes padded DATA whose padding fills all but the pad length byte', () => {
    expect(feed(rawFrame(0x0, PADDED, 1, '03 000000'), [])).toEqual([
      ['dataStart', 1, PADDED, 4],
      ['dataEnd', 1, PADDED],
    ]);
  });

  it('refuses padded DATA whose pad length is the payload length or more (PROTOCOL_ERROR)', () => {
    for (const payload of ['01', '04 000000', '05 000000', 'ff 000000']) {
      const error = refusal(() => feed(rawFrame(0x0, PADDED, 1, payload), []));
      expect(error.http2Code).toBe(HTTP2_ERROR.PROTOCOL_ERROR);
    }
  });

  it('refuses padded DATA of length 0, which has no pad length (FRAME_SIZE_ERROR)', () => {
    const error = refusal(() => feed(rawFrame(0x0, PADDED, 1, ''), []));
    expect(error.http2Code).toBe(HTTP2_ERROR.FRAME_SIZE_ERROR);
  });
});
