// The files' known content, held once. A file's content is the ozone fixture's key pattern
// (contractKeyBytes): word w of seed s is a hash of `w + s × 0x9E3779B9` (mod 2^32). Two seeds whose
// mixed values lie k words apart therefore have the same content shifted by k words, and the
// scenario picks its file seeds that way (fileSeed): every file is one window of a single buffer,
// 64 MiB and a few KiB for all of them instead of one copy per file (1 GiB for 16 files of 64 MiB).
//
// Why it matters: a reader that held 1 GiB of Buffers beside the client made V8 run a full
// mark-compact every 10-20 MiB read (its heuristics count external memory), and the sequential
// rows measured that more than the client. Java's reader holds its content the same way.
import { contractKeyBytes } from '@fastpath/ozone-fs-client/testing';

const GOLDEN = 0x9e3779b9;
/** GOLDEN's inverse mod 2^32 (Newton's iteration: each step doubles the correct low bits). */
const GOLDEN_INVERSE = (() => {
  let inverse = GOLDEN;
  for (let i = 0; i < 5; i++) inverse = Math.imul(inverse, 2 - Math.imul(GOLDEN, inverse));
  return inverse;
})();

/**
 * Words between consecutive files' content: 4,100 bytes, no power of two, so a read that came back
 * from the wrong file at an offset a client could plausibly confuse (a chunk, checksum window or
 * block away) still differs from what is expected.
 */
export const CONTENT_SHIFT_WORDS = 1025;
/** The first file's seed, as before the files shared their content. */
const FIRST_SEED = 1000;
/** Seeds further apart than this many words get a buffer of their own. */
const MAX_SHARED_SPREAD_WORDS = 16 * 1024 * 1024;

/**
 * The content seed of file `index`: its content is file 0's shifted by `index` × 4,100 bytes. Every
 * row uses the same seeds, so one copy of the expected bytes serves them all.
 */
export function fileSeed(index: number): number {
  const mixed = (Math.imul(FIRST_SEED, GOLDEN) + index * CONTENT_SHIFT_WORDS) | 0;
  return Math.imul(mixed, GOLDEN_INVERSE);
}

/** The content seeds of files 0 … count - 1, for every reader and writer of the scenario. */
export function fileSeeds(count: number): number[] {
  return Array.from({ length: count }, (_, i) => fileSeed(i));
}

/**
 * The content of a file of each seed, `sizeBytes` long: views into one buffer when the seeds' mixed
 * values lie close after the first one's (fileSeed's seeds), else a buffer per seed.
 */
export function fileContents(seeds: readonly number[], sizeBytes: number): Buffer[] {
  if (seeds.length === 0) return [];
  const first = Math.imul(seeds[0]!, GOLDEN);
  const shifts = seeds.map((seed) => (Math.imul(seed, GOLDEN) - first) >>> 0);
  const spread = Math.max(...shifts);
  if (spread > MAX_SHARED_SPREAD_WORDS) return seeds.map((seed) => contractKeyBytes(sizeBytes, seed));
  const shared = contractKeyBytes(sizeBytes + spread * 4, seeds[0]!);
  return shifts.map((words) => shared.subarray(words * 4, words * 4 + sizeBytes));
}
