import { describe, expect, it } from '@jest/globals';
import { HTTP2_ERROR, Http2ProtocolError } from '../../grpc-http2-errors.js';
import {
  HUFFMAN_CODE_LENGTHS,
  HUFFMAN_CODES,
  huffmanDecode,
  huffmanEncode,
  huffmanEncodedLength,
  huffmanEncodeInto,
} from './huffman.js';

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

function hex(text: string): Uint8Array {
  return Buffer.from(text.replace(/\s/g, ''), 'hex');
}

function decodeAll(bytes: Uint8Array): string {
  return huffmanDecode(bytes, 0, bytes.length);
}

function expectCompressionError(run: () => unknown, message: RegExp): void {
  let caught: unknown;
  try {
    run();
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(Http2ProtocolError);
  expect((caught as Http2ProtocolError).http2Code).toBe(HTTP2_ERROR.COMPRESSION_ERROR);
  expect((caught as Http2ProtocolError).message).toMatch(message);
}

describe('the Huffman code table (RFC 7541 Appendix B)', () => {
  it('has 257 codes, each fitting its length of 5 to 30 bits', () => {
    expect(HUFFMAN_CODES).toHaveLength(257);
    expect(HUFFMAN_CODE_LENGTHS).toHaveLength(257);
    HUFFMAN_CODES.forEach((code, symbol) => {
      const length = HUFFMAN_CODE_LENGTHS[symbol]!;
      expect(length).toBeGreaterThanOrEqual(5);
      expect(length).toBeLessThanOrEqual(30);
      expect(code).toBeLessThan(2 ** length);
    });
  });

  it('is a complete code: its Kraft sum is exactly 1', () => {
    // Sum of 2^-length, scaled by 2^30 to stay in exact integers.
    const sum = HUFFMAN_CODE_LENGTHS.reduce((total, length) => total + 2 ** (30 - length), 0);
    expect(sum).toBe(2 ** 30);
  });

  it('is a prefix code: no code starts another', () => {
    const clashes: Array<[number, number]> = [];
    for (let a = 0; a < 257; a++) {
      for (let b = 0; b < 257; b++) {
        const la = HUFFMAN_CODE_LENGTHS[a]!;
        const lb = HUFFMAN_CODE_LENGTHS[b]!;
        if (a !== b && la <= lb && Math.floor(HUFFMAN_CODES[b]! / 2 ** (lb - la)) === HUFFMAN_CODES[a]) {
          clashes.push([a, b]);
        }
      }
    }
    expect(clashes).toEqual([]);
  });

  it('EOS is 30 one bits; a few rows as the RFC prints them', () => {
    expect([HUFFMAN_CODES[256], HUFFMAN_CODE_LENGTHS[256]]).toEqual([0x3fffffff, 30]);
    expect([HUFFMAN_CODES[0x30], HUFFMAN_CODE_LENGTHS[0x30]]).toEqual([0x0, 5]); // '0'
    expect([HUFFMAN_CODES[0x2f], HUFFMAN_CODE_LENGTHS[0x2f]]).toEqual([0x18, 6]); // '/'
    expect([HUFFMAN_CODES[0x61], HUFFMAN_CODE_LENGTHS[0x61]]).toEqual([0x3, 5]); // 'a'
    expect([HUFFMAN_CODES[0xff], HUFFMAN_CODE_LENGTHS[0xff]]).toEqual([0x3ffffee, 26]);
  });
});

describe('huffmanEncode / huffmanDecode', () => {
  // The Huffman-coded strings of RFC 7541 Appendix C.4 and C.6.
  const rfcStrings: Array<[string, string]> = [
    ['www.example.com', 'f1e3 c2e5 f23a 6ba0 ab90 f4ff'],
    ['no-cache', 'a8eb 1064 9cbf'],
    ['custom-key', '25a8 49e9 5ba9 7d7f'],
    ['custom-value', '25a8 49e9 5bb8 e8b4 bf'],
    ['302', '6402'],
    ['307', '640e ff'],
    ['private', 'aec3 771a 4b'],
    ['Mon, 21 Oct 2013 20:13:21 GMT', 'd07a be94 1054 d444 a820 0595 040b 8166 e082 a62d 1bff'],
    ['https://www.example.com', '9d29 ad17 1863 c78f 0b97 c8e9 ae82 ae43 d3'],
    ['gzip', '9bd9 ab'],
    [
      'foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1',
      '94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07',
    ],
  ];

  it.each(rfcStrings)('codes %j as the RFC does', (text, coded) => {
    expect(huffmanEncode(text).toString('hex')).toBe(Buffer.from(hex(coded)).toString('hex'));
    expect(huffmanEncodedLength(text)).toBe(hex(coded).length);
    expect(decodeAll(hex(coded))).toBe(text);
  });

  it('decodes the empty string', () => {
    expect(decodeAll(new Uint8Array(0))).toBe('');
    expect(huffmanEncode('')).toHaveLength(0);
  });

  it('round-trips every single octet 0-255, and all of them in one string', () => {
    let all = '';
    for (let octet = 0; octet < 256; octet++) {
      const text = String.fromCharCode(octet);
      all += text;
      const coded = huffmanEncode(text);
      expect(coded).toHaveLength(Math.ceil(HUFFMAN_CODE_LENGTHS[octet]! / 8));
      expect(decodeAll(coded)).toBe(text);
    }
    expect(decodeAll(huffmanEncode(all))).toBe(all);
  });

  it('round-trips random strings, of all octets and of header-like characters', () => {
    const next = random(7541);
    const printable = 'abcdefghijklmnopqrstuvwxyz0123456789-_./:;=, ABCXYZ';
    for (let i = 0; i < 2000; i++) {
      const length = Math.floor(next() * (i % 10 === 0 ? 600 : 40));
      let text = '';
      for (let j = 0; j < length; j++) {
        text +=
          i % 2 === 0
            ? String.fromCharCode(Math.floor(next() * 256))
            : printable[Math.floor(next() * printable.length)]!;
      }
      const coded = huffmanEncode(text);
      expect(coded).toHaveLength(huffmanEncodedLength(text));
      expect(decodeAll(coded)).toBe(text);
    }
  });

  it('decodes a slice of a larger buffer, and encodes into one at an offset', () => {
    const target = Buffer.alloc(40, 0xaa);
    const end = huffmanEncodeInto('www.example.com', target, 5);
    expect(end).toBe(17);
    expect(target.subarray(5, 17).toString('hex')).toBe('f1e3c2e5f23a6ba0ab90f4ff');
    expect(target[4]).toBe(0xaa);
    expect(target[17]).toBe(0xaa);
    expect(huffmanDecode(target, 5, 17)).toBe('www.example.com');
  });

  it('takes each character as its low 8 bits, as latin1 does', () => {
    expect(huffmanEncode('\u0161')).toEqual(huffmanEncode('a'));
  });
});

describe('huffmanDecode refuses what §5.2 forbids', () => {
  it('EOS inside the string', () => {
    // 30 one bits are EOS, whatever follows.
    expectCompressionError(() => decodeAll(hex('ffff ffff')), /contains EOS/);
    // 'a' (00011), then EOS, then 5 bits of padding.
    expectCompressionError(() => decodeAll(hex('1fff ffff ff')), /contains EOS/);
  });

  it('padding longer than 7 bits', () => {
    expectCompressionError(() => decodeAll(hex('ff')), /more than 7 bits of padding/);
    // 'a' (00011), then 11 one bits.
    expectCompressionError(() => decodeAll(hex('1fff')), /more than 7 bits of padding/);
    // '0' (00000) and its 3 bits of padding, then a whole octet of ones.
    expectCompressionError(() => decodeAll(hex('07ff')), /more than 7 bits of padding/);
  });

  it('padding that is not the most significant bits of EOS', () => {
    // '0' (00000) then padding 000.
    expectCompressionError(() => decodeAll(hex('00')), /not the most significant bits of EOS/);
    // 'a' (00011) then padding 101.
    expectCompressionError(() => decodeAll(hex('1d')), /not the most significant bits of EOS/);
    // A string cut 16 bits into the 19-bit code of a backslash (1111 1111 1111 1110 000).
    expectCompressionError(() => decodeAll(hex('fffe')), /not the most significant bits of EOS/);
  });

  it('accepts 1 to 7 bits of one-padding', () => {
    expect(decodeAll(hex('07'))).toBe('0'); // '0' + 111
    expect(decodeAll(hex('1f'))).toBe('a'); // 'a' + 111
    expect(decodeAll(hex('003f'))).toBe('00'); // '0' '0' + 111111
    expect(decodeAll(hex('ffc7'))).toBe('\0'); // 13-bit 0x00 (1111111111000) + 111
  });
});
