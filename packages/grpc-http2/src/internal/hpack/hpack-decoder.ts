import { HTTP2_ERROR, Http2ProtocolError } from '../../grpc-http2-errors.js';
import { decodeInteger, type HpackCursor } from './hpack-integer.js';
import { HPACK_STATIC_TABLE, HPACK_STATIC_TABLE_LENGTH } from './hpack-static-table.js';
import { huffmanDecode } from './huffman.js';

// HPACK decoding (RFC 7541 §6) with the dynamic table (§2.3.2, §4). HTTP/2 gives each direction
// of a connection one compression context: the decoder must see every header block the peer
// sends, in order, so that its dynamic table stays the mirror of the peer encoder's.

/** What §4.1 adds to a field's name and value octets when sizing tables and header lists. */
export const HPACK_ENTRY_OVERHEAD = 32;

export interface HpackDecoderOptions {
  /**
   * The SETTINGS_HEADER_TABLE_SIZE this side advertised (4096 when it sent none): the initial
   * size of the dynamic table and the bound on every dynamic table size update.
   */
  maxTableBytes: number;
  /**
   * The largest header list a block may decode to, counted as §4.1 counts table entries (name +
   * value + 32 octets per field), as SETTINGS_MAX_HEADER_LIST_SIZE is.
   */
  maxHeaderListBytes: number;
}

function compressionError(message: string): Http2ProtocolError {
  return new Http2ProtocolError(HTTP2_ERROR.COMPRESSION_ERROR, `HPACK: ${message}`);
}

/** Fields as {@link HpackDecoder.decodeInto} lists them (name, value, name, value…) as pairs. */
export function fieldPairs(flat: readonly string[]): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (let i = 0; i < flat.length; i += 2) pairs.push([flat[i]!, flat[i + 1]!]);
  return pairs;
}

/**
 * One connection's HPACK decoder: {@link decode} takes each complete header block (a HEADERS or
 * PUSH_PROMISE fragment with its CONTINUATIONs) in the order the peer sent them.
 *
 * Any error is an `Http2ProtocolError` with COMPRESSION_ERROR, which HTTP/2 makes a connection
 * error: after one the dynamic table may hold part of the failed block, so the decoder must not
 * be used again (the connection ends with GOAWAY).
 */
export class HpackDecoder {
  // The position in the block being decoded.
  readonly #cursor: HpackCursor = { pos: 0 };

  readonly #maxTableBytes: number;
  readonly #maxHeaderListBytes: number;
  // The dynamic table's current maximum size: the last size update's, else maxTableBytes.
  #tableLimit: number;
  #tableBytes = 0;
  // The dynamic table as a ring: entry 0 (HPACK index 62, the newest) is at #head - 1, entry
  // #count - 1 (the oldest, evicted first) at #head - #count, modulo the capacity (a power of
  // two). Names and values apart, so that a lookup does not go through a pair.
  #names: string[] = new Array<string>(16);
  #values: string[] = new Array<string>(16);
  #head = 0;
  #count = 0;

  constructor(options: HpackDecoderOptions) {
    this.#maxTableBytes = options.maxTableBytes;
    this.#maxHeaderListBytes = options.maxHeaderListBytes;
    this.#tableLimit = options.maxTableBytes;
  }

