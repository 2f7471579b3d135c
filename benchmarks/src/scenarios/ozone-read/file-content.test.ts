import { contractKeyBytes } from '@fastpath/ozone-fs-client/testing';
import { CONTENT_SHIFT_WORDS, fileContents, fileSeed } from './file-content.js';

describe("the files' known content, held once", () => {
  const size = 256 * 1024 + 3;

  it('gives every file of the scenario its own seed content, as a view into one buffer', () => {
    const seeds = Array.from({ length: 16 }, (_, i) => fileSeed(i));
    const contents = fileContents(seeds, size);
    for (let i = 0; i < seeds.length; i++) {
      expect(contents[i]!.equals(contractKeyBytes(size, seeds[i]!))).toBe(true);
      expect(contents[i]!.buffer).toBe(contents[0]!.buffer);
    }
    // One buffer of the file's size and the shifts, not 16 files' worth.
    expect(contents[0]!.buffer.byteLength).toBeLessThan(size + 16 * CONTENT_SHIFT_WORDS * 4 + 8);
  });

  it('keeps the files distinct, also a chunk or checksum window away', () => {
    const [a, b] = fileContents([fileSeed(0), fileSeed(1)], size);
    expect(a!.equals(b!)).toBe(false);
    for (const away of [0, 4, 16 * 1024, 64 * 1024]) {
      expect(a!.subarray(away, away + 4096).equals(b!.subarray(0, 4096))).toBe(false);
    }
  });

  it('gives seeds far apart a buffer each, with the same bytes', () => {
    const contents = fileContents([1000, 1001], size);
    expect(contents[0]!.buffer).not.toBe(contents[1]!.buffer);
    expect(contents[1]!.equals(contractKeyBytes(size, 1001))).toBe(true);
  });

  it('is the first file of the old layout at index 0', () => {
    expect(fileSeed(0)).toBe(1000);
  });
});
