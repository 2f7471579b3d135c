// The few protobuf wire rules the Credentials file's PROTOBUF format needs (varints, length-
// delimited fields), so that hadoop-common reads and writes it without a protobuf runtime. The
// reader refuses what the format cannot hold: a varint over 64 bits, a length past the end.
import { WireFormatError } from '../wire-format-error.js';

/** A field read off the wire: its number, and its bytes (length-delimited) or value (varint). */
export type ProtoField = { field: number; bytes: Buffer } | { field: number; value: bigint };

export class ProtoReader {
  readonly #buf: Buffer;
  #offset: number;
  readonly #end: number;

  constructor(buf: Buffer, offset = 0, end = buf.length) {
    this.#buf = buf;
    this.#offset = offset;
    this.#end = end;
  }

  get offset(): number {
    return this.#offset;
  }

  get done(): boolean {
    return this.#offset >= this.#end;
  }

  varint(): bigint {
    let value = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (this.#offset >= this.#end) throw new WireFormatError('protobuf varint runs past the end');
      const byte = this.#buf[this.#offset++] as number;
      value |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) {
        if (value >= 1n << 64n) throw new WireFormatError('protobuf varint is longer than 64 bits');
        return value;
      }
    }
    throw new WireFormatError('protobuf varint is longer than 10 bytes');
  }

  /** A length prefix, checked against what is left. */
  length(): number {
    const n = this.varint();
    if (n > BigInt(this.#end - this.#offset)) {
      throw new WireFormatError(`protobuf length ${n} runs past the end (${this.#end - this.#offset} left)`);
    }
    return Number(n);
  }

  bytes(n: number): Buffer {
    const out = Buffer.from(this.#buf.subarray(this.#offset, this.#offset + n));
    this.#offset += n;
    return out;
  }

  /** The next field; unknown wire types other than varint and length-delimited are refused. */
  field(): ProtoField {
    const key = this.varint();
    const field = Number(key >> 3n);
    const wireType = Number(key & 7n);
    if (field === 0) throw new WireFormatError('protobuf field number 0');
    if (wireType === 0) return { field, value: this.varint() };
    if (wireType === 2) return { field, bytes: this.bytes(this.length()) };
    if (wireType === 1 || wireType === 5) {
      const width = wireType === 1 ? 8 : 4;
      if (this.#end - this.#offset < width)
        throw new WireFormatError('protobuf fixed field runs past the end');
      this.#offset += width;
      return { field, value: 0n };
    }
    throw new WireFormatError(`protobuf wire type ${wireType} is not supported here`);
  }
}

export class ProtoWriter {
  readonly #parts: Buffer[] = [];

  varint(v: bigint | number): this {
    let value = BigInt(v);
    const out: number[] = [];
    do {
      let byte = Number(value & 0x7fn);
      value >>= 7n;
      if (value !== 0n) byte |= 0x80;
      out.push(byte);
    } while (value !== 0n);
    this.#parts.push(Buffer.from(out));
    return this;
  }

  /** A length-delimited field (bytes, a string, an embedded message). */
  bytesField(field: number, bytes: Uint8Array | string): this {
    const b = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : Buffer.from(bytes);
    this.varint((field << 3) | 2).varint(b.length);
    this.#parts.push(b);
    return this;
  }

  toBuffer(): Buffer {
    return Buffer.concat(this.#parts);
  }
}
