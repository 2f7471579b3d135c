import { encodeInteger, encodedIntegerLength } from './hpack-integer.js';
import { staticTableNameIndex } from './hpack-static-table.js';
import { huffmanEncodedLength, huffmanEncodeInto } from './huffman.js';

// HPACK encoding without a dynamic table: every field is a Literal Header Field without Indexing
// (RFC 7541 §6.2.2), its name an index into the static table when the table has the name. Such a
// block never changes the peer decoder's table, so the encoder keeps no state: there is nothing
// to track across calls, nothing to get out of step when a block is dropped, and the peer's
// SETTINGS_HEADER_TABLE_SIZE never matters (even 0 is fine). The cost is resending each value;
// a gRPC request's few short headers make that a handful of octets.

export interface EncodeHeaderBlockOptions {
  /** Huffman-code each name and value that comes out shorter that way (default false). */
  huffman?: boolean;
}

// Per field, what the first pass measured for the second: the static name index (0: none), and
// each string's encoded length, negated when Huffman-coded. So each name is looked up and each
// string measured once. Grows as needed, never shrinks; a call runs to completion before another
// can use it.
let plan = new Int32Array(3 * 16);

/**
 * Encodes `headers` (names and values as latin1 strings: one octet per character, its low 8 bits)
 * to one header block, each field a literal without indexing. With `huffman`, each string is
 * Huffman-coded when that is shorter than its raw octets.
 */
export function encodeHeaderBlock(
  headers: ReadonlyArray<readonly [string, string]>,
  options?: EncodeHeaderBlockOptions,
): Buffer {
  const huffman = options?.huffman === true;
  if (plan.length < 3 * headers.length) plan = new Int32Array(6 * headers.length);
  const p = plan;

  // Pass 1: the block's exact length, and how each string goes.
  let total = 0;
  for (let i = 0; i < headers.length; i++) {
    const [name, value] = headers[i]!;
    const nameIndex = staticTableNameIndex(name);
    p[3 * i] = nameIndex;
    if (nameIndex !== 0) {
      total += encodedIntegerLength(nameIndex, 4);
    } else {
      const n = stringLength(name, huffman);
      p[3 * i + 1] = n;
      total += 1 + literalLength(n);
    }
    const v = stringLength(value, huffman);
    p[3 * i + 2] = v;
    total += literalLength(v);
  }

  // Pass 2: write into a buffer of exactly that length.
  const out = Buffer.allocUnsafe(total);
  let o = 0;
  for (let i = 0; i < headers.length; i++) {
    const [name, value] = headers[i]!;
    const nameIndex = p[3 * i]!;
    if (nameIndex !== 0) {
      // 0000xxxx: without indexing, the name at a 4-bit prefix index.
      o = encodeInteger(out, o, nameIndex, 4, 0x00);
    } else {
      // 0x00: without indexing, a literal name follows.
      out[o++] = 0x00;
      o = writeString(out, o, name, p[3 * i + 1]!);
    }
    o = writeString(out, o, value, p[3 * i + 2]!);
  }
  return out;
}

// The octets of `s` as it will be sent: its Huffman length, negated, when that is shorter.
function stringLength(s: string, huffman: boolean): number {
  if (huffman && s.length !== 0) {
    const coded = huffmanEncodedLength(s);
    if (coded < s.length) return -coded;
  }
  return s.length;
}

// The length of a string literal (§5.2) whose octets take |length|: a 7-bit prefix length and them.
function literalLength(length: number): number {
  const octets = length < 0 ? -length : length;
  return encodedIntegerLength(octets, 7) + octets;
}

const SHORT_STRING = 64;

// Writes a string literal as planned: `length` negated means Huffman-coded.
function writeString(out: Buffer, at: number, s: string, length: number): number {
  if (length < 0) {
    const o = encodeInteger(out, at, -length, 7, 0x80);
    return huffmanEncodeInto(s, out, o);
  }
  const o = encodeInteger(out, at, length, 7, 0x00);
  // Most header strings are short, and a plain loop copies those in half the time Buffer#write
  // takes to get going. Both keep each character's low 8 bits.
  if (length <= SHORT_STRING) {
    for (let i = 0; i < length; i++) out[o + i] = s.charCodeAt(i);
    return o + length;
  }
  return o + out.write(s, o, length, 'latin1');
}
