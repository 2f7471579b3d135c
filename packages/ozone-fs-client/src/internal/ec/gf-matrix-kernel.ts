import { GF_MUL_TABLE } from './gf256.js';

/**
 * The one hot loop of the TypeScript coder: outputs[r][0..len) = XOR over j of
 * coefs[r × k + j] · inputs[j][0..len), over GF(2^8). It is ISA-L's `ec_encode_data` (and Hadoop's
 * `RSUtil.encodeData`): encode applies the parity rows of the encode matrix, decode the decode rows.
 *
 * Why it is shaped like this: V8 keeps a byte loop with table loads fast when each output byte
 * is written once per group of inputs, so the inputs are taken four at a time (one store per four
 * products) and a coefficient of 0 or 1 costs no lookup.
 */
export function gfMatrixMultiply(
  coefs: Uint8Array,
  k: number,
  inputs: readonly Uint8Array[],
  outputs: readonly Uint8Array[],
  len: number,
): void {
  const T = GF_MUL_TABLE;
  for (let r = 0; r < outputs.length; r++) {
    const out = outputs[r]!;
    out.fill(0, 0, len);
    let j = 0;
    while (j < k) {
      // Gather up to four inputs whose coefficient is neither 0 (skipped) nor 1 (plain XOR).
      const group: Uint8Array[] = [];
      const bases: number[] = [];
      while (j < k && group.length < 4) {
        const c = coefs[r * k + j]!;
        const input = inputs[j]!;
        j++;
        if (c === 0) continue;
        if (c === 1) {
          xorInto(out, input, len);
          continue;
        }
        group.push(input);
        bases.push(c << 8);
      }
      switch (group.length) {
        case 4: {
          const a = group[0]!;
          const b = group[1]!;
          const c = group[2]!;
          const d = group[3]!;
          const ta = bases[0]!;
          const tb = bases[1]!;
          const tc = bases[2]!;
          const td = bases[3]!;
          for (let n = 0; n < len; n++) {
            out[n] = out[n]! ^ T[ta + a[n]!]! ^ T[tb + b[n]!]! ^ T[tc + c[n]!]! ^ T[td + d[n]!]!;
          }
          break;
        }
        case 3: {
          const a = group[0]!;
          const b = group[1]!;
          const c = group[2]!;
          const ta = bases[0]!;
          const tb = bases[1]!;
          const tc = bases[2]!;
          for (let n = 0; n < len; n++) {
            out[n] = out[n]! ^ T[ta + a[n]!]! ^ T[tb + b[n]!]! ^ T[tc + c[n]!]!;
          }
          break;
        }
        case 2: {
          const a = group[0]!;
          const b = group[1]!;
          const ta = bases[0]!;
          const tb = bases[1]!;
          for (let n = 0; n < len; n++) out[n] = out[n]! ^ T[ta + a[n]!]! ^ T[tb + b[n]!]!;
          break;
        }
        case 1: {
          const a = group[0]!;
          const ta = bases[0]!;
          for (let n = 0; n < len; n++) out[n] = out[n]! ^ T[ta + a[n]!]!;
          break;
        }
        default:
          break;
      }
    }
  }
}

/** out[0..len) ^= input[0..len), a word at a time where both views allow it. */
export function xorInto(out: Uint8Array, input: Uint8Array, len: number): void {
  let n = 0;
  if (out.byteOffset % 4 === 0 && input.byteOffset % 4 === 0 && len >= 16) {
    const words = len >>> 2;
    const o32 = new Int32Array(out.buffer, out.byteOffset, words);
    const i32 = new Int32Array(input.buffer, input.byteOffset, words);
    for (let w = 0; w < words; w++) o32[w] = o32[w]! ^ i32[w]!;
    n = words << 2;
  }
  for (; n < len; n++) out[n] = out[n]! ^ input[n]!;
}
