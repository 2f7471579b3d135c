import { HTTP2_ERROR, Http2ProtocolError } from '../../grpc-http2-errors.js';

// HPACK's Huffman code (RFC 7541 §5.2, the code of Appendix B). The decoder reads a byte at a
// time through a state machine derived once, at module load, from the code table below: a state is
// a node of the code's binary tree, and one lookup per input byte gives the next state and the 0, 1
// or 2 symbols the byte completes. Walking the tree bit by bit per symbol would cost eight dependent
// branches per byte; the table costs one load.

/** The symbol that ends a Huffman string (30 one bits): never valid inside one (§5.2). */
const EOS = 256;

/**
 * RFC 7541 Appendix B: the code of each symbol 0-255 and EOS (256), right-aligned in its length.
 * The code is canonical and complete: its Kraft sum is exactly 1 (a unit test checks it).
 */
// prettier-ignore
export const HUFFMAN_CODES: readonly number[] = [
  /*   0 */ 0x00001ff8, 0x007fffd8, 0x0fffffe2, 0x0fffffe3, 0x0fffffe4, 0x0fffffe5, 0x0fffffe6, 0x0fffffe7,
  /*   8 */ 0x0fffffe8, 0x00ffffea, 0x3ffffffc, 0x0fffffe9, 0x0fffffea, 0x3ffffffd, 0x0fffffeb, 0x0fffffec,
  /*  16 */ 0x0fffffed, 0x0fffffee, 0x0fffffef, 0x0ffffff0, 0x0ffffff1, 0x0ffffff2, 0x3ffffffe, 0x0ffffff3,
  /*  24 */ 0x0ffffff4, 0x0ffffff5, 0x0ffffff6, 0x0ffffff7, 0x0ffffff8, 0x0ffffff9, 0x0ffffffa, 0x0ffffffb,
  /*  32 */ 0x00000014, 0x000003f8, 0x000003f9, 0x00000ffa, 0x00001ff9, 0x00000015, 0x000000f8, 0x000007fa,
  /*  40 */ 0x000003fa, 0x000003fb, 0x000000f9, 0x000007fb, 0x000000fa, 0x00000016, 0x00000017, 0x00000018,
  /*  48 */ 0x00000000, 0x00000001, 0x00000002, 0x00000019, 0x0000001a, 0x0000001b, 0x0000001c, 0x0000001d,
  /*  56 */ 0x0000001e, 0x0000001f, 0x0000005c, 0x000000fb, 0x00007ffc, 0x00000020, 0x00000ffb, 0x000003fc,
  /*  64 */ 0x00001ffa, 0x00000021, 0x0000005d, 0x0000005e, 0x0000005f, 0x00000060, 0x00000061, 0x00000062,
  /*  72 */ 0x00000063, 0x00000064, 0x00000065, 0x00000066, 0x00000067, 0x00000068, 0x00000069, 0x0000006a,
  /*  80 */ 0x0000006b, 0x0000006c, 0x0000006d, 0x0000006e, 0x0000006f, 0x00000070, 0x00000071, 0x00000072,
  /*  88 */ 0x000000fc, 0x00000073, 0x000000fd, 0x00001ffb, 0x0007fff0, 0x00001ffc, 0x00003ffc, 0x00000022,
  /*  96 */ 0x00007ffd, 0x00000003, 0x00000023, 0x00000004, 0x00000024, 0x00000005, 0x00000025, 0x00000026,
  /* 104 */ 0x00000027, 0x00000006, 0x00000074, 0x00000075, 0x00000028, 0x00000029, 0x0000002a, 0x00000007,
  /* 112 */ 0x0000002b, 0x00000076, 0x0000002c, 0x00000008, 0x00000009, 0x0000002d, 0x00000077, 0x00000078,
  /* 120 */ 0x00000079, 0x0000007a, 0x0000007b, 0x00007ffe, 0x000007fc, 0x00003ffd, 0x00001ffd, 0x0ffffffc,
  /* 128 */ 0x000fffe6, 0x003fffd2, 0x000fffe7, 0x000fffe8, 0x003fffd3, 0x003fffd4, 0x003fffd5, 0x007fffd9,
  /* 136 */ 0x003fffd6, 0x007fffda, 0x007fffdb, 0x007fffdc, 0x007fffdd, 0x007fffde, 0x00ffffeb, 0x007fffdf,
  /* 144 */ 0x00ffffec, 0x00ffffed, 0x003fffd7, 0x007fffe0, 0x00ffffee, 0x007fffe1, 0x007fffe2, 0x007fffe3,
  /* 152 */ 0x007fffe4, 0x001fffdc, 0x003fffd8, 0x007fffe5, 0x003fffd9, 0x007fffe6, 0x007fffe7, 0x00ffffef,
  /* 160 */ 0x003fffda, 0x001fffdd, 0x000fffe9, 0x003fffdb, 0x003fffdc, 0x007fffe8, 0x007fffe9, 0x001fffde,
  /* 168 */ 0x007fffea, 0x003fffdd, 0x003fffde, 0x00fffff0, 0x001fffdf, 0x003fffdf, 0x007fffeb, 0x007fffec,
  /* 176 */ 0x001fffe0, 0x001fffe1, 0x003fffe0, 0x001fffe2, 0x007fffed, 0x003fffe1, 0x007fffee, 0x007fffef,
  /* 184 */ 0x000fffea, 0x003fffe2, 0x003fffe3, 0x003fffe4, 0x007ffff0, 0x003fffe5, 0x003fffe6, 0x007ffff1,
  /* 192 */ 0x03ffffe0, 0x03ffffe1, 0x000fffeb, 0x0007fff1, 0x003fffe7, 0x007ffff2, 0x003fffe8, 0x01ffffec,
  /* 200 */ 0x03ffffe2, 0x03ffffe3, 0x03ffffe4, 0x07ffffde, 0x07ffffdf, 0x03ffffe5, 0x00fffff1, 0x01ffffed,
  /* 208 */ 0x0007fff2, 0x001fffe3, 0x03ffffe6, 0x07ffffe0, 0x07ffffe1, 0x03ffffe7, 0x07ffffe2, 0x00fffff2,
  /* 216 */ 0x001fffe4, 0x001fffe5, 0x03ffffe8, 0x03ffffe9, 0x0ffffffd, 0x07ffffe3, 0x07ffffe4, 0x07ffffe5,
  /* 224 */ 0x000fffec, 0x00fffff3, 0x000fffed, 0x001fffe6, 0x003fffe9, 0x001fffe7, 0x001fffe8, 0x007ffff3,
  /* 232 */ 0x003fffea, 0x003fffeb, 0x01ffffee, 0x01ffffef, 0x00fffff4, 0x00fffff5, 0x03ffffea, 0x007ffff4,
  /* 240 */ 0x03ffffeb, 0x07ffffe6, 0x03ffffec, 0x03ffffed, 0x07ffffe7, 0x07ffffe8, 0x07ffffe9, 0x07ffffea,
  /* 248 */ 0x07ffffeb, 0x0ffffffe, 0x07ffffec, 0x07ffffed, 0x07ffffee, 0x07ffffef, 0x07fffff0, 0x03ffffee,
  /* 256 */ 0x3fffffff,
];

