import { crc32 as zlibCrc32 } from 'node:zlib';
import {
  computeChecksumBoundaries,
  computeChecksums,
  copyFromParts,
  findChecksumMismatch,
  findChecksumMismatchInParts,
  checksumOf,
} from './checksum.js';

const CHECK = Buffer.from('123456789');

describe('checksum algorithms', () => {
  it('match the standard check values, CRCs as 4-byte big-endian', () => {
    expect(checksumOf('CRC32', CHECK).toString('hex')).toBe('cbf43926');
    expect(checksumOf('CRC32C', CHECK).toString('hex')).toBe('e3069283');
    expect(checksumOf('SHA256', CHECK).toString('hex')).toBe(
      '15e2b0d3c33891ebb0f1ef609ec419420c20e320ce94c65fbc8c3312448eb225',
    );
    expect(checksumOf('MD5', CHECK).toString('hex')).toBe('25f9e794323b453885f5181f1b624d0b');
    expect(checksumOf('NONE', CHECK).length).toBe(0);
  });

  it('computes one checksum per window, the last one short', () => {
    const data = Buffer.alloc(50, 7);
    const sums = computeChecksums('CRC32', 20, data);
    expect(sums).toHaveLength(3);
    expect(sums[2]).toEqual(checksumOf('CRC32', data.subarray(40)));
    expect(computeChecksums('NONE', 20, data)).toEqual([]);
  });
});

describe('findChecksumMismatch', () => {
  const data = Buffer.from(Array.from({ length: 60 }, (_, i) => i));
  const stored = computeChecksums('CRC32C', 20, data);

  it('accepts matching data from any starting window', () => {
    expect(findChecksumMismatch('CRC32C', 20, stored, data, 0)).toBeUndefined();
    expect(findChecksumMismatch('CRC32C', 20, stored, data.subarray(20), 1)).toBeUndefined();
  });

  it('names the window that differs', () => {
    const bad = Buffer.from(data);
    bad[45] = 0;
    expect(findChecksumMismatch('CRC32C', 20, stored, bad, 0)?.window).toBe(2);
  });

  it('checks CRC32 and CRC32C windows of any length and alignment, as zlib computes CRC32', () => {
    const bytes = Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 131 + 7) & 0xff));
    for (const [offset, length] of [
      [0, 0],
      [1, 1],
      [3, 17],
      [7, 4096],
      [5, 4993],
    ] as const) {
      // A Uint8Array view at an odd offset of a larger buffer, as datanode answers arrive.
      const view = new Uint8Array(bytes.buffer, bytes.byteOffset + offset, length);
      const reference = Buffer.alloc(4);
      reference.writeUInt32BE(zlibCrc32(view) >>> 0, 0);
      expect(checksumOf('CRC32', view)).toEqual(reference);
      for (const type of ['CRC32', 'CRC32C'] as const) {
        const sums = computeChecksums(type, 1024, view);
        expect(findChecksumMismatch(type, 1024, sums, view, 0)).toBeUndefined();
        if (length === 0) continue;
        const flipped = Buffer.from(view);
        flipped.writeUInt8(flipped.readUInt8(length - 1) ^ 1, length - 1);
        expect(findChecksumMismatch(type, 1024, sums, flipped, 0)?.window).toBe(
          Math.floor((length - 1) / 1024),
        );
      }
    }
  });

  it('treats a stored CRC of the wrong length as a mismatch', () => {
    const short = stored.map((s, i) => (i === 1 ? s.subarray(0, 3) : s));
    expect(findChecksumMismatch('CRC32C', 20, short, data, 0)?.window).toBe(1);
  });

  it('refuses data with more windows than stored checksums', () => {
    expect(findChecksumMismatch('CRC32C', 20, stored.slice(0, 2), data, 0)?.detail).toMatch(
      /3 windows of data but 2 stored/,
    );
    expect(findChecksumMismatch('CRC32C', 20, stored, data.subarray(0, 40), 2)?.detail).toMatch(
      /2 windows of data but 1 stored/,
    );
  });
});

