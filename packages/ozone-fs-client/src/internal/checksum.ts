// Ozone's per-window checksums (Checksum.java): one checksum per bytesPerChecksum window of a
// chunk, the last window possibly short. CRC values are stored as 4-byte big-endian integers.
import { createHash } from 'node:crypto';
// The JS path's CRCs from @node-rs/crc32 (SIMD): its CRC32 measured 2-3x faster than node:zlib's
// on 16 KiB windows here, and CRC32 is Ozone's default checksum type, so it is the verify-path
// cost. The native bulk engine brings ISA-L's, faster again (internal/bulk).
import { crc32, crc32c } from '@node-rs/crc32';

/**
 * A checksum type of Ozone's `ChecksumType` (`ozone.client.checksum.type`): CRC32 and CRC32C store
 * 4 bytes per checksum window, SHA256 32, MD5 16; `NONE` stores none and reads verify nothing.
 */
export type ChecksumTypeName = 'NONE' | 'CRC32' | 'CRC32C' | 'SHA256' | 'MD5';

/** The proto enum values of `ChecksumType`. */
export const CHECKSUM_TYPE_VALUES: Readonly<Record<ChecksumTypeName, number>> = Object.freeze({
  NONE: 1,
  CRC32: 2,
  CRC32C: 3,
  SHA256: 4,
  MD5: 5,
});

export function checksumTypeName(value: number): ChecksumTypeName | undefined {
  for (const [name, v] of Object.entries(CHECKSUM_TYPE_VALUES))
    if (v === value) return name as ChecksumTypeName;
  return undefined;
}

/** Computes the CRCs of checksum windows: every function below takes one, the JS one by default. */
export interface CrcKernel {
  /** `isa-l` (the native bulk engine) or `node-rs` (the JS path). */
  readonly name: string;
  /** The CRC of all of `data` as an unsigned 32-bit number. */
  crc(type: 'CRC32' | 'CRC32C', data: Uint8Array): number;
}

/** The JS path's kernel: @node-rs/crc32. */
export const JS_CRC_KERNEL: CrcKernel = Object.freeze({
  name: 'node-rs',
  crc(type: 'CRC32' | 'CRC32C', window: Uint8Array): number {
    const view = Buffer.isBuffer(window)
      ? window
      : Buffer.from(window.buffer, window.byteOffset, window.byteLength);
    return (type === 'CRC32' ? crc32(view) : crc32c(view)) >>> 0;
  },
});

function int32BigEndian(value: number): Buffer {
  const out = Buffer.allocUnsafe(4);
  out.writeUInt32BE(value >>> 0, 0);
  return out;
}

/** Whether `window`'s checksum is `expected`; CRCs compared as numbers, nothing allocated. */
function windowMatches(
  type: ChecksumTypeName,
  window: Uint8Array,
  expected: Uint8Array,
  kernel: CrcKernel,
): boolean {
  if (type === 'CRC32' || type === 'CRC32C') {
    if (expected.length !== 4) return false;
    const stored = ((expected[0]! << 24) | (expected[1]! << 16) | (expected[2]! << 8) | expected[3]!) >>> 0;
    return kernel.crc(type, window) === stored;
  }
  return checksumOf(type, window).equals(expected);
}

/** The checksum of one window. */
export function checksumOf(
  type: ChecksumTypeName,
  window: Uint8Array,
  kernel: CrcKernel = JS_CRC_KERNEL,
): Buffer {
  switch (type) {
    case 'CRC32':
    case 'CRC32C':
      return int32BigEndian(kernel.crc(type, window));
    case 'SHA256':
      return createHash('sha256').update(window).digest();
    case 'MD5':
      return createHash('md5').update(window).digest();
    case 'NONE':
      return Buffer.alloc(0);
  }
}

/** Checksums of `data` per `bytesPerChecksum` window; none for type NONE. */
export function computeChecksums(
  type: ChecksumTypeName,
  bytesPerChecksum: number,
  data: Uint8Array,
  kernel: CrcKernel = JS_CRC_KERNEL,
): Buffer[] {
  if (type === 'NONE') return [];
  const out: Buffer[] = [];
  for (let offset = 0; offset < data.length; offset += bytesPerChecksum) {
    const window = data.subarray(offset, Math.min(offset + bytesPerChecksum, data.length));
    out.push(checksumOf(type, window, kernel));
  }
  return out;
}

/**
 * Checks `data`, which starts at window `startIndex` of its chunk, against the chunk's stored
 * checksums. Returns undefined when it matches, else what is wrong (which window, or that the
 * stored list is too short for the data), as Checksum.verifyChecksum decides it.
 */