/** RFC 7541 Appendix B: the length in bits of each symbol's code, 5 to 30. */
// prettier-ignore
export const HUFFMAN_CODE_LENGTHS: readonly number[] = [
  /*   0 */ 13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28,
  /*  16 */ 28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 28,
  /*  32 */  6, 10, 10, 12, 13,  6,  8, 11, 10, 10,  8, 11,  8,  6,  6,  6,
  /*  48 */  5,  5,  5,  6,  6,  6,  6,  6,  6,  6,  7,  8, 15,  6, 12, 10,
  /*  64 */ 13,  6,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,  7,
  /*  80 */  7,  7,  7,  7,  7,  7,  7,  7,  8,  7,  8, 13, 19, 13, 14,  6,
  /*  96 */ 15,  5,  6,  5,  6,  5,  6,  6,  6,  5,  7,  7,  6,  6,  6,  5,
  /* 112 */  6,  7,  6,  5,  5,  6,  7,  7,  7,  7,  7, 15, 11, 14, 13, 28,
  /* 128 */ 20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23,
  /* 144 */ 24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24,
  /* 160 */ 22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23,
  /* 176 */ 21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23,
  /* 192 */ 26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25,
  /* 208 */ 19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27,
  /* 224 */ 20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25, 25, 24, 24, 26, 23,
  /* 240 */ 26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26,
  /* 256 */ 30,
];

// The same data as typed arrays, for the encoder's inner loop.
const CODES = Uint32Array.from(HUFFMAN_CODES);
const LENGTHS = Uint8Array.from(HUFFMAN_CODE_LENGTHS);

// ---- Decoder tables -------------------------------------------------------------------------

// The code tree has 257 leaves, so 256 internal nodes: those are the decoder's states, numbered
// in the order they are created (the root is 0). While building, `children[2 * node + bit]` is
// the internal node a bit leads to, or a leaf as -(symbol + 1).
const STATES = 256;

