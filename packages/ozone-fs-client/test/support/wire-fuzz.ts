// Inputs for the hand-written decoders' robustness tests: random bytes, and valid encodings with
// a few bytes overwritten (which reach deeper into a decoder than random bytes do).
import fc from 'fast-check';

export function garbageOrCorrupted<T>(
  valid: fc.Arbitrary<T>,
  encode: (m: T) => Buffer,
): fc.Arbitrary<Buffer> {
  const corrupted = fc
    .tuple(
      valid,
      fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }),
    )
    .map(([m, flips]) => {
      const raw = encode(m);
      for (const [at, v] of flips) if (raw.length > 0) raw[at % raw.length] = v;
      return raw;
    });
  return fc.oneof(
    fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
    corrupted,
  );
}

/** What a decoder did with some bytes: its value, or what it threw (to compare two decoders). */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

export function outcome<T>(decode: () => T): Outcome<T> {
  try {
    return { ok: true, value: decode() };
  } catch (error) {
    return { ok: false, error };
  }
}
