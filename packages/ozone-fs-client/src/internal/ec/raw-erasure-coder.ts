import {
  ErasureCodingConfigError,
  ErasureUnrecoverableError,
  OzoneInvalidArgumentError,
} from '../../ozone-errors.js';
import { gfMatrixMultiply, xorInto } from './gf-matrix-kernel.js';
import { cauchyEncodeMatrix, gfInvertMatrix, gfMul } from './gf256.js';
import { loadIsalEngine } from './isal-gf-engine.js';

/** The two codecs Ozone's EC replication configs name (`rs-3-2-1024k`, `xor-2-1-1024k`). */
export type ErasureCodecName = 'rs' | 'xor';

/** What a raw coder is built for: the codec and its data and parity unit counts. */
export interface ErasureCoderSchema {
  /** The codec: `rs` (Reed-Solomon over GF(2^8)) or `xor` (one parity unit). */
  readonly codec: ErasureCodecName;
  /** Data units per stripe: a positive integer (3 in `rs-3-2-1024k`). */
  readonly data: number;
  /** Parity units per stripe: a positive integer, data + parity below 256 for `rs`, exactly 1 for `xor`. */
  readonly parity: number;
}

/**
 * The engine behind a coder: applies a GF(2^8) coefficient matrix to equal-length cells.
 * The TypeScript kernel is the default; a faster one can stand in for it with the same bytes.
 */
export interface GfMatrixEngine {
  readonly name: string;
  multiply(
    coefs: Uint8Array,
    k: number,
    inputs: readonly Uint8Array[],
    outputs: readonly Uint8Array[],
    len: number,
  ): void;
}

/** The TypeScript engine, {@link gfMatrixMultiply}. */
export const TS_GF_ENGINE: GfMatrixEngine = Object.freeze({
  name: 'typescript',
  multiply: gfMatrixMultiply,
});

/**
 * Which kernel a coder runs. `auto` (the default): ISA-L through the optional native addon when
 * it is built (Debian's libisal), else TypeScript. Both give the same bytes.
 */
export type ErasureCoderEngineName = 'auto' | 'typescript' | 'isa-l';

/** Options of {@link createRawErasureEncoder} and {@link createRawErasureDecoder}. */
export interface RawErasureCoderOptions {
  /** Default `auto`. */
  readonly engine?: ErasureCoderEngineName;
}

/**
 * The engine an `engine` option names.
 *
 * @throws ErasureCodingConfigError for `isa-l` when the addon cannot be loaded, or an unknown name
 */
export function resolveGfEngine(name: ErasureCoderEngineName = 'auto'): GfMatrixEngine {
  if (name === 'typescript') return TS_GF_ENGINE;
  if (name !== 'auto' && name !== 'isa-l') {
    throw new ErasureCodingConfigError(
      `unknown erasure coder engine ${JSON.stringify(name)}: expected auto, typescript or isa-l`,
    );
  }
  const isal = loadIsalEngine();
  if (isal.available) return isal.engine;
  if (name === 'isa-l') throw new ErasureCodingConfigError(`the ISA-L engine is unavailable: ${isal.reason}`);
  return TS_GF_ENGINE;
}

/** Computes the parity cells of one stripe. */
export interface RawErasureEncoder {
  /** The schema the encoder was built for, checked and frozen. */
  readonly schema: ErasureCoderSchema;
  /** The kernel in use: `typescript` or `isa-l`. */
  readonly engine: string;
  /** Fills `parity` (p cells) from `data` (d cells); every cell has the same length. */
  encode(data: readonly Uint8Array[], parity: readonly Uint8Array[]): void;
}

/** Rebuilds lost cells of one stripe from the others. */
export interface RawErasureDecoder {
  /** The schema the decoder was built for, checked and frozen. */
  readonly schema: ErasureCoderSchema;
  /** The kernel in use: `typescript` or `isa-l`. */
  readonly engine: string;
  /**
   * `inputs` has d+p entries in unit order (data 0..d-1, then parity), null or undefined for a
   * unit not read. Of the present ones, the first d in index order are used, as in Hadoop's
   * `RSRawDecoder`. `outputs[i]` receives unit `erased[i]`; an erased unit's input must be absent.
   */
  decode(
    inputs: readonly (Uint8Array | null | undefined)[],
    erased: readonly number[],
    outputs: readonly Uint8Array[],
  ): void;
}

