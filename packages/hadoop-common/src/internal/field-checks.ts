import { WireFormatError } from '../wire-format-error.js';

// Checks shared by the wire types' constructors. They throw WireFormatError (not
// InvalidOptionError): a value the format cannot carry is a wire-format problem whether it came
// from a caller or from decoded bytes, and decoders rely on that to keep their one error type.

const INT32_MIN = -0x8000_0000;
const INT32_MAX = 0x7fff_ffff;

// In unicode mode a surrogate pair is one code point outside this range, so only lone halves match.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** Throws unless `value` is an integer that fits a Java `int`. */
export function checkInt32(field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < INT32_MIN || value > INT32_MAX) {
    throw new WireFormatError(`${field} must be a 32-bit signed integer, got ${describe(value)}`);
  }
  return value + 0; // -0 would survive the constructor but not a round trip
}

const INT64_MIN = -(1n << 63n);
const INT64_MAX = (1n << 63n) - 1n;

/**
 * Throws unless `value` fits a Java `long`: a safe integer, or a bigint of the 64-bit signed range.
 * A number beyond 2^53 is refused because it has already been rounded: writing it would put a
 * value on the wire that the caller never had. Returns the exact value.
 */
export function checkLong(field: string, value: unknown): bigint {
  if (typeof value === 'bigint') {
    if (value < INT64_MIN || value > INT64_MAX) {
      throw new WireFormatError(`${field} value ${value} does not fit a 64-bit signed integer`);
    }
    return value;
  }
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    throw new WireFormatError(`${field} must be a safe integer or a bigint, got ${describe(value)}`);
  }
  return BigInt(value);
}

/** A Java long as callers give it back: a number when it holds the value exactly, else the bigint. */
export function exactLong(value: bigint): number | bigint {
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(value)
    : value;
}

/**
 * Throws unless `value` is a well-formed string whose UTF-8 form is shorter than `maxBytes`.
 * Lone surrogates are refused because UTF-8 cannot carry them: they would be replaced on write
 * and the value read back would differ from the one given.
 */
export function checkText(field: string, value: unknown, maxBytes: number): string {
  if (typeof value !== 'string') {
    throw new WireFormatError(`${field} must be a string, got ${describe(value)}`);
  }
  if (LONE_SURROGATE.test(value)) {
    throw new WireFormatError(`${field} is not well-formed Unicode (it contains a lone surrogate)`);
  }
  if (Buffer.byteLength(value, 'utf8') >= maxBytes) {
    throw new WireFormatError(`${field} is too long to be serialized!`);
  }
  return value;
}

/** Throws unless `value` is a byte array of at most `maxBytes` bytes; returns a private copy. */
export function checkBytes(field: string, value: unknown, maxBytes: number): Buffer {
  if (!(value instanceof Uint8Array)) {
    throw new WireFormatError(`${field} must be a Uint8Array, got ${describe(value)}`);
  }
  if (value.byteLength > maxBytes) {
    throw new WireFormatError(
      `${field} is ${value.byteLength} bytes long, more than the maximum ${maxBytes}`,
    );
  }
  return Buffer.from(value);
}

/** True when the string contains no lone surrogate. */
export function isWellFormed(value: string): boolean {
  return !LONE_SURROGATE.test(value);
}

function describe(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean' || value == null) {
    return String(value);
  }
  return typeof value;
}