  /** The dynamic table's entries, newest (HPACK index 62) first. For tests and diagnostics. */
  dynamicTableEntries(): Array<[string, string]> {
    const entries: Array<[string, string]> = [];
    for (let i = 0; i < this.#count; i++) {
      const slot = this.#slot(i);
      entries.push([this.#names[slot]!, this.#values[slot]!]);
    }
    return entries;
  }

  /** The dynamic table's size as §4.1 counts it (name + value + 32 octets per entry). */
  get dynamicTableBytes(): number {
    return this.#tableBytes;
  }

  /** The dynamic table's current maximum size (the last size update's, else `maxTableBytes`). */
  get dynamicTableLimit(): number {
    return this.#tableLimit;
  }

  /**
   * Decodes one complete header block to its fields, `[name, value]` in order, names and values
   * as latin1 strings (one character per octet). Updates the dynamic table as the block says.
   * Throws `Http2ProtocolError` (COMPRESSION_ERROR) on any malformed or disallowed input.
   */
  decode(block: Uint8Array): Array<[string, string]> {
    const flat: string[] = [];
    this.decodeInto(block, flat);
    return fieldPairs(flat);
  }

  /**
   * {@link decode} into `fields` (emptied first) as name, value, name, value…: a connection that
   * reads each block's few fields at once reuses one array instead of a pair and a list per block.
   */
  decodeInto(block: Uint8Array, fields: string[]): void {
    const end = block.length;
    fields.length = 0;
    let listBytes = 0;
    this.#cursor.pos = 0;
    while (this.#cursor.pos < end) {
      const first = block[this.#cursor.pos]!;
      let name: string;
      let value: string;
      if (first & 0x80) {
        // §6.1 Indexed Header Field: 1xxxxxxx, a 7-bit prefix index.
        const index = decodeInteger(block, this.#cursor, end, 7);
        if (index === 0) throw compressionError('index 0 is not a valid table index');
        if (index <= HPACK_STATIC_TABLE_LENGTH) {
          const entry = HPACK_STATIC_TABLE[index - 1]!;
          name = entry[0];
          value = entry[1];
        } else {
          const slot = this.#dynamicSlot(index);
          name = this.#names[slot]!;
          value = this.#values[slot]!;
        }
      } else if (first & 0x40) {
        // §6.2.1 Literal with Incremental Indexing: 01xxxxxx, a 6-bit prefix name index (0: a
        // literal name follows). The field then enters the dynamic table.
        name = this.#readName(block, end, 6);
        value = this.#readString(block, end);
        this.#insert(name, value);
      } else if (first & 0x20) {
        // §6.3 Dynamic Table Size Update: 001xxxxx, a 5-bit prefix size. RFC 9113 §4.3.1 allows
        // it only before the block's first field (RFC 7541 §4.2 puts it at the block's start).
        if (fields.length !== 0) {
          throw compressionError('dynamic table size update after a header field of the block');
        }
        const size = decodeInteger(block, this.#cursor, end, 5);
        if (size > this.#maxTableBytes) {
          throw compressionError(
            `dynamic table size update to ${size} exceeds the advertised SETTINGS_HEADER_TABLE_SIZE ${this.#maxTableBytes}`,
          );
        }
        this.#tableLimit = size;
        this.#evictTo(size);
        continue;
      } else {
        // §6.2.2 Literal without Indexing (0000xxxx) and §6.2.3 Literal Never Indexed
        // (0001xxxx): a 4-bit prefix name index; neither touches the table. Never Indexed only
        // matters to an intermediary re-encoding the field, which this decoder does not serve.
        name = this.#readName(block, end, 4);
        value = this.#readString(block, end);
      }
      listBytes += name.length + value.length + HPACK_ENTRY_OVERHEAD;
      if (listBytes > this.#maxHeaderListBytes) {
        throw compressionError(
          `header list exceeds ${this.#maxHeaderListBytes} octets (SETTINGS_MAX_HEADER_LIST_SIZE)`,
        );
      }
      fields.push(name, value);
    }
  }

  // A literal's name: the name of the entry at the prefix index, or a string literal when 0.
  #readName(block: Uint8Array, end: number, prefixBits: number): string {
    const index = decodeInteger(block, this.#cursor, end, prefixBits);
    if (index === 0) return this.#readString(block, end);
    if (index <= HPACK_STATIC_TABLE_LENGTH) return HPACK_STATIC_TABLE[index - 1]![0];
    return this.#names[this.#dynamicSlot(index)]!;
  }

  // §5.2 String Literal: H (Huffman) flag, 7-bit prefix length, that many octets.
  #readString(block: Uint8Array, end: number): string {
    if (this.#cursor.pos >= end) throw compressionError('header block ends before a string literal');
    const huffman = (block[this.#cursor.pos]! & 0x80) !== 0;
    const length = decodeInteger(block, this.#cursor, end, 7);
    const start = this.#cursor.pos;
    // Checked before decoding anything: a length is the peer's claim, the block is what came.
    if (length > end - start) {
      throw compressionError(
        `string literal of ${length} octets runs past the header block's end (${end - start} octets left)`,
      );
    }
    this.#cursor.pos = start + length;
    if (huffman) return huffmanDecode(block, start, start + length);
    return latin1(block, start, start + length);
  }

  // The ring slot of HPACK index `index` (> 61), or an error if the table has no such entry.
  #dynamicSlot(index: number): number {
    const i = index - HPACK_STATIC_TABLE_LENGTH - 1;
    if (i >= this.#count) {
      throw compressionError(
        `index ${index} is beyond the ${HPACK_STATIC_TABLE_LENGTH} static and ${this.#count} dynamic entries`,
      );
    }
    return this.#slot(i);
  }

  #slot(i: number): number {
    return (this.#head - 1 - i) & (this.#names.length - 1);
  }

  // §4.4: evict the oldest entries until the new one fits, then add it as the newest; an entry
  // larger than the whole table empties it and is not added (not an error).
  #insert(name: string, value: string): void {
    const size = name.length + value.length + HPACK_ENTRY_OVERHEAD;
    if (size > this.#tableLimit) {
      this.#evictTo(0);
      return;
    }
    this.#evictTo(this.#tableLimit - size);
    if (this.#count === this.#names.length) this.#grow();
    const mask = this.#names.length - 1;
    this.#names[this.#head] = name;
    this.#values[this.#head] = value;
    this.#head = (this.#head + 1) & mask;
    this.#count++;
    this.#tableBytes += size;
  }

  // §4.3: evict the oldest entries until the table holds at most `bytes`.
  #evictTo(bytes: number): void {
    const mask = this.#names.length - 1;
    while (this.#tableBytes > bytes) {
      const oldest = (this.#head - this.#count) & mask;
      const name = this.#names[oldest]!;
      const value = this.#values[oldest]!;
      this.#tableBytes -= name.length + value.length + HPACK_ENTRY_OVERHEAD;
      // Drop the references so that evicted strings can be collected.
      this.#names[oldest] = '';
      this.#values[oldest] = '';
      this.#count--;
    }
  }

  // Doubles the ring, the entries copied oldest first from slot 0 on.
  #grow(): void {
    const capacity = this.#names.length;
    const names = new Array<string>(2 * capacity);
    const values = new Array<string>(2 * capacity);
    for (let i = 0; i < this.#count; i++) {
      const from = (this.#head - this.#count + i) & (capacity - 1);
      names[i] = this.#names[from]!;
      values[i] = this.#values[from]!;
    }
    this.#names = names;
    this.#values = values;
    this.#head = this.#count;
  }
}

// Octets as a latin1 string without copying them first: a Buffer view over the same memory.
function latin1(block: Uint8Array, start: number, end: number): string {
  const buffer = Buffer.isBuffer(block)
    ? block
    : Buffer.from(block.buffer, block.byteOffset, block.byteLength);
  return buffer.toString('latin1', start, end);
}
