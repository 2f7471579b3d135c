// A protobuf writer for the generated encoders that writes as they go. protobufjs's own writer
// queues an operation object per field and a state object per nested message, and only at
// `finish()` lays them out: some forty objects and two kilobytes for an OM request of a few
// hundred bytes, on every call. This one writes each field straight into one reused buffer; a
// nested message's length is written in front of it at `ldelim()`, one byte reserved at `fork()`
// and the message moved along in the rare case its length needs more. The generated encoders
// drive it unchanged (`Type.encode(message, writer)`), so the bytes are theirs: a property test
// holds them to protobufjs's writer's, byte for byte.
import type { Writer } from 'protobufjs/minimal.js';
import protobuf from 'protobufjs/minimal.js';

const { LongBits } = protobuf.util;

/** What the generated encoders pass a 64-bit field as. */
type Int64Like = number | string | { low: number; high: number };

/** A generated message type's encoder. */
export interface MessageEncoder<M> {
  encode(message: M, writer?: Writer): Writer;
}

/** Reused buffers above this size are dropped after use rather than kept. */
const KEEP_BYTES = 64 * 1024;

class OnePassWriter {
  #buf = Buffer.allocUnsafe(1024);
  #pos = 0;
  /** Where each open nested message's reserved length byte is. */
  readonly #forks: number[] = [];

  #ensure(n: number): void {
    if (this.#pos + n <= this.#buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.#buf.length * 2, this.#pos + n));
    this.#buf.copy(grown, 0, 0, this.#pos);
    this.#buf = grown;
  }

  #varint32(value: number): void {
    this.#ensure(5);
    const buf = this.#buf;
    let pos = this.#pos;
    let v = value >>> 0;
    while (v > 127) {
      buf[pos++] = (v & 127) | 128;
      v >>>= 7;
    }
    buf[pos++] = v;
    this.#pos = pos;
  }

  #varint64(lo: number, hi: number): void {
    this.#ensure(10);
    const buf = this.#buf;
    let pos = this.#pos;
    lo >>>= 0;
    hi >>>= 0;
    while (hi !== 0) {
      buf[pos++] = (lo & 127) | 128;
      lo = ((lo >>> 7) | (hi << 25)) >>> 0;
      hi >>>= 7;
    }
    while (lo > 127) {
      buf[pos++] = (lo & 127) | 128;
      lo >>>= 7;
    }
    buf[pos++] = lo;
    this.#pos = pos;
  }

  uint32(value: number): this {
    this.#varint32(value);
    return this;
  }

  int32(value: number): this {
    // A negative int32 is sign-extended to ten bytes, as protobuf writes it.
    if (value < 0) this.#varint64(value, -1);
    else this.#varint32(value);
    return this;
  }

  uint64(value: Int64Like): this {
    if (typeof value === 'object') this.#varint64(value.low, value.high);
    else {
      const bits = LongBits.from(value);
      this.#varint64(bits.lo, bits.hi);
    }
    return this;
  }

  int64(value: Int64Like): this {
    return this.uint64(value);
  }

  bool(value: boolean): this {
    this.#ensure(1);
    this.#buf[this.#pos++] = value ? 1 : 0;
    return this;
  }

  string(value: string): this {
    const length = Buffer.byteLength(value);
    this.#varint32(length);
    this.#ensure(length);
    this.#pos += this.#buf.write(value, this.#pos, length, 'utf8');
    return this;
  }

  bytes(value: Uint8Array | string): this {
    const bytes = typeof value === 'string' ? Buffer.from(value, 'base64') : value;
    this.#varint32(bytes.length);
    this.#ensure(bytes.length);
    this.#buf.set(bytes, this.#pos);
    this.#pos += bytes.length;
    return this;
  }

  fork(): this {
    this.#ensure(1);
    this.#forks.push(this.#pos);
    this.#pos += 1;
    return this;
  }

  ldelim(): this {
    const at = this.#forks.pop();
    if (at === undefined) throw new Error('ldelim without a fork');
    const length = this.#pos - at - 1;
    if (length < 128) {
      this.#buf[at] = length;
      return this;
    }
    // The length takes more than the byte reserved: move the message along to make room.
    let extra = 0;
    for (let v = length >>> 7; v > 0; v >>>= 7) extra++;
    this.#ensure(extra);
    this.#buf.copy(this.#buf, at + 1 + extra, at + 1, this.#pos);
    const end = this.#pos + extra;
    this.#pos = at;
    this.#varint32(length);
    this.#pos = end;
    return this;
  }

  /** The bytes written, copied out, and the writer emptied for the next message. */
  take(): Buffer {
    if (this.#forks.length > 0) {
      this.#forks.length = 0;
      this.#pos = 0;
      throw new Error('a nested message was not closed');
    }
    const out = Buffer.allocUnsafe(this.#pos);
    this.#buf.copy(out, 0, 0, this.#pos);
    this.#pos = 0;
    if (this.#buf.length > KEEP_BYTES) this.#buf = Buffer.allocUnsafe(1024);
    return out;
  }

  /** Forgets a message left half-written (its encoder threw). */
  reset(): void {
    this.#forks.length = 0;
    this.#pos = 0;
  }
}

// Encoding is synchronous and the generated encoders call nothing of the caller's, so one writer
// serves every call.
const shared = new OnePassWriter();

/** `type.encode(message).finish()`, the same bytes, written in one pass into one buffer. */
export function encodeMessage<M>(type: MessageEncoder<M>, message: M): Buffer {
  try {
    type.encode(message, shared as unknown as Writer);
  } catch (err) {
    shared.reset();
    throw err;
  }
  return shared.take();
}
