// Reading protobuf wire format by hand, for the answers whose generated decoding costs too much
// on a hot path (the datanode's read answers, the OM's key listings): a cursor over one received
// buffer that makes no object per value, and the checks every hand decoder shares. Each decoder
// names its own peer when it turns a `Malformed` into a protocol error.

export const VARINT = 0;
const FIXED64 = 1;
export const BYTES = 2;
const START_GROUP = 3;
const END_GROUP = 4;
const FIXED32 = 5;
const TWO_32 = 4294967296;

/** Thrown inside a decoder; its caller turns it into a protocol error naming the peer. */
export class Malformed extends Error {}

/** A position in one received buffer; 64-bit varints land in `lo`/`hi` (no object per value). */
export class Cursor {
  pos = 0;
  lo = 0;
  hi = 0;
  constructor(readonly buf: Buffer) {}

  /** Reads a varint of up to 10 bytes into lo (bits 0-31) and hi (32-63). */
  varint(end: number): void {
    const buf = this.buf;
    let pos = this.pos;
    let lo = 0;
    let hi = 0;
    let b = 0;
    for (let shift = 0; shift < 28; shift += 7) {
      if (pos >= end) throw new Malformed('a varint runs past its message');
      b = buf[pos++]!;
      lo |= (b & 127) << shift;
      if (b < 128) return this.#set(pos, lo, hi);
    }
    if (pos >= end) throw new Malformed('a varint runs past its message');
    b = buf[pos++]!;
    lo |= (b & 127) << 28;
    hi = (b & 127) >>> 4;
    if (b < 128) return this.#set(pos, lo, hi);
    for (let shift = 3; shift < 32; shift += 7) {
      if (pos >= end) throw new Malformed('a varint runs past its message');
      b = buf[pos++]!;
      hi |= (b & 127) << shift;
      if (b < 128) return this.#set(pos, lo, hi);
    }
    throw new Malformed('a varint longer than 10 bytes');
  }

  #set(pos: number, lo: number, hi: number): void {
    this.pos = pos;
    this.lo = lo >>> 0;
    this.hi = hi >>> 0;
  }

  /** uint32 (protobufjs keeps the low 32 bits of a longer varint, so does this). */
  uint32(end: number): number {
    this.varint(end);
    return this.lo;
  }

  /** int32 and enums. */
  int32(end: number): number {
    this.varint(end);
    return this.lo | 0;
  }

  /** uint64 as a number; a value past 2^53 (no real offset or length) is refused, not rounded. */
  uint64Number(end: number, what: string): number {
    this.varint(end);
    if (this.hi > 0x1fffff) throw new Malformed(`${what} is beyond 2^53`);
    return this.hi * TWO_32 + this.lo;
  }

  int64(end: number): bigint {
    this.varint(end);
    if (this.hi === 0) return BigInt(this.lo);
    return BigInt.asIntN(64, (BigInt(this.hi) << 32n) | BigInt(this.lo));
  }

  uint64(end: number): bigint {
    this.varint(end);
    if (this.hi === 0) return BigInt(this.lo);
    return (BigInt(this.hi) << 32n) | BigInt(this.lo);
  }

  /** The end of a length-delimited field that starts here. */
  delimited(end: number): number {
    const length = this.uint32(end);
    const to = this.pos + length;
    if (to > end) throw new Malformed(`a field of ${length} bytes runs past its message`);
    return to;
  }

  /** A view of a `bytes` field: no copy. */
  bytes(end: number): Buffer {
    const to = this.delimited(end);
    const view = Buffer.from(this.buf.buffer, this.buf.byteOffset + this.pos, to - this.pos);
    this.pos = to;
    return view;
  }

  string(end: number): string {
    const to = this.delimited(end);
    const s = this.buf.toString('utf8', this.pos, to);
    this.pos = to;
    return s;
  }

  /** Skips a field of wire type `wire` (groups included, as protobufjs skips them, nested at most 32 deep). */
  skip(wire: number, end: number, depth = 0): void {
    switch (wire) {
      case VARINT:
        this.varint(end);
        return;
      case FIXED64:
        return this.#advance(8, end);
      case BYTES:
        this.pos = this.delimited(end);
        return;
      case START_GROUP:
        if (depth >= 32) throw new Malformed('groups nested deeper than 32');
        for (;;) {
          const tag = this.uint32(end);
          if ((tag & 7) === END_GROUP) return;
          this.skip(tag & 7, end, depth + 1);
        }
      case FIXED32:
        return this.#advance(4, end);
      default:
        throw new Malformed(`wire type ${wire} where a field starts`);
    }
  }

  #advance(n: number, end: number): void {
    if (this.pos + n > end) throw new Malformed('a fixed-size field runs past its message');
    this.pos += n;
  }
}

/** A field's tag; a wire type other than the one the field is declared with is refused. */
export function expectWire(field: number, wire: number, want: number, message: string): void {
  if (wire !== want) throw new Malformed(`${message}.${field} has wire type ${wire}, not ${want}`);
}

export function missing(message: string, field: string): never {
  throw new Malformed(`${message} lacks its required ${field}`);
}

/**
 * `raw` (one message) split in two: every occurrence of the length-delimited field `field`,
 * concatenated (what protobuf merges them into), and the rest of the message without them, so
 * that a generated codec decodes the rest and a hand decoder the field. `taken` is undefined when
 * the field is absent.
 */
export function takeField(raw: Buffer, field: number): { rest: Buffer; taken: Buffer | undefined } {
  const c = new Cursor(raw);
  const end = raw.length;
  const kept: Buffer[] = [];
  const taken: Buffer[] = [];
  let from = 0;
  while (c.pos < end) {
    const start = c.pos;
    const tag = c.uint32(end);
    if (tag >>> 3 === 0) throw new Malformed('a field numbered 0');
    if (tag >>> 3 === field) {
      expectWire(field, tag & 7, BYTES, 'the message');
      const to = c.delimited(end);
      kept.push(raw.subarray(from, start));
      taken.push(raw.subarray(c.pos, to));
      c.pos = to;
      from = to;
    } else c.skip(tag & 7, end);
  }
  if (taken.length === 0) return { rest: raw, taken: undefined };
  kept.push(raw.subarray(from, end));
  return {
    rest: Buffer.concat(kept),
    taken: taken.length === 1 ? taken[0] : Buffer.concat(taken),
  };
}
