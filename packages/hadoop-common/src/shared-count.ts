import { checkInt32 } from './internal/field-checks.js';
import { WireFormatError } from './wire-format-error.js';

/**
 * Serialises a shared counter (Curator `SharedCount`, used for `ZKDTSMSeqNumRoot` and
 * `ZKDTSMKeyIdRoot`): a 4-byte big-endian signed int.
 *
 * @example
 * ```ts
 * zk.setData(seqNumPath, encodeSharedCount(current + batch), version);
 * ```
 */
export function encodeSharedCount(n: number): Buffer {
  const buf = Buffer.alloc(4);
  buf.writeInt32BE(checkInt32('shared count', n), 0);
  return buf;
}

/**
 * Reads a shared counter; the data must be exactly 4 bytes.
 *
 * @example
 * ```ts
 * const current = decodeSharedCount(data);
 * ```
 */
export function decodeSharedCount(bytes: Uint8Array): number {
  if (!(bytes instanceof Uint8Array)) throw new WireFormatError('shared count data must be a Uint8Array');
  if (bytes.byteLength !== 4) {
    throw new WireFormatError(`shared count data must be 4 bytes, got ${bytes.byteLength}`);
  }
  return Buffer.from(bytes.buffer, bytes.byteOffset, 4).readInt32BE(0);
}
