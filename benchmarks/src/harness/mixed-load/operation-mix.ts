import { BenchmarkInputError } from '../benchmark-errors.js';

/** The two kinds of request the KMS benchmark sends. */
export type KmsOperation = 'verify' | 'create';

/** A verify:create mix in parts of a block of 100, e.g. 90:10. */
export interface OperationMix {
  readonly label: string;
  readonly verify: number;
  readonly create: number;
}

/** The source document's mixes. */
export const DEFAULT_MIXES: readonly string[] = Object.freeze(['100:0', '99:1', '95:5', '90:10']);

/** Parses `"90:10"`; the two parts must be whole numbers adding up to 100. */
export function parseMix(text: string): OperationMix {
  const m = /^\s*(\d{1,3})\s*:\s*(\d{1,3})\s*$/.exec(text);
  const verify = Number(m?.[1]);
  const create = Number(m?.[2]);
  if (!m || verify + create !== 100) {
    throw new BenchmarkInputError(
      `mix "${text}" must be verify:create with two whole numbers adding up to 100, e.g. 90:10`,
    );
  }
  return Object.freeze({ label: `${verify}:${create}`, verify, create });
}

/** A deterministic PRNG (mulberry32): the same seed gives the same shuffles, so runs can be repeated. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