describe('computeChecksumBoundaries', () => {
  it("widens to whole windows: Ozone's unit vector, chunk 100 B, bpc 20, bytes 0..49 → 0..59", () => {
    expect(computeChecksumBoundaries(0, 50, 100, 20, true)).toEqual({ offset: 0, length: 60 });
  });

  it('fetches exactly the range with verification off', () => {
    expect(computeChecksumBoundaries(33, 10, 100, 20, false)).toEqual({ offset: 33, length: 10 });
  });

  it('clips the widened range to the chunk', () => {
    expect(computeChecksumBoundaries(90, 10, 95, 20, true)).toEqual({ offset: 80, length: 15 });
  });

  it('1 MiB windows: a 64 KiB read fetches 1 MiB, or 2 MiB across a window boundary', () => {
    const MiB = 1 << 20;
    expect(computeChecksumBoundaries(5 * 65536, 65536, 4 * MiB, MiB, true)).toEqual({
      offset: 0,
      length: MiB,
    });
    expect(computeChecksumBoundaries(MiB - 100, 65536, 4 * MiB, MiB, true)).toEqual({
      offset: 0,
      length: 2 * MiB,
    });
  });

  it('16 KiB windows: 64 KiB when aligned, 80 KiB when not', () => {
    const K = 16384;
    expect(computeChecksumBoundaries(4 * K, 65536, 4 << 20, K, true).length).toBe(65536);
    expect(computeChecksumBoundaries(4 * K + 1, 65536, 4 << 20, K, true).length).toBe(65536 + K);
  });
});

describe('data received in parts', () => {
  const data = Buffer.from(Array.from({ length: 100 }, (_, i) => (i * 37) & 255));
  const stored = computeChecksums('CRC32', 20, data);
  const split = (cuts: number[]): Buffer[] =>
    [0, ...cuts].map((from, i) => data.subarray(from, [...cuts, data.length][i]));

  it('is verified part by part where the parts are whole windows, and joined where they are not', () => {
    for (const cuts of [[20, 40, 60, 80], [40], [20, 50], [7, 93]])
      expect(findChecksumMismatchInParts('CRC32', 20, stored, split(cuts), 0)).toBeUndefined();
    // Window 3 (60-79) damaged: found at window 3 however the data is cut.
    const bad = Buffer.from(data);
    bad[65] = (bad[65] as number) ^ 1;
    const badParts = (cuts: number[]): Buffer[] =>
      [0, ...cuts].map((from, i) => bad.subarray(from, [...cuts, bad.length][i]));
    for (const cuts of [[20, 40, 60, 80], [60], [33, 70]])
      expect(findChecksumMismatchInParts('CRC32', 20, stored, badParts(cuts), 0)?.window).toBe(3);
    // Starting at window 1 of the chunk: the parts' windows are counted from there.
    expect(
      findChecksumMismatchInParts('CRC32', 20, stored, [data.subarray(20, 40), data.subarray(40, 60)], 1),
    ).toBeUndefined();
    expect(
      findChecksumMismatchInParts('CRC32', 20, stored, [data.subarray(20, 40), data.subarray(40, 60)], 0)
        ?.window,
    ).toBe(0);
  });

  it('finds too few stored checksums over the whole data before comparing any window', () => {
    // One checksum missing: the count is wrong, whichever window would compare first.
    expect(
      findChecksumMismatchInParts('CRC32', 20, stored.slice(1), split([20, 40, 60, 80]), 0)?.detail,
    ).toMatch(/5 windows of data but 4 stored checksums/);
  });

  it('copies a range that spans parts, byte for byte', () => {
    const parts = split([20, 40, 60, 80]);
    for (const [from, length] of [
      [0, 100],
      [15, 30],
      [39, 2],
      [81, 19],
      [50, 0],
    ] as const) {
      const target = Buffer.alloc(length + 3, 0xee);
      copyFromParts(parts, from, length, target, 3);
      expect(target.subarray(3)).toEqual(data.subarray(from, from + length));
      expect(target.subarray(0, 3)).toEqual(Buffer.alloc(3, 0xee));
    }
  });
});
