// The positions of the random positional reads. Both readers of this benchmark (fastpath's, in
// Node, and the Java anchor, java/OzoneReadBench.java) draw them from this generator, so the same
// seed gives the same files and offsets in both: mulberry32 for the 32-bit draws (integer
// arithmetic modulo 2^32, identical in JavaScript and Java), and the scaling to a range in IEEE
// doubles, which both languages compute the same way.

/** One read: which file (index into the file set) and where in it. */
export interface ReadPosition {
  file: number;
  offset: number;
}

/** What the generator draws from. */
export interface ReadOffsetSpec {
  /** Files in the set; each read picks one uniformly. */
  files: number;
  fileSizeBytes: number;
  readBytes: number;
  /** `true`: offsets are multiples of `readBytes` (the source's aligned case); `false`: any byte. */
  aligned: boolean;
}

const TWO_POW_32 = 4294967296;

/**
 * A seeded stream of 32-bit unsigned draws (mulberry32). Small, fast, and easy to write the same
 * way in Java: `state += 0x6D2B79F5; z = state; z = (z ^ z >>> 15) * (z | 1); ...`.
 */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 15), z | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return (z ^ (z >>> 14)) >>> 0;
  };
}

/** Scales a 32-bit draw to `[0, n)`: `floor(u / 2^32 × n)` in doubles (Java's `(long) (u / 4294967296.0 * n)`). */
export function scaleDraw(u: number, n: number): number {
  return Math.floor((u / TWO_POW_32) * n);
}

/**
 * The seed of one reader's stream: the same in every column and row of a round, so "verify on"
 * and "verify off" read the same positions, and different per round, reader and phase.
 */
export function readerSeed(
  baseSeed: number,
  round: number,
  reader: number,
  phase: 'warmup' | 'measure' | 'profile',
): number {
  return (
    (Math.imul(baseSeed ^ 0x5bd1e995, 31) +
      round * 1_000_003 +
      reader * 7919 +
      (phase === 'measure' ? 1 : phase === 'profile' ? 2 : 0)) >>>
    0
  );
}

/** An endless stream of read positions for one reader. */
export function readPositions(spec: ReadOffsetSpec, seed: number): () => ReadPosition {
  const { files, fileSizeBytes, readBytes, aligned } = spec;
  if (!Number.isSafeInteger(files) || files < 1)
    throw new RangeError(`files must be a positive integer, got ${files}`);
  if (!Number.isSafeInteger(readBytes) || readBytes < 1 || readBytes > fileSizeBytes)
    throw new RangeError(`readBytes must be from 1 to the file size (${fileSizeBytes}), got ${readBytes}`);
  const draw = mulberry32(seed);
  // Every start that leaves a whole read inside the file; aligned: every multiple of readBytes that does.
  const starts = aligned ? Math.floor(fileSizeBytes / readBytes) : fileSizeBytes - readBytes + 1;
  return () => {
    const file = scaleDraw(draw(), files);
    const k = scaleDraw(draw(), starts);
    return { file, offset: aligned ? k * readBytes : k };
  };
}
