import { describe, expect, it } from '@jest/globals';
import { GRPC_STATUS } from '../grpc-http2-errors.js';
import { MessageAssembler, MessageFramingError } from './message-assembler.js';

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

function randomBytes(next: () => number, length: number): Buffer {
  return Buffer.from(Array.from({ length }, () => Math.floor(next() * 256)));
}

function shuffle<T>(items: T[], next: () => number): void {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
}

/** A gRPC length-prefixed message: the flag byte, a 4-byte big-endian length, the bytes. */
function framed(body: Buffer, flag = 0): Buffer {
  const prefix = Buffer.alloc(5);
  prefix[0] = flag;
  prefix.writeUInt32BE(body.length, 1);
  return Buffer.concat([prefix, body]);
}

/** An assembler that records each `allocate` (and the buffer it returned) and each message. */
function recorder(maxMessageBytes = 1 << 20) {
  const allocated: Buffer[] = [];
  const messages: Buffer[] = [];
  const assembler = new MessageAssembler(
    maxMessageBytes,
    (length) => {
      const buffer = Buffer.alloc(length, 0xcc);
      allocated.push(buffer);
      return buffer;
    },
    {
      assembled: (message) => {
        messages.push(message);
      },
    },
  );
  return { assembler, allocated, messages };
}

/** Pushes `bytes` cut at `cuts` (sorted offsets), each piece a copy filled with 0xee once pushed. */
function pushPieces(assembler: MessageAssembler, bytes: Buffer, cuts: number[]): void {
  let from = 0;
  for (const to of [...cuts, bytes.length]) {
    const piece = Buffer.from(bytes.subarray(from, to));
    assembler.push(piece);
    piece.fill(0xee);
    from = to;
  }
}

/** Checks that exactly `bodies` arrived, each non-empty one in the very buffer `allocate` gave. */
function expectDelivered(run: ReturnType<typeof recorder>, bodies: Buffer[]): void {
  expect(run.messages).toEqual(bodies);
  const nonEmpty = bodies.filter((body) => body.length > 0);
  expect(run.allocated.map((buffer) => buffer.length)).toEqual(nonEmpty.map((body) => body.length));
  const delivered = run.messages.filter((message) => message.length > 0);
  delivered.forEach((message, i) => expect(message).toBe(run.allocated[i]));
  expect(run.assembler.atBoundary).toBe(true);
}

