import { describe, expect, it } from '@jest/globals';
import {
  CLIENT_PREFACE,
  dataFrameHeader,
  FRAME_HEADER_BYTES,
  goawayFrame,
  headerFrames,
  pingFrame,
  rstStreamFrame,
  settingsAckFrame,
  settingsFrame,
  windowUpdateFrame,
  writeFrameHeader,
} from './frames.js';

// Every expected frame is written by hand from RFC 9113 §4.1: a 24-bit payload length, an 8-bit
// type, 8-bit flags, one reserved bit and a 31-bit stream id, then the payload. The spaces in the
// hex strings separate those fields.

function hex(buffer: Buffer): string {
  return buffer.toString('hex');
}

function bytes(text: string): string {
  return text.replace(/\s/g, '');
}

describe('CLIENT_PREFACE', () => {
  it('is the 24 bytes of RFC 9113 §3.4', () => {
    expect(CLIENT_PREFACE.length).toBe(24);
    expect(hex(CLIENT_PREFACE)).toBe(bytes('505249202a20485454502f322e300d0a0d0a534d0d0a0d0a'));
    expect(CLIENT_PREFACE.toString('latin1')).toBe('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
  });

  it('a frame header is 9 bytes', () => {
    expect(FRAME_HEADER_BYTES).toBe(9);
  });
});

describe('SETTINGS', () => {
  it('carries each setting as a 16-bit identifier and a 32-bit value on stream 0', () => {
    const frame = settingsFrame([
      [0x2, 0],
      [0x4, 0x200000],
      [0x5, 0x100000],
    ]);
    expect(hex(frame)).toBe(bytes('000012 04 00 00000000  0002 00000000  0004 00200000  0005 00100000'));
  });

  it('the acknowledgement is empty with the ACK flag', () => {
    expect(hex(settingsAckFrame())).toBe(bytes('000000 04 01 00000000'));
  });
});

describe('WINDOW_UPDATE', () => {
  it('carries a 31-bit increment', () => {
    expect(hex(windowUpdateFrame(3, 0x7fffffff))).toBe(bytes('000004 08 00 00000003 7fffffff'));
    expect(hex(windowUpdateFrame(0, 65_535))).toBe(bytes('000004 08 00 00000000 0000ffff'));
  });

  it('clears the reserved bit of an increment with the top bit set', () => {
    expect(hex(windowUpdateFrame(3, 0xffffffff))).toBe(bytes('000004 08 00 00000003 7fffffff'));
    expect(hex(windowUpdateFrame(3, 0x80000001))).toBe(bytes('000004 08 00 00000003 00000001'));
  });
});

describe('RST_STREAM', () => {
  it('carries the 32-bit error code on the stream', () => {
    expect(hex(rstStreamFrame(5, 0x8))).toBe(bytes('000004 03 00 00000005 00000008'));
  });
});

describe('GOAWAY', () => {
  it('carries the last stream id, the error code and the debug text on stream 0', () => {
    expect(hex(goawayFrame(7, 0x1, 'bad'))).toBe(bytes('00000b 07 00 00000000  00000007 00000001 626164'));
  });

  it('has no debug bytes when given no text', () => {
    expect(hex(goawayFrame(0, 0x0))).toBe(bytes('000008 07 00 00000000  00000000 00000000'));
  });
});

describe('PING', () => {
  const opaque = Buffer.from('0102030405060708', 'hex');

  it('carries the 8 opaque bytes on stream 0', () => {
    expect(hex(pingFrame(opaque, false))).toBe(bytes('000008 06 00 00000000 0102030405060708'));
  });

  it('the acknowledgement has the ACK flag', () => {
    expect(hex(pingFrame(opaque, true))).toBe(bytes('000008 06 01 00000000 0102030405060708'));
  });
});

describe('dataFrameHeader', () => {
  it('is the 9-byte header alone, with a 3-byte length', () => {
    expect(hex(dataFrameHeader(1, 70_000, false))).toBe(bytes('011170 00 00 00000001'));
  });

  it('sets END_STREAM when asked', () => {
    expect(hex(dataFrameHeader(1, 70_000, true))).toBe(bytes('011170 00 01 00000001'));
  });
});

describe('writeFrameHeader', () => {
  it('writes 9 bytes at the offset given and nothing else', () => {
    const target = Buffer.alloc(13, 0xaa);
    writeFrameHeader(target, 2, 0x123456, 0x9, 0x4, 0x7fffffff);
    expect(hex(target)).toBe(bytes('aaaa  123456 09 04 7fffffff  aaaa'));
  });

  it('drops the reserved bit of a stream id above 2^31', () => {
    const target = Buffer.alloc(9);
    writeFrameHeader(target, 0, 1, 0x0, 0x0, 2 ** 31 + 5);
    expect(hex(target)).toBe(bytes('000001 00 00 00000005'));
    writeFrameHeader(target, 0, 1, 0x0, 0x0, 0xffffffff);
    expect(hex(target)).toBe(bytes('000001 00 00 7fffffff'));
  });
});

describe('headerFrames', () => {
  const block = Buffer.from('00010203040506070809', 'hex');

  it('cuts a block longer than the frame limit into HEADERS and CONTINUATION frames', () => {
    expect(hex(headerFrames(1, block, false, 4))).toBe(
      bytes(`
        000004 01 00 00000001 00010203
        000004 09 00 00000001 04050607
        000002 09 04 00000001 0809`),
    );
  });

  it('puts END_STREAM on the HEADERS frame only and END_HEADERS on the last frame only', () => {
    expect(hex(headerFrames(1, block, true, 4))).toBe(
      bytes(`
        000004 01 01 00000001 00010203
        000004 09 00 00000001 04050607
        000002 09 04 00000001 0809`),
    );
  });

  it('a block of exactly the limit is one HEADERS frame', () => {
    expect(hex(headerFrames(3, block.subarray(0, 4), true, 4))).toBe(bytes('000004 01 05 00000003 00010203'));
  });

  it('an empty block is one empty HEADERS frame with END_HEADERS', () => {
    expect(hex(headerFrames(1, Buffer.alloc(0), false, 4))).toBe(bytes('000000 01 04 00000001'));
    expect(hex(headerFrames(1, Buffer.alloc(0), true, 4))).toBe(bytes('000000 01 05 00000001'));
  });
});
