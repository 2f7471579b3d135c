import { CHECKSUM_TYPE_VALUES } from './checksum.js';
import {
  positionalReadBlockPays,
  readBlockFallback,
  readBlockRange,
  STREAM_BLOCK_DATANODE_VERSION,
  STREAMING_BYTES_PER_CHUNK,
  type PlanChunk,
} from './read-block-plan.js';

const KiB = 1024;
const MiB = 1024 * KiB;
const CRC32 = CHECKSUM_TYPE_VALUES.CRC32;
const NONE = CHECKSUM_TYPE_VALUES.NONE;

/** Chunks back to back with the given lengths. */
function chunks(lengths: number[], bpc = 16 * KiB, type: number = CRC32): PlanChunk[] {
  let offset = 0;
  return lengths.map((len) => {
    const c = { offset, len, checksumData: { type, bytesPerChecksum: bpc } };
    offset += len;
    return c;
  });
}

const current = [{ currentVersion: 3 }, { currentVersion: 4 }, { currentVersion: 3 }];

describe('readBlockFallback', () => {
  it('streams blocks whose chunks are all as long as the first (a multiple of its window), the last no longer', () => {
    expect(readBlockFallback(chunks([4 * MiB, 4 * MiB, MiB + 3]), current)).toBeUndefined();
    expect(readBlockFallback(chunks([4 * MiB, 4 * MiB, 4 * MiB]), current)).toBeUndefined();
    // One chunk: nothing before the last to hold to the window.
    expect(readBlockFallback(chunks([300_000]), current)).toBeUndefined();
    // Without checksums the window does not matter, only the lengths.
    expect(readBlockFallback(chunks([100_000, 100_000, 7], 0, NONE), current)).toBeUndefined();
  });

  it('falls back for chunks of unequal length, a first chunk off the window, or a last one longer than the first', () => {
    expect(readBlockFallback(chunks([40 * KiB, 64 * KiB, 64 * KiB]), current)).toBe('uneven-chunks');
    expect(readBlockFallback(chunks([64 * KiB, 40 * KiB, 64 * KiB]), current)).toBe('uneven-chunks');
    expect(readBlockFallback(chunks([100_000, 100_000, 10]), current)).toBe('uneven-chunks');
    expect(readBlockFallback(chunks([64 * KiB, 128 * KiB]), current)).toBe('uneven-chunks');
  });

  it('falls back when the chunks disagree on checksums or do not lie back to back in the block file', () => {
    const mixedWindow = chunks([64 * KiB, 64 * KiB]);
    (mixedWindow[1] as PlanChunk).checksumData = { type: CRC32, bytesPerChecksum: 8 * KiB };
    expect(readBlockFallback(mixedWindow, current)).toBe('uneven-chunks');
    const mixedType = chunks([64 * KiB, 64 * KiB]);
    (mixedType[1] as PlanChunk).checksumData = { type: NONE, bytesPerChecksum: 16 * KiB };
    expect(readBlockFallback(mixedType, current)).toBe('uneven-chunks');
    const gap = chunks([64 * KiB, 64 * KiB]);
    (gap[1] as PlanChunk).offset += 1;
    expect(readBlockFallback(gap, current)).toBe('uneven-chunks');
  });

  it('falls back for an empty block and for a pipeline with a member older than STREAM_BLOCK_SUPPORT (or silent about it)', () => {
    expect(readBlockFallback([], current)).toBe('empty-block');
    expect(readBlockFallback(chunks([0]), current)).toBe('empty-block');
    const even = chunks([MiB, MiB]);
    expect(readBlockFallback(even, [{ currentVersion: 3 }, { currentVersion: 2 }])).toBe('old-datanode');
    expect(readBlockFallback(even, [{ currentVersion: 3 }, {}])).toBe('old-datanode');
    expect(STREAM_BLOCK_DATANODE_VERSION).toBe(3);
  });
});

describe('positionalReadBlockPays', () => {
  it('always when verifying (ReadChunk fetches the same windows), else when the windows add at most an eighth', () => {
    expect(positionalReadBlockPays(5, 64 * KiB, 8 * MiB, MiB, true)).toBe(true);
    // Verification off, 1 MiB windows: a 1 MiB read off the boundary streams 2 MiB.
    expect(positionalReadBlockPays(5, MiB, 8 * MiB, MiB, false)).toBe(false);
    expect(positionalReadBlockPays(0, MiB, 8 * MiB, MiB, false)).toBe(true);
    // 16 KiB windows: 1 MiB off the boundary streams 65 windows, 1/64 more.
    expect(positionalReadBlockPays(5, MiB, 8 * MiB, 16 * KiB, false)).toBe(true);
    expect(positionalReadBlockPays(5, 64 * KiB, 8 * MiB, 16 * KiB, false)).toBe(false);
    expect(positionalReadBlockPays(8 * MiB, MiB, 8 * MiB, 16 * KiB, false)).toBe(false);
  });
});

describe('readBlockRange', () => {
  const bpc = 16 * KiB;

  it('aligns the start to its window, asks whole windows, and splits them into pieces as even as windows allow', () => {
    // 97 windows in pieces of at most 64: two pieces of 49 (one window past the 97), not 64 + 64.
    expect(readBlockRange(100_000, 1.5 * MiB, 2 * MiB, bpc, MiB)).toEqual({
      offset: 100_000,
      length: 1.5 * MiB,
      alignedOffset: 98_304,
      end: 98_304 + 97 * bpc,
      responseDataSize: 49 * bpc,
    });
    // 65 windows (a 1 MiB read off the window): 33 + 33, where 64 + 64 would send 63 windows more.
    expect(readBlockRange(5, MiB, 8 * MiB, bpc, MiB)).toMatchObject({ responseDataSize: 33 * bpc });
    // A small read: one piece of its own windows, not 1 MiB.
    expect(readBlockRange(20_000, 1000, 2 * MiB, bpc, MiB)).toMatchObject({
      alignedOffset: bpc,
      end: 2 * bpc,
      responseDataSize: bpc,
    });
    // The configured size rounded down to whole windows (never below one).
    expect(readBlockRange(0, 4 * MiB, 4 * MiB, bpc, MiB + 100)).toMatchObject({ responseDataSize: MiB });
    expect(readBlockRange(0, 4 * MiB, 4 * MiB, bpc, 100)).toMatchObject({ responseDataSize: bpc });
    expect(readBlockRange(0, MiB, MiB, STREAMING_BYTES_PER_CHUNK, MiB)).toMatchObject({
      responseDataSize: MiB,
    });
  });

  it("clamps the length to the replica's end, and the last window to the end", () => {
    expect(readBlockRange(MiB - 10, 32 * MiB, MiB + 5, bpc, MiB)).toEqual({
      offset: MiB - 10,
      length: 15,
      alignedOffset: MiB - bpc,
      end: MiB + 5,
      responseDataSize: 2 * bpc,
    });
  });

  it('never asks for an offset at or past the end, nor for nothing', () => {
    expect(readBlockRange(MiB, 1, MiB, bpc, MiB)).toBeUndefined();
    expect(readBlockRange(MiB + 1, 1, MiB, bpc, MiB)).toBeUndefined();
    expect(readBlockRange(0, 0, MiB, bpc, MiB)).toBeUndefined();
    expect(readBlockRange(0, 10, 0, bpc, MiB)).toBeUndefined();
    expect(readBlockRange(-1, 10, MiB, bpc, MiB)).toBeUndefined();
  });
});
