// Cheap sanity statistics for a few MB of generator output. They cannot prove randomness; they
// catch generators that are plainly broken (a pool served twice, stuck or doubled bits, a counter).
// Each is turned into a z-score; |z| above Z_LIMIT (a chance of about 6e-7 for good output) fails.

export const Z_LIMIT = 5;

export interface RandomnessReport {
  /** Byte frequencies against uniform: chi-square with 255 degrees of freedom, as a z-score. */
  readonly byteFrequencyZ: number;
  /** Share of one bits against 1/2 (monobit), as a z-score. */
  readonly onesZ: number;
  /** Number of runs of equal bits (Wald-Wolfowitz) against its expectation, as a z-score. */
  readonly bitRunsZ: number;
  /** Bytes equal to their predecessor against 1/256 of all, as a z-score. */
  readonly repeatedByteZ: number;
  /** 16-byte blocks (at 16-byte offsets) that occurred before: 0 for any real generator. */
  readonly duplicateBlocks: number;
}

/** The statistics of `data` that failed, by name (empty when all pass). */
export function failedStatistics(report: RandomnessReport): string[] {
  const failed: string[] = [];
  for (const name of ['byteFrequencyZ', 'onesZ', 'bitRunsZ', 'repeatedByteZ'] as const) {
    if (!(Math.abs(report[name]) <= Z_LIMIT)) failed.push(name);
  }
  if (report.duplicateBlocks !== 0) failed.push('duplicateBlocks');
  return failed;
}

const POPCOUNT = new Uint8Array(256);
// Bit changes inside a byte, reading bits from most to least significant.
const INNER_CHANGES = new Uint8Array(256);
for (let b = 0; b < 256; b++) {
  let ones = 0;
  let changes = 0;
  for (let bit = 7; bit >= 0; bit--) {
    ones += (b >> bit) & 1;
    if (bit < 7 && ((b >> bit) & 1) !== ((b >> (bit + 1)) & 1)) changes++;
  }
  POPCOUNT[b] = ones;
  INNER_CHANGES[b] = changes;
}

export function assessRandomness(data: Uint8Array): RandomnessReport {
  const n = data.length;
  const counts = new Float64Array(256);
  let ones = 0;
  let changes = 0;
  let repeats = 0;
  let prev = -1;
  for (let i = 0; i < n; i++) {
    const b = data[i]!;
    counts[b]!++;
    ones += POPCOUNT[b]!;
    changes += INNER_CHANGES[b]!;
    if (prev >= 0) {
      if (b === prev) repeats++;
      // Between bytes: last bit of the previous byte against the first bit of this one.
      if ((prev & 1) !== b >> 7) changes++;
    }
    prev = b;
  }

  const expected = n / 256;
  let chi = 0;
  for (const c of counts) chi += ((c - expected) * (c - expected)) / expected;

  const bits = n * 8;
  const zeros = bits - ones;
  const runs = changes + 1;
  const meanRuns = (2 * ones * zeros) / bits + 1;
  const varRuns = ((meanRuns - 1) * (meanRuns - 2)) / (bits - 1);

  const pairs = n - 1;
  const p = 1 / 256;

  return {
    byteFrequencyZ: chiSquareZ(chi, 255),
    onesZ: (ones - bits / 2) / Math.sqrt(bits / 4),
    bitRunsZ: (runs - meanRuns) / Math.sqrt(varRuns),
    repeatedByteZ: (repeats - pairs * p) / Math.sqrt(pairs * p * (1 - p)),
    duplicateBlocks: duplicateBlocks(data),
  };
}

/** Wilson-Hilferty: a chi-square value as an approximately standard normal z-score. */
function chiSquareZ(chi: number, df: number): number {
  const v = 2 / (9 * df);
  return (Math.cbrt(chi / df) - (1 - v)) / Math.sqrt(v);
}

function duplicateBlocks(data: Uint8Array): number {
  const seen = new Set<string>();
  let duplicates = 0;
  const view = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  for (let off = 0; off + 16 <= view.length; off += 16) {
    const key = view.toString('latin1', off, off + 16);
    if (seen.has(key)) duplicates++;
    else seen.add(key);
  }
  return duplicates;
}
