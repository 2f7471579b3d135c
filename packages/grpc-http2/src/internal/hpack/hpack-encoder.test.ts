import { describe, expect, it } from '@jest/globals';
import { HpackDecoder } from './hpack-decoder.js';
import { encodeHeaderBlock } from './hpack-encoder.js';
import { HPACK_STATIC_TABLE } from './hpack-static-table.js';
import { huffmanEncode } from './huffman.js';

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

function hexOf(block: Buffer): string {
  return block.toString('hex');
}

describe('encodeHeaderBlock', () => {
  it('writes each field as a literal without indexing, names from the static table by index', () => {
    expect(hexOf(encodeHeaderBlock([[':method', 'GET']]))).toBe('0203474554');
    expect(hexOf(encodeHeaderBlock([[':path', '/']]))).toBe('04012f');
    // Index 31 (content-type) needs a continuation octet: 0x0f then 31 - 15 = 16.
    expect(hexOf(encodeHeaderBlock([['content-type', 'a']]))).toBe('0f100161');
    // The first entry with the name is used (:status is 8 to 14).
    expect(hexOf(encodeHeaderBlock([[':status', '503']]))).toBe('0803353033');
  });

  it('writes a name the static table lacks as a literal', () => {
    expect(hexOf(encodeHeaderBlock([['x-a', 'b']]))).toBe('0003782d610162');
    expect(hexOf(encodeHeaderBlock([['', '']]))).toBe('000000');
  });

  it('writes lengths of 127 and more with continuation octets', () => {
    const value = 'v'.repeat(300);
    // 300 = 127 + 173: 0x7f, 0xad (173 & 0x7f | 0x80), 0x01.
    expect(hexOf(encodeHeaderBlock([[':path', value]]))).toBe(
      '047fad01' + Buffer.from(value).toString('hex'),
    );
  });

  it('Huffman-codes a string only with the option, and only when shorter', () => {
    const fields: Array<[string, string]> = [[':authority', 'www.example.com']];
    expect(hexOf(encodeHeaderBlock(fields))).toBe('010f' + Buffer.from('www.example.com').toString('hex'));
    expect(hexOf(encodeHeaderBlock(fields, { huffman: true }))).toBe('018cf1e3c2e5f23a6ba0ab90f4ff');
    // The name too, when it is a literal.
    expect(hexOf(encodeHeaderBlock([['custom-key', 'custom-value']], { huffman: true }))).toBe(
      '008825a849e95ba97d7f8925a849e95bb8e8b4bf',
    );
    // 0x00 takes 13 bits, 2 octets: raw is shorter. "aaaa" takes 20 bits, 3 octets.
    expect(hexOf(encodeHeaderBlock([[':path', '\0']], { huffman: true }))).toBe('040100');
    expect(hexOf(encodeHeaderBlock([[':path', 'aaaa']], { huffman: true }))).toBe(
      '0483' + hexOf(huffmanEncode('aaaa')),
    );
    // Equal length stays raw: "%" takes 6 bits, one octet either way.
    expect(hexOf(encodeHeaderBlock([[':path', '%']], { huffman: true }))).toBe('040125');
  });

  it('takes each character as its low 8 bits (latin1), short string or long', () => {
    const decoder = new HpackDecoder({ maxTableBytes: 4096, maxHeaderListBytes: 65_536 });
    for (const length of [1, 64, 65, 500]) {
      for (const huffman of [false, true]) {
        const block = encodeHeaderBlock([['x', '\u0161'.repeat(length)]], { huffman });
        expect(decoder.decode(block)).toEqual([['x', 'a'.repeat(length)]]);
      }
    }
  });

  it('encodes the empty list as the empty block', () => {
    expect(encodeHeaderBlock([])).toHaveLength(0);
  });

  it('a typical gRPC request decodes back, and changes no decoder state', () => {
    const request: Array<[string, string]> = [
      [':method', 'POST'],
      [':scheme', 'http'],
      [':path', '/hadoop.hdds.datanode.XceiverClientProtocolService/send'],
      [':authority', 'datanode-17.example.com:9859'],
      ['content-type', 'application/grpc'],
      ['te', 'trailers'],
      ['grpc-timeout', '30S'],
      ['user-agent', 'fastpath-grpc-http2/0.1.0'],
    ];
    const decoder = new HpackDecoder({ maxTableBytes: 4096, maxHeaderListBytes: 65_536 });
    for (const huffman of [false, true]) {
      expect(decoder.decode(encodeHeaderBlock(request, { huffman }))).toEqual(request);
      expect(decoder.dynamicTableEntries()).toEqual([]);
    }
    expect(encodeHeaderBlock(request, { huffman: true }).length).toBeLessThan(
      encodeHeaderBlock(request).length,
    );
  });

  it('round-trips random header lists, Huffman on and off', () => {
    const next = random(20_260_105);
    const decoder = new HpackDecoder({ maxTableBytes: 4096, maxHeaderListBytes: 1 << 24 });
    const pick = (n: number): number => Math.floor(next() * n);
    const text = (maxLength: number): string => {
      const length = pick(maxLength + 1);
      const kind = pick(3);
      let s = '';
      for (let i = 0; i < length; i++) {
        s +=
          kind === 0
            ? String.fromCharCode(pick(256)) // any octet
            : kind === 1
              ? String.fromCharCode(0x20 + pick(0x5f)) // printable ASCII
              : 'abcdefghijklmnopqrstuvwxyz0123456789-_'[pick(38)]!;
      }
      return s;
    };
    for (let round = 0; round < 1500; round++) {
      const count = pick(round % 50 === 0 ? 200 : 12);
      const headers: Array<[string, string]> = [];
      for (let i = 0; i < count; i++) {
        const name = next() < 0.4 ? HPACK_STATIC_TABLE[pick(61)]![0] : text(20);
        headers.push([name, text(round % 25 === 0 ? 400 : 40)]);
      }
      const huffman = round % 2 === 0;
      const block = encodeHeaderBlock(headers, { huffman });
      expect(decoder.decode(block)).toEqual(headers);
    }
    expect(decoder.dynamicTableEntries()).toEqual([]);
  });
});
