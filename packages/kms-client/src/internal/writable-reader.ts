// Just enough of Hadoop's Writable encoding to read a delegation token: VInt/VLong and Text.
// Tokens are issued by the server; the client reads them to show who owns one and when it ends,
// and to refuse a string that is not a token before sending it anywhere.

/** Thrown by {@link WritableReader} on bytes that are not a valid encoding; the caller rewraps it. */
export class WritableFormatError extends Error {}

export class WritableReader {
  #pos = 0;
  constructor(private readonly bytes: Uint8Array) {}

  get remaining(): number {
    return this.bytes.length - this.#pos;
  }

  byte(): number {
    if (this.#pos >= this.bytes.length) throw new WritableFormatError('unexpected end of data');
    return this.bytes[this.#pos++] as number;
  }

  take(length: number): Uint8Array {
    if (length < 0 || length > this.remaining) {
      throw new WritableFormatError(`length ${length} exceeds the ${this.remaining} bytes left`);
    }
    const out = this.bytes.subarray(this.#pos, this.#pos + length);
    this.#pos += length;
    return out;
  }

  /** WritableUtils.readVLong, as a bigint (the full signed 64-bit range). */
  vlong(): bigint {
    const first = (this.byte() << 24) >> 24;
    if (first >= -112) return BigInt(first);
    const negative = first < -120;
    const length = negative ? -119 - first : -111 - first;
    let value = 0n;
    for (let i = 1; i < length; i++) value = (value << 8n) | BigInt(this.byte());
    return negative ? ~value : value;
  }

  /** WritableUtils.readVInt: a VLong that must fit a signed 32-bit int. */
  vint(): number {
    const value = this.vlong();
    if (value < -2147483648n || value > 2147483647n) {
      throw new WritableFormatError('value too long to fit in integer');
    }
    return Number(value);
  }

  /** A VLong that must be a safe JavaScript integer (dates in epoch milliseconds). */
  safeLong(field: string): number {
    const value = this.vlong();
    if (value < BigInt(Number.MIN_SAFE_INTEGER) || value > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new WritableFormatError(`${field} ${value} is outside the safe integer range`);
    }
    return Number(value);
  }

  /** A VInt length followed by that many bytes. */
  lengthPrefixed(field: string, maxBytes: number): Uint8Array {
    const length = this.vint();
    if (length < 0 || length > maxBytes)
      throw new WritableFormatError(`${field} length ${length} is invalid`);
    return this.take(length);
  }

  /** Text: a VInt byte length and UTF-8 bytes. */
  text(field: string, maxBytes: number): string {
    const bytes = this.lengthPrefixed(field, maxBytes);
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      throw new WritableFormatError(`${field} is not valid UTF-8`);
    }
  }
}