/**
 * Checks a schema and returns it frozen.
 *
 * @throws ErasureCodingConfigError for an unknown codec or counts the codec cannot hold
 */
export function checkErasureCoderSchema(schema: ErasureCoderSchema): ErasureCoderSchema {
  const { codec, data, parity } = schema;
  if (codec !== 'rs' && codec !== 'xor') {
    throw new ErasureCodingConfigError(`unknown erasure codec ${JSON.stringify(codec)}: expected rs or xor`);
  }
  for (const [name, v] of [
    ['data', data],
    ['parity', parity],
  ] as const) {
    if (!Number.isSafeInteger(v) || v < 1) {
      throw new ErasureCodingConfigError(`${codec}: ${name} must be a positive integer, got ${String(v)}`);
    }
  }
  // Hadoop's RS coders refuse d + p >= 256: the Cauchy rows i XOR j need distinct bytes.
  if (codec === 'rs' && data + parity >= 256) {
    throw new ErasureCodingConfigError(`rs-${data}-${parity}: data + parity must be below 256`);
  }
  // Hadoop's XOR coder writes one parity unit whatever it is given; more would be zeros.
  if (codec === 'xor' && parity !== 1) {
    throw new ErasureCodingConfigError(`xor-${data}-${parity}: xor has exactly one parity unit`);
  }
  return Object.freeze({ codec, data, parity });
}

/**
 * A raw encoder producing exactly the parity bytes of Hadoop's `RSRawEncoder` / `XORRawEncoder`
 * (and so of ISA-L's `ec_encode_data` with `gf_gen_cauchy1_matrix`).
 */
export function createRawErasureEncoder(
  schema: ErasureCoderSchema,
  options: RawErasureCoderOptions = {},
): RawErasureEncoder {
  const s = checkErasureCoderSchema(schema);
  const engine = resolveGfEngine(options.engine);
  if (s.codec === 'xor') {
    // XOR needs no tables: a word-wide XOR in TypeScript is as fast as memory lets it be.
    return {
      schema: s,
      engine: TS_GF_ENGINE.name,
      encode(data, parity) {
        const len = checkCells(s, data, s.data, parity, s.parity);
        const out = parity[0]!;
        out.set(data[0]!.subarray(0, len));
        for (let j = 1; j < data.length; j++) xorInto(out, data[j]!, len);
      },
    };
  }
  const parityRows = cauchyEncodeMatrix(s.data, s.parity).slice(s.data * s.data);
  return {
    schema: s,
    engine: engine.name,
    encode(data, parity) {
      const len = checkCells(s, data, s.data, parity, s.parity);
      engine.multiply(parityRows, s.data, data, parity, len);
    },
  };
}

/** A raw decoder giving the same bytes as Hadoop's `RSRawDecoder` / `XORRawDecoder`. */
export function createRawErasureDecoder(
  schema: ErasureCoderSchema,
  options: RawErasureCoderOptions = {},
): RawErasureDecoder {
  const s = checkErasureCoderSchema(schema);
  const resolved = resolveGfEngine(options.engine);
  const engine = s.codec === 'xor' ? TS_GF_ENGINE : resolved;
  const d = s.data;
  const encodeMatrix = s.codec === 'rs' ? cauchyEncodeMatrix(d, s.parity) : undefined;
  // Hadoop caches the decode matrix of the last (valid units, erased units) pair; a reader
  // that loses the same replica for a whole block asks for the same one stripe after stripe.
  let cachedKey = '';
  let cachedRows: Uint8Array = new Uint8Array(0);
  return {
    schema: s,
    engine: engine.name,
    decode(inputs, erased, outputs) {
      const { valid, len } = checkDecodeArguments(s, inputs, erased, outputs);
      if (erased.length === 0) return;
      const chosen = valid.slice(0, d);
      const sources = chosen.map((i) => inputs[i]!);
      if (encodeMatrix === undefined) {
        const out = outputs[0]!;
        out.set(sources[0]!.subarray(0, len));
        for (let j = 1; j < sources.length; j++) xorInto(out, sources[j]!, len);
        return;
      }
      const key = `${chosen.join(',')}/${erased.join(',')}`;
      if (key !== cachedKey) {
        cachedRows = decodeRows(encodeMatrix, d, chosen, erased);
        cachedKey = key;
      }
      engine.multiply(cachedRows, d, sources, outputs, len);
    },
  };
}

