// GF(2^8) as Hadoop's RS coder (and ISA-L, which it was ported from) defines it: primitive
// polynomial x^8+x^4+x^3+x^2+1 (0x11D), generator 2. Facts from hadoop-common's
// io/erasurecode/rawcoder/util/GF256.java and RSUtil.java (3.4.x).

const POLY_LOW = 0x1d;

/** exp[i] = 2^i for i in 0..509 (doubled so exp[log a + log b] needs no modulo). */
const EXP = new Uint8Array(510);
/** log[a] for a in 1..255; log[0] is unused. */
const LOG = new Uint8Array(256);
{
  let x = 1;
  for (let i = 0; i < 255; i++) {
    EXP[i] = x;
    EXP[i + 255] = x;
    LOG[x] = i;
    x <<= 1;
    if (x & 0x100) x = (x ^ POLY_LOW) & 0xff;
  }
}

/** Product of two field elements. */
export function gfMul(a: number, b: number): number {
  if (a === 0 || b === 0) return 0;
  return EXP[LOG[a]! + LOG[b]!]!;
}

/** Multiplicative inverse; inv(0) is 0, as in Hadoop's `GF256.gfInv`. */
export function gfInv(a: number): number {
  if (a === 0) return 0;
  return EXP[255 - LOG[a]!]!;
}

/**
 * The full product table: row c (256 bytes from c × 256) holds c·x for every x. One row is the
 * lookup a coder uses for one matrix coefficient, so a multiply-add is one load per byte.
 */
export const GF_MUL_TABLE: Uint8Array = (() => {
  const table = new Uint8Array(256 * 256);
  for (let c = 1; c < 256; c++) {
    for (let x = 1; x < 256; x++) table[c * 256 + x] = EXP[LOG[c]! + LOG[x]!]!;
  }
  return table;
})();

/** The 256-byte lookup row of coefficient `c` (a view into {@link GF_MUL_TABLE}). */
export function gfMulRow(c: number): Uint8Array {
  return GF_MUL_TABLE.subarray(c * 256, c * 256 + 256);
}

/**
 * Inverts the n×n row-major matrix `input` by Gauss–Jordan elimination with row swaps on a zero
 * pivot, as ISA-L's `gf_invert_matrix` and Hadoop's `GF256.gfInvertMatrix` do. Returns undefined
 * when it is singular (cannot happen for n rows of a Cauchy encode matrix). `input` is left intact.
 */
export function gfInvertMatrix(input: Uint8Array, n: number): Uint8Array | undefined {
  const a = input.slice(0, n * n);
  const out = new Uint8Array(n * n);
  for (let i = 0; i < n; i++) out[i * n + i] = 1;
  for (let i = 0; i < n; i++) {
    if (a[i * n + i] === 0) {
      let j = i + 1;
      while (j < n && a[j * n + i] === 0) j++;
      if (j === n) return undefined;
      for (let k = 0; k < n; k++) {
        const t = a[i * n + k]!;
        a[i * n + k] = a[j * n + k]!;
        a[j * n + k] = t;
        const u = out[i * n + k]!;
        out[i * n + k] = out[j * n + k]!;
        out[j * n + k] = u;
      }
    }
    const pivotInv = gfInv(a[i * n + i]!);
    for (let k = 0; k < n; k++) {
      a[i * n + k] = gfMul(a[i * n + k]!, pivotInv);
      out[i * n + k] = gfMul(out[i * n + k]!, pivotInv);
    }
    for (let j = 0; j < n; j++) {
      if (j === i) continue;
      const f = a[j * n + i]!;
      if (f === 0) continue;
      for (let k = 0; k < n; k++) {
        a[j * n + k]! ^= gfMul(f, a[i * n + k]!);
        out[j * n + k]! ^= gfMul(f, out[i * n + k]!);
      }
    }
  }
  return out;
}

/**
 * The (d+p)×d encode matrix: identity on top, then row i, column j = inv(i XOR j). This is
 * ISA-L's `gf_gen_cauchy1_matrix`, which Hadoop's `RSUtil.genCauchyMatrix` ports and Hadoop's
 * native coder calls; it is what makes parity bytes identical across Java, ISA-L and fastpath.
 */
export function cauchyEncodeMatrix(data: number, parity: number): Uint8Array {
  const all = data + parity;
  const m = new Uint8Array(all * data);
  for (let i = 0; i < data; i++) m[i * data + i] = 1;
  for (let i = data; i < all; i++) {
    for (let j = 0; j < data; j++) m[i * data + j] = gfInv(i ^ j);
  }
  return m;
}
