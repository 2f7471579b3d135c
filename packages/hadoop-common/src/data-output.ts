import { checkInt32, checkLong, isWellFormed } from './internal/field-checks.js';
import { WireFormatError } from './wire-format-error.js';

/**
 * A growable big-endian writer for the subset of Java's `DataOutput` and Hadoop's `WritableUtils`
 * that delegation tokens use. Every method returns `this`, so a record is written as one chain.
 * Values a field cannot carry (an `int` outside 32 bits, a `long` outside 64 bits, a string with a
 * lone surrogate) throw {@link WireFormatError} instead of being truncated.
 *
 * @example
 * ```ts
 * const bytes = new DataOutput().writeVInt(7).writeVLong(Date.now()).writeText('alice').toBuffer();
 * ```
 */
export class DataOutput {
  #buf: Buffer;
  #length = 0;

  constructor(initialCapacity = 64) {
    this.#buf = Buffer.allocUnsafe(Math.max(16, Math.floor(initialCapacity) || 0));
  }

  /** Bytes written so far. */
  get length(): number {
    return this.#length;
  }

  /** One byte; accepts a signed (-128..127) or an unsigned (0..255) value. */
  writeByte(n: number): this {
    if (!Number.isInteger(n) || n < -128 || n > 255) {
      throw new WireFormatError(`byte value must be an integer from -128 to 255, got ${String(n)}`);
    }
    this.#reserve(1);
    this.#buf[this.#length++] = n & 0xff;
    return this;
  }

  /**
   * Hadoop's variable-length long (`WritableUtils.writeVLong`): -112..127 in one byte, otherwise a
   * length-and-sign byte followed by 1-8 big-endian magnitude bytes (one's complement for negatives).
   */
  writeVLong(v: bigint | number): this {
    let value = checkLong('VLong', v);
    if (value >= -112n && value <= 127n) return this.writeByte(Number(value));
    let prefix = -112;
    if (value < 0n) {
      value = ~value;
      prefix = -120;
    }
    let byteCount = 0;
    for (let rest = value; rest !== 0n; rest >>= 8n) byteCount++;
    this.#reserve(1 + byteCount);
    this.#buf[this.#length++] = (prefix - byteCount) & 0xff;
    for (let i = byteCount - 1; i >= 0; i--) {
      this.#buf[this.#length++] = Number((value >> BigInt(i * 8)) & 0xffn);
    }
    return this;
  }

  /** Hadoop's variable-length int: the VLong encoding of a 32-bit signed value. */
  writeVInt(v: number): this {
    return this.writeVLong(checkInt32('VInt', v));
  }

  /** Hadoop `Text`: the UTF-8 byte length as a VInt, then the UTF-8 bytes. */
  writeText(s: string): this {
    if (typeof s !== 'string' || !isWellFormed(s)) {
      throw new WireFormatError('text must be a well-formed string');
    }
    const byteLength = Buffer.byteLength(s, 'utf8');
    this.writeVInt(byteLength);
    this.#reserve(byteLength);
    this.#length += this.#buf.write(s, this.#length, byteLength, 'utf8');
    return this;
  }

  /** The bytes as they are, without a length. */
  writeRaw(b: Uint8Array): this {
    if (!(b instanceof Uint8Array)) throw new WireFormatError('raw bytes must be a Uint8Array');
    this.#reserve(b.byteLength);
    this.#buf.set(b, this.#length);
    this.#length += b.byteLength;
    return this;
  }

  /** A 4-byte big-endian signed int (Java `writeInt`). */
  writeInt32(n: number): this {
    checkInt32('int32', n);
    this.#reserve(4);
    this.#length = this.#buf.writeInt32BE(n, this.#length);
    return this;
  }

  /** An 8-byte big-endian signed long (Java `writeLong`). */
  writeInt64(v: bigint | number): this {
    const value = checkLong('int64', v);
    this.#reserve(8);
    this.#length = this.#buf.writeBigInt64BE(value, this.#length);
    return this;
  }

  /** A VInt length (-1 for `null`) followed by the bytes, as Hadoop writes optional byte arrays. */
  writeVIntBytes(b: Uint8Array | null): this {
    if (b === null) return this.writeVInt(-1);
    if (!(b instanceof Uint8Array)) throw new WireFormatError('bytes must be a Uint8Array or null');
    return this.writeVInt(b.byteLength).writeRaw(b);
  }

  /** A copy of the bytes written so far; the writer stays usable. */
  toBuffer(): Buffer {
    return Buffer.from(this.#buf.subarray(0, this.#length));
  }

  #reserve(n: number): void {
    const needed = this.#length + n;
    if (needed <= this.#buf.length) return;
    let capacity = this.#buf.length * 2;
    while (capacity < needed) capacity *= 2;
    const grown = Buffer.allocUnsafe(capacity);
    this.#buf.copy(grown, 0, 0, this.#length);
    this.#buf = grown;
  }
}