/**
 * The decode rows for `erased`, given the d units `chosen` (Hadoop's
 * `RSRawDecoder.generateDecodeMatrix`): invert the chosen rows of the encode matrix; a lost data
 * unit e is row e of the inverse, a lost parity unit q is its encode row times the inverse.
 */
function decodeRows(
  encodeMatrix: Uint8Array,
  d: number,
  chosen: readonly number[],
  erased: readonly number[],
): Uint8Array {
  const sub = new Uint8Array(d * d);
  chosen.forEach((unit, row) => sub.set(encodeMatrix.subarray(unit * d, unit * d + d), row * d));
  const inverse = gfInvertMatrix(sub, d);
  if (inverse === undefined) {
    // Any d rows of a Cauchy-extended identity are independent; this is a broken invariant.
    throw new Error(`erasure decode: the rows ${chosen.join(',')} are singular`);
  }
  const rows = new Uint8Array(erased.length * d);
  erased.forEach((e, r) => {
    if (e < d) {
      rows.set(inverse.subarray(e * d, e * d + d), r * d);
      return;
    }
    for (let i = 0; i < d; i++) {
      let acc = 0;
      for (let j = 0; j < d; j++) acc ^= gfMul(inverse[j * d + i]!, encodeMatrix[e * d + j]!);
      rows[r * d + i] = acc;
    }
  });
  return rows;
}

function checkCells(
  s: ErasureCoderSchema,
  inputs: readonly Uint8Array[],
  inputCount: number,
  outputs: readonly Uint8Array[],
  outputCount: number,
): number {
  const name = `${s.codec}-${s.data}-${s.parity}`;
  if (inputs.length !== inputCount || outputs.length !== outputCount) {
    throw new OzoneInvalidArgumentError(
      `${name} encode: expected ${inputCount} data and ${outputCount} parity cells, got ${inputs.length} and ${outputs.length}`,
    );
  }
  return checkSameLength(name, [...inputs, ...outputs]);
}

function checkSameLength(name: string, cells: readonly Uint8Array[]): number {
  const len = cells[0]!.length;
  for (const cell of cells) {
    if (!(cell instanceof Uint8Array) || cell.length !== len) {
      throw new OzoneInvalidArgumentError(`${name}: every cell must be a Uint8Array of ${len} bytes`);
    }
  }
  return len;
}

function checkDecodeArguments(
  s: ErasureCoderSchema,
  inputs: readonly (Uint8Array | null | undefined)[],
  erased: readonly number[],
  outputs: readonly Uint8Array[],
): { valid: number[]; len: number } {
  const name = `${s.codec}-${s.data}-${s.parity} decode`;
  const all = s.data + s.parity;
  if (inputs.length !== all) {
    throw new OzoneInvalidArgumentError(
      `${name}: expected ${all} inputs (null for absent), got ${inputs.length}`,
    );
  }
  if (erased.length !== outputs.length) {
    throw new OzoneInvalidArgumentError(
      `${name}: ${erased.length} erased units but ${outputs.length} outputs`,
    );
  }
  const seen = new Set<number>();
  for (const e of erased) {
    if (!Number.isInteger(e) || e < 0 || e >= all || seen.has(e)) {
      throw new OzoneInvalidArgumentError(`${name}: erased units must be distinct indexes in 0..${all - 1}`);
    }
    if (inputs[e] != null) {
      throw new OzoneInvalidArgumentError(`${name}: unit ${e} is both erased and given as an input`);
    }
    seen.add(e);
  }
  if (erased.length > s.parity) {
    throw new ErasureUnrecoverableError(name, s.data, all - erased.length);
  }
  const valid: number[] = [];
  inputs.forEach((input, i) => {
    if (input != null) valid.push(i);
  });
  if (valid.length < s.data) {
    throw new ErasureUnrecoverableError(name, s.data, valid.length);
  }
  const len = checkSameLength(name, [...valid.map((i) => inputs[i]!), ...outputs]);
  return { valid, len };
}