// Each transition entry packs: bits 0-7 the first symbol completed, bits 8-15 the second, bits
// 16-23 the next state, bits 24-25 how many symbols were completed, bit 26 "EOS was completed".
// With EOS the count field reads 4 or more, so one `count > 2` test catches it.
const SYMBOL_COUNT_SHIFT = 24;
const EOS_FLAG = 1 << 26;

// Whether a string may end in a state: END_OK, or why not.
const END_OK = 0;
const END_PADDING_TOO_LONG = 1;
const END_NOT_EOS_PREFIX = 2;

// Built on the first Huffman-coded string, not at load (about 3 ms and 256 KiB): a short-lived
// client may never see one (Netty's encoder codes only strings of 512 bytes or more).
let decoderTables: { TRANSITIONS: Uint32Array; END_CHECK: Uint8Array } | undefined;

function buildDecoderTables(): { TRANSITIONS: Uint32Array; END_CHECK: Uint8Array } {
  const children = new Int32Array(2 * STATES);
  const depth = new Uint8Array(STATES);
  const allOnes = new Uint8Array(STATES);
  allOnes[0] = 1;
  let nodes = 1;
  for (let symbol = 0; symbol <= EOS; symbol++) {
    const code = CODES[symbol]!;
    const length = LENGTHS[symbol]!;
    let node = 0;
    for (let i = length - 1; i > 0; i--) {
      const slot = 2 * node + ((code >>> i) & 1);
      let next = children[slot]!;
      if (next === 0) {
        // 0 is the root, never a child: it marks an empty slot while building.
        if (nodes === STATES)
          throw new Error('HPACK Huffman table: more internal nodes than a prefix code has');
        next = nodes++;
        children[slot] = next;
        depth[next] = depth[node]! + 1;
        allOnes[next] = allOnes[node]! & ((code >>> i) & 1);
      } else if (next < 0) {
        throw new Error(`HPACK Huffman table: the code of ${symbol} extends another symbol's code`);
      }
      node = next;
    }
    const slot = 2 * node + (code & 1);
    if (children[slot] !== 0) throw new Error(`HPACK Huffman table: the code of ${symbol} is not a leaf`);
    children[slot] = -(symbol + 1);
  }
  if (nodes !== STATES || children.includes(0)) {
    throw new Error('HPACK Huffman table: the code is not complete');
  }

  // A string may end in a state whose path from the root is at most 7 one bits: those bits are
  // the padding, which must be the most significant bits of EOS (§5.2).
  const endCheck = new Uint8Array(STATES);
  for (let s = 0; s < STATES; s++) {
    endCheck[s] = allOnes[s] ? (depth[s]! <= 7 ? END_OK : END_PADDING_TOO_LONG) : END_NOT_EOS_PREFIX;
  }

  // First the transitions on 4 bits, then each byte's as its two halves': 16 times fewer bit
  // steps than walking 8 bits from every state, which keeps the module's load time short. Codes
  // are at least 5 bits long, so 4 bits complete at most one symbol and a byte at most two.
  const nibbles = new Uint32Array(STATES * 16);
  for (let s = 0; s < STATES; s++) {
    for (let nibble = 0; nibble < 16; nibble++) {
      let node = s;
      let entry = 0;
      for (let bit = 3; bit >= 0; bit--) {
        const next = children[2 * node + ((nibble >>> bit) & 1)]!;
        if (next >= 0) {
          node = next;
          continue;
        }
        const symbol = -next - 1;
        entry = symbol === EOS ? EOS_FLAG : symbol | (1 << SYMBOL_COUNT_SHIFT);
        node = 0;
      }
      nibbles[(s << 4) | nibble] = entry | (node << 16);
    }
  }
  const transitions = new Uint32Array(STATES * 256);
  for (let s = 0; s < STATES; s++) {
    for (let high = 0; high < 16; high++) {
      const first = nibbles[(s << 4) | high]!;
      const at = (s << 8) | (high << 4);
      const row = ((first >>> 16) & 0xff) << 4;
      if (first & EOS_FLAG) {
        transitions.fill(EOS_FLAG, at, at + 16);
      } else if (first >>> SYMBOL_COUNT_SHIFT === 0) {
        // The high half completes nothing: the byte does what its low half does from there.
        transitions.set(nibbles.subarray(row, row + 16), at);
      } else {
        // The high half completes a symbol, first; the low half's, if any, goes second.
        for (let low = 0; low < 16; low++) {
          const second = nibbles[row | low]!;
          transitions[at | low] =
            second & EOS_FLAG
              ? EOS_FLAG
              : (first & 0xff) |
                ((second & 0xff) << 8) |
                (second & 0xff0000) |
                ((1 + (second >>> SYMBOL_COUNT_SHIFT)) << SYMBOL_COUNT_SHIFT);
        }
      }
    }
  }
  return { TRANSITIONS: transitions, END_CHECK: endCheck };
}

