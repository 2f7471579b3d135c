import { describe, expect, it } from '@jest/globals';
import { mulberry32, readPositions, readerSeed, scaleDraw } from './read-offsets.js';

const SPEC = { files: 16, fileSizeBytes: 64 * 1024 * 1024, readBytes: 64 * 1024, aligned: false };

describe('read offsets', () => {
  it('draws mulberry32 exactly (the values the Java reader must draw too)', () => {
    const draw = mulberry32(1);
    // mulberry32(1): 0.6270739405881613 × 2^32 is the published first value of the generator.
    expect([draw(), draw(), draw()]).toEqual([2693262067, 11749833, 2265367787]);
  });

  it('gives the same positions for the same seed, other ones for another', () => {
    const a = Array.from({ length: 4 }, readPositions(SPEC, 42));
    expect(a).toEqual([
      { file: 9, offset: 30054891 },
      { file: 13, offset: 44901199 },
      { file: 2, offset: 35304517 },
      { file: 4, offset: 41884961 },
    ]);
    expect(Array.from({ length: 4 }, readPositions(SPEC, 42))).toEqual(a);
    expect(Array.from({ length: 4 }, readPositions(SPEC, 43))).not.toEqual(a);
  });

  it('keeps every read inside its file, and spreads over files and byte offsets', () => {
    const next = readPositions(SPEC, 7);
    const files = new Set<number>();
    let unaligned = 0;
    let lowest = Infinity;
    let highestEnd = 0;
    for (let i = 0; i < 20_000; i++) {
      const p = next();
      lowest = Math.min(lowest, p.offset);
      highestEnd = Math.max(highestEnd, p.offset + SPEC.readBytes);
      files.add(p.file);
      if (p.offset % 4096 !== 0) unaligned++;
    }
    expect(lowest).toBeGreaterThanOrEqual(0);
    expect(highestEnd).toBeLessThanOrEqual(SPEC.fileSizeBytes);
    expect(files.size).toBe(16);
    expect(unaligned).toBeGreaterThan(19_900);
  });

  it('aligned offsets are multiples of the read size, up to the last whole read', () => {
    const small = { files: 2, fileSizeBytes: 4 * 64 * 1024, readBytes: 64 * 1024, aligned: true };
    const next = readPositions(small, 3);
    const seen = new Set<number>();
    for (let i = 0; i < 1000; i++) seen.add(next().offset);
    expect([...seen].sort((x, y) => x - y)).toEqual([0, 65536, 131072, 196608]);
  });

  it('scales a draw to a range in doubles, never reaching the end', () => {
    expect(scaleDraw(0, 10)).toBe(0);
    expect(scaleDraw(0xffffffff, 10)).toBe(9);
    expect(scaleDraw(0x80000000, 64 * 1024 * 1024)).toBe(32 * 1024 * 1024);
  });

  it('seeds readers apart per round, reader and phase, and never per column', () => {
    const seeds = new Set<number>();
    for (let round = 0; round < 3; round++)
      for (let reader = 0; reader < 16; reader++)
        for (const phase of ['warmup', 'measure'] as const) seeds.add(readerSeed(1, round, reader, phase));
    expect(seeds.size).toBe(3 * 16 * 2);
    expect(readerSeed(1, 2, 5, 'measure')).toBe(readerSeed(1, 2, 5, 'measure'));
  });

  it('rejects a read larger than the file and an empty file set', () => {
    expect(() => readPositions({ ...SPEC, readBytes: SPEC.fileSizeBytes + 1 }, 1)).toThrow(RangeError);
    expect(() => readPositions({ ...SPEC, files: 0 }, 1)).toThrow(RangeError);
  });
});