function refusal(run: () => void): MessageFramingError {
  let caught: unknown;
  try {
    run();
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(MessageFramingError);
  return caught as MessageFramingError;
}

describe('MessageAssembler', () => {
  it('delivers messages of many sizes cut at random, each in the buffer allocate gave', () => {
    const next = random(7);
    for (let round = 0; round < 10; round++) {
      const sizes = [0, 1, 4, 5, 16_384, 100_000];
      for (let i = 0; i < 10; i++) sizes.push(Math.floor(next() * 3000));
      shuffle(sizes, next);
      const bodies = sizes.map((size) => randomBytes(next, size));
      const bytes = Buffer.concat(bodies.map((body) => framed(body)));
      const cuts = Array.from({ length: 1 + Math.floor(next() * 300) }, () =>
        Math.floor(next() * (bytes.length + 1)),
      ).sort((a, b) => a - b);

      const run = recorder();
      pushPieces(run.assembler, bytes, cuts);
      expectDelivered(run, bodies);
    }
  });

  it('delivers the same messages pushed one byte at a time or in two pieces cut anywhere', () => {
    const next = random(11);
    const bodies = [0, 1, 4, 5, 0, 3, 17].map((size) => randomBytes(next, size));
    const bytes = Buffer.concat(bodies.map((body) => framed(body)));

    const byteByByte = recorder();
    pushPieces(
      byteByByte.assembler,
      bytes,
      Array.from({ length: bytes.length - 1 }, (_, i) => i + 1),
    );
    expectDelivered(byteByByte, bodies);

    for (let at = 0; at <= bytes.length; at++) {
      const twoPieces = recorder();
      pushPieces(twoPieces.assembler, bytes, [at]);
      expectDelivered(twoPieces, bodies);
    }
  });

  it('is at a boundary only between messages', () => {
    const bodies = [Buffer.from('ab'), Buffer.alloc(0), Buffer.from('xyz')];
    const bytes = Buffer.concat(bodies.map((body) => framed(body)));
    const boundaries = new Set([0, 7, 12, 20]);
    const { assembler } = recorder();
    for (let at = 0; at < bytes.length; at++) {
      assembler.push(bytes.subarray(at, at + 1));
      expect([at + 1, assembler.atBoundary]).toEqual([at + 1, boundaries.has(at + 1)]);
    }
  });

  it('does not call allocate for a message of length 0', () => {
    const run = recorder();
    run.assembler.push(framed(Buffer.alloc(0)));
    expect(run.allocated).toEqual([]);
    expect(run.messages).toEqual([Buffer.alloc(0)]);
  });

  it('copies: overwriting a pushed piece changes neither a delivered nor a half-read message', () => {
    const run = recorder();
    const first = Buffer.from('first message');
    const second = Buffer.from('second message');

    const whole = framed(first);
    run.assembler.push(whole);
    whole.fill(0xee);

    const rest = framed(second);
    const head = Buffer.from(rest.subarray(0, 9));
    run.assembler.push(head);
    head.fill(0xee);
    expect(run.assembler.atBoundary).toBe(false);
    const tail = Buffer.from(rest.subarray(9));
    run.assembler.push(tail);
    tail.fill(0xee);

    expect(run.messages).toEqual([first, second]);
  });

  it('refuses a compressed message (flag 1) with INTERNAL', () => {
    const error = refusal(() => recorder().assembler.push(framed(Buffer.from('abc'), 1)));
    expect(error.grpcCode).toBe(GRPC_STATUS.INTERNAL);
    expect(error.message).toBe('a compressed message (no compression was offered)');
  });

  it('refuses any other flag with INTERNAL, even when the prefix arrives byte by byte', () => {
    const { assembler } = recorder();
    const bytes = framed(Buffer.from('abc'), 2);
    for (let at = 0; at < 4; at++) assembler.push(bytes.subarray(at, at + 1));
    const error = refusal(() => assembler.push(bytes.subarray(4, 5)));
    expect(error.grpcCode).toBe(GRPC_STATUS.INTERNAL);
    expect(error.message).toBe('message flag 2');
  });

  it('takes a message of exactly maxMessageBytes', () => {
    const run = recorder(100);
    const body = Buffer.alloc(100, 0x42);
    run.assembler.push(framed(body));
    expectDelivered(run, [body]);
  });

  it('refuses a message over maxMessageBytes with RESOURCE_EXHAUSTED from its prefix alone, before allocate', () => {
    const run = recorder(100);
    run.assembler.push(framed(Buffer.from('ok')));
    const prefix = framed(Buffer.alloc(101)).subarray(0, 5);
    const error = refusal(() => run.assembler.push(prefix));
    expect(error.grpcCode).toBe(GRPC_STATUS.RESOURCE_EXHAUSTED);
    expect(error.message).toMatch(/101/);
    expect(run.allocated.map((buffer) => buffer.length)).toEqual([2]);
  });

  it('refuses an oversized message before allocate when its prefix arrives in pieces', () => {
    const run = recorder(100);
    const prefix = Buffer.from('00 ffffffff'.replace(/\s/g, ''), 'hex');
    run.assembler.push(prefix.subarray(0, 2));
    const error = refusal(() => run.assembler.push(prefix.subarray(2)));
    expect(error.grpcCode).toBe(GRPC_STATUS.RESOURCE_EXHAUSTED);
    expect(run.allocated).toEqual([]);
  });
});