// Decoded octets land here before becoming a string; it grows to the longest string seen. A
// Huffman code is at least 5 bits, so n input bytes decode to at most floor(8n / 5) octets.
let scratch = Buffer.allocUnsafe(1024);

function compressionError(message: string): Http2ProtocolError {
  return new Http2ProtocolError(HTTP2_ERROR.COMPRESSION_ERROR, `HPACK: ${message}`);
}

/**
 * Decodes the Huffman-coded octets `bytes[start, end)` to a string of those octets (latin1: one
 * character per octet, as header field values are octets). Throws `Http2ProtocolError`
 * (COMPRESSION_ERROR) when the string contains EOS or its padding is longer than 7 bits or not
 * all ones (RFC 7541 §5.2).
 */
export function huffmanDecode(bytes: Uint8Array, start: number, end: number): string {
  const { TRANSITIONS, END_CHECK } = (decoderTables ??= buildDecoderTables());
  const limit = Math.floor(((end - start) * 8) / 5);
  if (scratch.length < limit) scratch = Buffer.allocUnsafe(Math.max(limit, 2 * scratch.length));
  const out = scratch;
  let o = 0;
  let state = 0;
  for (let i = start; i < end; i++) {
    const entry = TRANSITIONS[(state << 8) | bytes[i]!]!;
    const count = entry >>> SYMBOL_COUNT_SHIFT;
    if (count !== 0) {
      if (count > 2) throw compressionError('Huffman-coded string contains EOS');
      out[o++] = entry & 0xff;
      if (count === 2) out[o++] = (entry >>> 8) & 0xff;
    }
    state = (entry >>> 16) & 0xff;
  }
  const endCheck = END_CHECK[state]!;
  if (endCheck !== END_OK) {
    throw compressionError(
      endCheck === END_PADDING_TOO_LONG
        ? 'Huffman-coded string has more than 7 bits of padding'
        : 'Huffman-coded string ends with padding that is not the most significant bits of EOS',
    );
  }
  return out.toString('latin1', 0, o);
}

// ---- Encoder --------------------------------------------------------------------------------

/**
 * The length in octets of `s` Huffman-coded. `s` is taken as latin1: each character is one octet
 * (its low 8 bits, as Buffer's latin1 encoding does).
 */
export function huffmanEncodedLength(s: string): number {
  let bits = 0;
  for (let i = 0; i < s.length; i++) bits += LENGTHS[s.charCodeAt(i) & 0xff]!;
  return (bits + 7) >>> 3;
}

/**
 * Writes `s` Huffman-coded at `target[at]` and returns the offset after it. The caller has made
 * room for `huffmanEncodedLength(s)` octets. The last octet is padded with the high bits of EOS
 * (ones), as §5.2 requires.
 */
export function huffmanEncodeInto(s: string, target: Uint8Array, at: number): number {
  // `pending` holds the `bits` (0-7) not yet written, in its low bits. A code of up to 24 bits
  // fits beside them in 31 bits; the longer codes (25-30 bits: control characters and many
  // octets above 0xbf, rare in headers) go in two steps.
  let pending = 0;
  let bits = 0;
  let o = at;
  for (let i = 0; i < s.length; i++) {
    const symbol = s.charCodeAt(i) & 0xff;
    let code = CODES[symbol]!;
    let length = LENGTHS[symbol]!;
    if (length > 24) {
      const high = length - 16;
      pending = (pending << high) | (code >>> 16);
      bits += high;
      while (bits >= 8) {
        bits -= 8;
        target[o++] = (pending >>> bits) & 0xff;
      }
      pending &= (1 << bits) - 1;
      code &= 0xffff;
      length = 16;
    }
    pending = (pending << length) | code;
    bits += length;
    while (bits >= 8) {
      bits -= 8;
      target[o++] = (pending >>> bits) & 0xff;
    }
    pending &= (1 << bits) - 1;
  }
  if (bits > 0) target[o++] = ((pending << (8 - bits)) | (0xff >>> bits)) & 0xff;
  return o;
}

/** `s` (latin1, see {@link huffmanEncodedLength}) Huffman-coded. */
export function huffmanEncode(s: string): Buffer {
  const out = Buffer.allocUnsafe(huffmanEncodedLength(s));
  huffmanEncodeInto(s, out, 0);
  return out;
}
