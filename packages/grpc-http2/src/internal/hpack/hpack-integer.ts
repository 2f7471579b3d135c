import { HTTP2_ERROR, Http2ProtocolError } from '../../grpc-http2-errors.js';

// HPACK's integers (RFC 7541 §5.1): a value below 2^N - 1 fits in the N low bits of the first
// octet (the high bits carry the representation's flags); a larger one fills the prefix with ones
// and continues in 7-bit groups, least significant first, the high bit of each octet saying
// "more follows".

/** The largest integer the decoder accepts: every HPACK integer (index, length, size) fits. */
export const HPACK_MAX_INTEGER = 0x7fff_ffff;

/**
 * The most continuation octets an integer may take. Five 7-bit groups reach past 2^31 from any
 * prefix, so a sixth could only be zeros: padding that would let a peer make a decoder loop on
 * an integer of any length.
 */
const MAX_CONTINUATION_OCTETS = 5;

/** Where a decoding stands: `pos` is the next octet to read. */
export interface HpackCursor {
  pos: number;
}

/**
 * Reads the integer with an `prefixBits`-bit prefix (1 to 8) whose first octet is
 * `block[cursor.pos]`, advances `cursor.pos` past it and returns it. The bits above the prefix are
 * ignored (they are the caller's flags). Throws `Http2ProtocolError` (COMPRESSION_ERROR) when the
 * integer runs past `end`, exceeds 2^31 - 1 or takes more than 5 continuation octets.
 */
export function decodeInteger(
  block: Uint8Array,
  cursor: HpackCursor,
  end: number,
  prefixBits: number,
): number {
  let pos = cursor.pos;
  if (pos >= end) throw truncated();
  const max = (1 << prefixBits) - 1;
  let value = block[pos++]! & max;
  if (value === max) {
    // Plain arithmetic, not shifts: 7 * 4 + 7 bits is past what 32-bit shifts can hold, and the
    // bound is checked before the value could lose precision.
    let multiplier = 1;
    for (let octets = 0; ; octets++) {
      if (octets === MAX_CONTINUATION_OCTETS) {
        throw new Http2ProtocolError(
          HTTP2_ERROR.COMPRESSION_ERROR,
          `HPACK: integer runs on for more than ${MAX_CONTINUATION_OCTETS} continuation octets`,
        );
      }
      if (pos >= end) throw truncated();
      const octet = block[pos++]!;
      value += (octet & 0x7f) * multiplier;
      if (value > HPACK_MAX_INTEGER) {
        throw new Http2ProtocolError(
          HTTP2_ERROR.COMPRESSION_ERROR,
          `HPACK: integer exceeds ${HPACK_MAX_INTEGER} (2^31 - 1)`,
        );
      }
      if ((octet & 0x80) === 0) break;
      multiplier *= 128;
    }
  }
  cursor.pos = pos;
  return value;
}

function truncated(): Http2ProtocolError {
  return new Http2ProtocolError(HTTP2_ERROR.COMPRESSION_ERROR, 'HPACK: header block ends inside an integer');
}

/** How many octets `value` (≥ 0) takes as an integer with a `prefixBits`-bit prefix. */
export function encodedIntegerLength(value: number, prefixBits: number): number {
  const max = (1 << prefixBits) - 1;
  if (value < max) return 1;
  let octets = 2;
  for (let rest = value - max; rest >= 128; rest = Math.floor(rest / 128)) octets++;
  return octets;
}

/**
 * Writes `value` (0 to 2^31 - 1) as an integer with a `prefixBits`-bit prefix at `target[at]`,
 * `flags` in the bits above the prefix of the first octet, and returns the offset after it.
 */
export function encodeInteger(
  target: Uint8Array,
  at: number,
  value: number,
  prefixBits: number,
  flags: number,
): number {
  const max = (1 << prefixBits) - 1;
  let o = at;
  if (value < max) {
    target[o++] = flags | value;
    return o;
  }
  target[o++] = flags | max;
  let rest = value - max;
  while (rest >= 128) {
    target[o++] = (rest & 0x7f) | 0x80;
    rest = Math.floor(rest / 128);
  }
  target[o++] = rest;
  return o;
}