export function findChecksumMismatch(
  type: ChecksumTypeName,
  bytesPerChecksum: number,
  stored: readonly Uint8Array[],
  data: Uint8Array,
  startIndex: number,
  kernel: CrcKernel = JS_CRC_KERNEL,
): { window: number; detail: string } | undefined {
  if (type === 'NONE') return undefined;
  const windows = Math.ceil(data.length / bytesPerChecksum);
  const tooFew = storedTooShort(bytesPerChecksum, stored, data.length, startIndex);
  if (tooFew) return tooFew;
  for (let i = 0; i < windows; i++) {
    const window = data.subarray(i * bytesPerChecksum, Math.min((i + 1) * bytesPerChecksum, data.length));
    const expected = stored[startIndex + i] as Uint8Array;
    if (!windowMatches(type, window, expected, kernel)) {
      return {
        window: startIndex + i,
        detail: `window ${startIndex + i}: stored ${Buffer.from(expected).toString('hex')}, computed ${checksumOf(type, window, kernel).toString('hex')}`,
      };
    }
  }
  return undefined;
}

/** Ozone's first check: more windows of data than stored checksums from `startIndex` on. */
function storedTooShort(
  bytesPerChecksum: number,
  stored: readonly Uint8Array[],
  dataLength: number,
  startIndex: number,
): { window: number; detail: string } | undefined {
  const windows = Math.ceil(dataLength / bytesPerChecksum);
  if (windows <= stored.length - startIndex) return undefined;
  return {
    window: startIndex,
    detail: `${windows} windows of data but ${Math.max(0, stored.length - startIndex)} stored checksums from window ${startIndex}`,
  };
}

/**
 * {@link findChecksumMismatch} over data received in parts (a ReadChunk V1 answer's buffers, each
 * a view of the gRPC message), without joining them: the datanode cuts them at window boundaries
 * (bytesPerChecksum each), so each part is checked where it lies. Parts cut anywhere else are
 * joined first (one copy), as the data was before.
 */
export function findChecksumMismatchInParts(
  type: ChecksumTypeName,
  bytesPerChecksum: number,
  stored: readonly Uint8Array[],
  parts: readonly Uint8Array[],
  startIndex: number,
  kernel: CrcKernel = JS_CRC_KERNEL,
): { window: number; detail: string } | undefined {
  if (parts.length === 1)
    return findChecksumMismatch(type, bytesPerChecksum, stored, parts[0]!, startIndex, kernel);
  if (type === 'NONE') return undefined;
  // The count is checked over the whole data first, as for data in one piece.
  const total = parts.reduce((n, p) => n + p.length, 0);
  const tooFew = storedTooShort(bytesPerChecksum, stored, total, startIndex);
  if (tooFew) return tooFew;
  for (let i = 0; i < parts.length - 1; i++)
    if (parts[i]!.length % bytesPerChecksum !== 0)
      return findChecksumMismatch(type, bytesPerChecksum, stored, Buffer.concat(parts), startIndex, kernel);
  let index = startIndex;
  for (const part of parts) {
    if (part.length === 0) continue;
    const bad = findChecksumMismatch(type, bytesPerChecksum, stored, part, index, kernel);
    if (bad) return bad;
    index += Math.ceil(part.length / bytesPerChecksum);
  }
  return undefined;
}

/** Copies `length` bytes from offset `from` of the concatenation of `parts` into `target` at `at`, part by part. */
export function copyFromParts(
  parts: readonly Uint8Array[],
  from: number,
  length: number,
  target: Uint8Array,
  at: number,
): void {
  let skip = from;
  let left = length;
  for (const part of parts) {
    if (left === 0) break;
    if (skip >= part.length) {
      skip -= part.length;
      continue;
    }
    const n = Math.min(part.length - skip, left);
    target.set(part.subarray(skip, skip + n), at);
    at += n;
    left -= n;
    skip = 0;
  }
}

/**
 * ChunkInputStream#computeChecksumBoundaries: the range to fetch for `len` bytes at `start`
 * (both relative to the chunk). With verification on it is widened to whole checksum windows
 * (clipped to the chunk); with it off it is exactly the range asked for.
 */
export function computeChecksumBoundaries(
  start: number,
  len: number,
  chunkLen: number,
  bytesPerChecksum: number,
  verify: boolean,
): { offset: number; length: number } {
  if (!verify || bytesPerChecksum <= 0) return { offset: start, length: len };
  const end = start + len - 1;
  const adjOffset = Math.floor(start / bytesPerChecksum) * bytesPerChecksum;
  const endExclusive = (Math.floor(end / bytesPerChecksum) + 1) * bytesPerChecksum;
  return { offset: adjOffset, length: Math.min(endExclusive, chunkLen) - adjOffset };
}
