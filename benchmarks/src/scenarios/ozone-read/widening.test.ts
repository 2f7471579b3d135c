import { describe, expect, it } from '@jest/globals';
import { readPositions } from './read-offsets.js';
import { expectedWidenedBytes, predictFetchedBytes, type WideningLayout } from './widening.js';

const KiB = 1024;
const MiB = 1024 * KiB;
const layout = (bytesPerChecksum: number, over: Partial<WideningLayout> = {}): WideningLayout => ({
  fileSizeBytes: 64 * MiB,
  chunkSizeBytes: 4 * MiB,
  blockSizeBytes: 256 * MiB,
  bytesPerChecksum,
  ...over,
});

describe('widening prediction', () => {
  it("matches Ozone's unit-test vector: chunk 100 B, 20 B windows, bytes 0..49 fetch 0..59", () => {
    const l = { fileSizeBytes: 100, chunkSizeBytes: 100, blockSizeBytes: 100, bytesPerChecksum: 20 };
    expect(predictFetchedBytes(l, 0, 50, true)).toBe(60);
  });

  it('1 MiB windows: a 64 KiB read fetches 1 MiB, or 2 MiB across a window boundary', () => {
    const l = layout(MiB);
    expect(predictFetchedBytes(l, 0, 64 * KiB, true)).toBe(MiB);
    expect(predictFetchedBytes(l, MiB - 1, 64 * KiB, true)).toBe(2 * MiB);
    expect(predictFetchedBytes(l, MiB - 64 * KiB, 64 * KiB, true)).toBe(MiB);
  });

  it('16 KiB windows: 64 KiB when aligned to a window, else 80 KiB', () => {
    const l = layout(16 * KiB);
    expect(predictFetchedBytes(l, 16 * KiB, 64 * KiB, true)).toBe(64 * KiB);
    expect(predictFetchedBytes(l, 16 * KiB + 1, 64 * KiB, true)).toBe(80 * KiB);
  });

  it('cuts a read at a chunk boundary and widens each part within its own chunk', () => {
    // Chunks of 3 MiB with 1 MiB windows: a read across the chunk end at 3 MiB widens to the
    // last window of the first chunk and the first of the next.
    const l = layout(MiB, { chunkSizeBytes: 3 * MiB });
    expect(predictFetchedBytes(l, 3 * MiB - 10, 20, true)).toBe(2 * MiB);
    // A short last window: chunk 2.5 MiB, the window at 2 MiB is clipped to 0.5 MiB.
    const short = layout(MiB, { chunkSizeBytes: 2.5 * MiB });
    expect(predictFetchedBytes(short, 2 * MiB + 5, 10, true)).toBe(0.5 * MiB);
  });

  it('verify off fetches exactly the requested bytes, clipped at the end of the file', () => {
    const l = layout(MiB);
    expect(predictFetchedBytes(l, 12_345, 64 * KiB, false)).toBe(64 * KiB);
    expect(predictFetchedBytes(l, l.fileSizeBytes - 10, 64 * KiB, false)).toBe(10);
    expect(predictFetchedBytes(l, l.fileSizeBytes, 64 * KiB, true)).toBe(0);
  });

  it('gives the mean the report quotes: 17.0× with 1 MiB windows, 1.25× with 16 KiB', () => {
    expect(expectedWidenedBytes(MiB, 64 * KiB)).toBe(MiB + 64 * KiB - 1);
    expect(expectedWidenedBytes(16 * KiB, 64 * KiB)).toBe(80 * KiB - 1);
    expect(expectedWidenedBytes(20, 50)).toBe(3 * 20 + 9);
  });

  it('agrees with the per-read prediction averaged over many random reads', () => {
    for (const bpc of [16 * KiB, MiB]) {
      const next = readPositions(
        { files: 1, fileSizeBytes: 64 * MiB, readBytes: 64 * KiB, aligned: false },
        11,
      );
      let total = 0;
      const n = 20_000;
      for (let i = 0; i < n; i++) total += predictFetchedBytes(layout(bpc), next().offset, 64 * KiB, true);
      expect(Math.abs(total / n / expectedWidenedBytes(bpc, 64 * KiB) - 1)).toBeLessThan(0.01);
    }
  });
});
