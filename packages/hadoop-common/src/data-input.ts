import { WireFormatError } from './wire-format-error.js';

/** Hadoop's `Text.DEFAULT_MAX_LEN`: readers refuse a Text whose byte length is this or more. */
export const TEXT_DEFAULT_MAX_LEN = 1024 * 1024;

const INT32_MIN = -0x8000_0000n;
const INT32_MAX = 0x7fff_ffffn;

/**
 * A bounds-checked big-endian reader for the subset of Java's `DataInput` and Hadoop's
 * `WritableUtils` that delegation tokens use. Every read checks the bytes it needs against what is
 * left before touching or allocating anything, so garbage, truncated or oversized input ends in a
 * {@link WireFormatError}, never in a `RangeError` or in a buffer sized by an attacker.
 *
 * @example
 * ```ts
 * const input = new DataInput(bytes);
 * const keyId = input.readVInt();
 * const expiryDate = input.readVLong();
 * input.expectEnd();
 * ```
 */
export class DataInput {
  readonly #buf: Buffer;
  #offset = 0;

  constructor(buf: Uint8Array) {
    if (!(buf instanceof Uint8Array)) throw new WireFormatError('input must be a Uint8Array');
    this.#buf = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  /** Bytes consumed so far. */
  get offset(): number {
    return this.#offset;
  }

  /** Bytes not yet consumed. */
  get remaining(): number {
    return this.#buf.length - this.#offset;
  }

  /** One signed byte (-128..127), as Java's `readByte`. */
  readByte(): number {
    this.#need(1, 'a byte');
    return this.#buf.readInt8(this.#offset++);
  }

  /** Hadoop's variable-length long (`WritableUtils.readVLong`), accepting every form Hadoop accepts. */
  readVLong(): bigint {
    const first = this.readByte();
    if (first >= -112) return BigInt(first);
    const negative = first < -120;
    const byteCount = negative ? -120 - first : -112 - first;
    this.#need(byteCount, 'a VLong');
    let value = 0n;
    for (let i = 0; i < byteCount; i++) value = (value << 8n) | BigInt(this.#buf[this.#offset++] ?? 0);
    // Hadoop accumulates into a Java long, so 8 magnitude bytes wrap into the sign bit.
    value = BigInt.asIntN(64, value);
    return negative ? ~value : value;
  }

  /** Hadoop's variable-length int: a VLong that must fit 32 bits. */
  readVInt(): number {
    const value = this.readVLong();
    if (value < INT32_MIN || value > INT32_MAX) {
      throw new WireFormatError(`value too long to fit in integer: ${value}`);
    }
    return Number(value);
  }

  /**
   * Hadoop `Text`: a VInt byte length, then UTF-8. As `Text.readFields(in, maxLength)`, a negative
   * length or one of `maxLength` or more is refused. Malformed UTF-8 decodes to U+FFFD, as in Hadoop.
   */
  readText(maxLength: number = TEXT_DEFAULT_MAX_LEN): string {
    const length = this.readVInt();
    if (length < 0) throw new WireFormatError(`text length ${length} is negative`);
    if (length >= maxLength) {
      throw new WireFormatError(`text length ${length} is not below the maximum ${maxLength}`);
    }
    this.#need(length, 'a text');
    const text = this.#buf.toString('utf8', this.#offset, this.#offset + length);
    this.#offset += length;
    return text;
  }

  /** `n` bytes as they are, copied out of the input. */
  readRaw(n: number): Buffer {
    if (!Number.isInteger(n) || n < 0) {
      throw new WireFormatError(`byte count must be a non-negative integer, got ${String(n)}`);
    }
    this.#need(n, `${n} raw bytes`);
    const bytes = Buffer.from(this.#buf.subarray(this.#offset, this.#offset + n));
    this.#offset += n;
    return bytes;
  }

  /** A 4-byte big-endian signed int (Java `readInt`). */
  readInt32(): number {
    this.#need(4, 'an int32');
    const value = this.#buf.readInt32BE(this.#offset);
    this.#offset += 4;
    return value;
  }

  /** An 8-byte big-endian signed long (Java `readLong`). */
  readInt64(): bigint {
    this.#need(8, 'an int64');
    const value = this.#buf.readBigInt64BE(this.#offset);
    this.#offset += 8;
    return value;
  }

  /**
   * A VInt length followed by that many bytes; length -1 means `null`. `maxLength` is inclusive,
   * as Hadoop's `readVIntInRange(in, -1, max)`; default: only the input size bounds it.
   */
  readVIntBytes(maxLength: number = Number.MAX_SAFE_INTEGER): Buffer | null {
    const length = this.readVInt();
    if (length === -1) return null;
    if (length < -1) throw new WireFormatError(`byte array length ${length} is negative`);
    if (length > maxLength) {
      throw new WireFormatError(`byte array length ${length} is more than the maximum ${maxLength}`);
    }
    return this.readRaw(length);
  }

  /** Throws unless every byte has been consumed: the records read here have an exact layout. */
  expectEnd(): void {
    if (this.remaining !== 0) {
      throw new WireFormatError(`${this.remaining} unexpected trailing bytes at offset ${this.#offset}`);
    }
  }

  #need(n: number, what: string): void {
    if (n > this.remaining) {
      throw new WireFormatError(
        `truncated input: ${what} needs ${n} bytes at offset ${this.#offset}, ${this.remaining} left`,
      );
    }
  }
}
