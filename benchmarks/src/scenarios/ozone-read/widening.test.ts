import { describe, expect, it } from '@jest/globals';
import { readPositions } from './read-offsets.js';
import {
  expectedWidenedBytes,
  predictEcFetchedBytes,
  predictFetchedBytes,
  type EcWideningLayout,
  type WideningLayout,
} from './widening.js';

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

describe('EC prediction (rs-3-2-1024k, 16 KiB windows)', () => {
  const ec = (over: Partial<EcWideningLayout> = {}): EcWideningLayout => ({
    fileSizeBytes: 64 * MiB,
    bytesPerChecksum: 16 * KiB,
    dataUnits: 3,
    parityUnits: 2,
    cellBytes: MiB,
    groupBytes: 3 * 256 * MiB,
    lostReplicaIndexes: [],
    ...over,
  });

  it('healthy: each cell widened within its own chunk, as a replicated file of 1 MiB chunks', () => {
    const l = ec();
    expect(predictEcFetchedBytes(l, 0, 64 * KiB, true)).toBe(64 * KiB);
    expect(predictEcFetchedBytes(l, 16 * KiB + 1, 64 * KiB, true)).toBe(80 * KiB);
    // Across the end of cell 1 (replica 1) into cell 2 (replica 2): a window of each.
    expect(predictEcFetchedBytes(l, MiB - 10, 20, true)).toBe(32 * KiB);
    const replicated = layout(16 * KiB, { chunkSizeBytes: MiB });
    const next = readPositions(
      { files: 1, fileSizeBytes: l.fileSizeBytes, readBytes: 64 * KiB, aligned: false },
      7,
    );
    for (let i = 0; i < 2000; i++) {
      const { offset } = next();
      for (const verify of [true, false])
        expect(predictEcFetchedBytes(l, offset, 64 * KiB, verify)).toBe(
          predictFetchedBytes(replicated, offset, 64 * KiB, verify),
        );
    }
  });

  it('a lost data replica: its part rebuilt from the two other data cells and the first parity, over the span read', () => {
    const l = ec({ lostReplicaIndexes: [1] });
    // Cell 1 of stripe 0 is replica 1's: d = 3 units of 64 KiB.
    expect(predictEcFetchedBytes(l, 0, 64 * KiB, true)).toBe(3 * 64 * KiB);
    expect(predictEcFetchedBytes(l, 0, 64 * KiB, false)).toBe(3 * 64 * KiB);
    // Unaligned, verifying: each unit's span is widened to its windows (80 KiB each).
    expect(predictEcFetchedBytes(l, 100, 64 * KiB, true)).toBe(3 * 80 * KiB);
    expect(predictEcFetchedBytes(l, 100, 64 * KiB, false)).toBe(3 * 64 * KiB);
    // Cell 2 is replica 2's: read directly.
    expect(predictEcFetchedBytes(l, MiB, 64 * KiB, true)).toBe(64 * KiB);
    // Half in cell 1 (rebuilt, 3 × 32 KiB), half in cell 2 (direct, 32 KiB).
    expect(predictEcFetchedBytes(l, MiB - 32 * KiB, 64 * KiB, true)).toBe(4 * 32 * KiB);
    // The next stripe's cell 1 is replica 1's again.
    expect(predictEcFetchedBytes(l, 3 * MiB, 64 * KiB, false)).toBe(3 * 64 * KiB);
  });

  it("the last stripe's empty cells count as zeros: one parity unit rebuilds a stripe of one cell", () => {
    // 64 MiB = 21 stripes of 3 MiB and a stripe holding one cell (replica 1's).
    const l = ec({ lostReplicaIndexes: [1] });
    expect(predictEcFetchedBytes(l, 63 * MiB, 64 * KiB, true)).toBe(64 * KiB);
    // A short last cell: the parity cell is as long as it, and windows end with it.
    const short = ec({ fileSizeBytes: 63 * MiB + 20 * KiB, lostReplicaIndexes: [1] });
    expect(predictEcFetchedBytes(short, 63 * MiB + 10 * KiB, 64 * KiB, true)).toBe(20 * KiB);
    expect(predictEcFetchedBytes(short, 63 * MiB + 10 * KiB, 64 * KiB, false)).toBe(10 * KiB);
  });

  it('two lost data replicas take both parities; three cannot be read', () => {
    expect(predictEcFetchedBytes(ec({ lostReplicaIndexes: [1, 2] }), 0, 64 * KiB, false)).toBe(3 * 64 * KiB);
    expect(() => predictEcFetchedBytes(ec({ lostReplicaIndexes: [1, 2, 3] }), 0, 64 * KiB, false)).toThrow(
      RangeError,
    );
  });

  it('block groups: a read across a group boundary is cut there, each group with its own stripes', () => {
    const l = ec({ groupBytes: 3 * MiB, lostReplicaIndexes: [3] });
    // The end of group 0 is replica 3's cell (rebuilt, 3 × 32 KiB), group 1 starts with replica 1's (direct).
    expect(predictEcFetchedBytes(l, 3 * MiB - 32 * KiB, 64 * KiB, false)).toBe(4 * 32 * KiB);
  });
});
