import { GF_MUL_TABLE, gfMul } from './gf256.js';

/**
 * Per coefficient c, 1024 words: c·x shifted to each byte lane of a little-endian 32-bit word
 * (lane b at [256·b + x]). With them a multiply-add handles four bytes per word load and store.
 */
const WORD_TABLES: (Uint32Array | undefined)[] = new Array<Uint32Array | undefined>(256);

function wordTable(c: number): Uint32Array {
  let t = WORD_TABLES[c];
  if (t === undefined) {
    t = new Uint32Array(1024);
    for (let x = 0; x < 256; x++) {
      const m = gfMul(c, x);
      t[x] = m;
      t[256 + x] = m << 8;
      t[512 + x] = m << 16;
      t[768 + x] = (m << 24) >>> 0;
    }
    WORD_TABLES[c] = t;
  }
  return t;
}

// The word lanes assume little-endian memory, as on every platform Node ships for but s390x.
const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

/**
 * The hot loop of the TypeScript coder: outputs[r][0..len) = XOR over j of
 * coefs[r × k + j] · inputs[j][0..len), over GF(2^8). It is ISA-L's `ec_encode_data` (and Hadoop's
 * `RSUtil.encodeData`): encode applies the parity rows of the encode matrix, decode the decode rows.
 *
 * Why it is shaped like this: when every cell is 4-byte aligned (Node's buffers are), it works a
 * 32-bit word at a time with per-lane product tables (about three times a byte loop's speed);
 * a byte loop does unaligned views and the last len mod 4 bytes.
 */
export function gfMatrixMultiply(
  coefs: Uint8Array,
  k: number,
  inputs: readonly Uint8Array[],
  outputs: readonly Uint8Array[],
  len: number,
): void {
  const words = len >>> 2;
  if (LITTLE_ENDIAN && words >= 16 && [...inputs, ...outputs].every((b) => b.byteOffset % 4 === 0)) {
    gfMatrixMultiplyWords(coefs, k, inputs, outputs, words);
    const done = words << 2;
    if (done < len) {
      gfMatrixMultiplyBytes(
        coefs,
        k,
        inputs.map((b) => b.subarray(done, len)),
        outputs.map((b) => b.subarray(done, len)),
        len - done,
      );
    }
    return;
  }
  gfMatrixMultiplyBytes(coefs, k, inputs, outputs, len);
}

/** The word loop: two inputs per pass, eight table loads and one store per four output bytes. */
function gfMatrixMultiplyWords(
  coefs: Uint8Array,
  k: number,
  inputs: readonly Uint8Array[],
  outputs: readonly Uint8Array[],
  words: number,
): void {
  const in32 = inputs.map((b) => new Uint32Array(b.buffer, b.byteOffset, words));
  for (let r = 0; r < outputs.length; r++) {
    const out = outputs[r]!;
    const o = new Uint32Array(out.buffer, out.byteOffset, words);
    o.fill(0);
    let j = 0;
    for (; j + 1 < k; j += 2) {
      const t = wordTable(coefs[r * k + j]!);
      const u = wordTable(coefs[r * k + j + 1]!);
      const a = in32[j]!;
      const b = in32[j + 1]!;
      for (let n = 0; n < words; n++) {
        const w = a[n]!;
        const v = b[n]!;
        o[n] =
          o[n]! ^
          t[w & 255]! ^
          t[256 + ((w >>> 8) & 255)]! ^
          t[512 + ((w >>> 16) & 255)]! ^
          t[768 + (w >>> 24)]! ^
          u[v & 255]! ^
          u[256 + ((v >>> 8) & 255)]! ^
          u[512 + ((v >>> 16) & 255)]! ^
          u[768 + (v >>> 24)]!;
      }
    }
    if (j < k) {
      const t = wordTable(coefs[r * k + j]!);
      const a = in32[j]!;
      for (let n = 0; n < words; n++) {
        const w = a[n]!;
        o[n] =
          o[n]! ^
          t[w & 255]! ^
          t[256 + ((w >>> 8) & 255)]! ^
          t[512 + ((w >>> 16) & 255)]! ^
          t[768 + (w >>> 24)]!;
      }
    }
  }
}

/** The byte loop, for unaligned views and the last len mod 4 bytes. */
function gfMatrixMultiplyBytes(
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
    for (let j = 0; j < k; j++) {
      const c = coefs[r * k + j]!;
      const input = inputs[j]!;
      if (c === 0) continue;
      if (c === 1) {
        xorInto(out, input, len);
        continue;
      }
      const base = c << 8;
      for (let n = 0; n < len; n++) out[n] = out[n]! ^ T[base + input[n]!]!;
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
