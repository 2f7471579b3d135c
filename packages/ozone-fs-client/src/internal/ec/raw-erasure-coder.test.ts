import { expectError } from '@fastpath/test-support';
import { FastpathError } from '@fastpath/core';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { cauchyEncodeMatrix, gfInv, gfInvertMatrix, gfMul } from './gf256.js';
import { loadIsalEngine, loadIsalEngineFrom } from './isal-gf-engine.js';
import {
  checkErasureCoderSchema,
  createRawErasureDecoder,
  createRawErasureEncoder,
  resolveGfEngine,
  type ErasureCoderEngineName,
  type ErasureCoderSchema,
} from './raw-erasure-coder.js';

// Every engine that can run here: the TypeScript kernel always, ISA-L when its addon is built.
const ENGINES: ErasureCoderEngineName[] = [
  'typescript',
  ...(loadIsalEngine().available ? ['isa-l' as const] : []),
];

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

/** Data cell j of length n holds (j·n + t) mod 256: the published vectors' layout. */
function counterCells(d: number, n: number): Uint8Array[] {
  return Array.from({ length: d }, (_, j) => Uint8Array.from({ length: n }, (_, t) => (j * n + t) & 0xff));
}

function encodeWith(
  engine: ErasureCoderEngineName,
  schema: ErasureCoderSchema,
  data: Uint8Array[],
): Uint8Array[] {
  const parity = Array.from({ length: schema.parity }, () => new Uint8Array(data[0]!.length));
  createRawErasureEncoder(schema, { engine }).encode(data, parity);
  return parity;
}

describe('GF(2^8) as Hadoop defines it', () => {
  it('has the 0x11D field with generator 2', () => {
    expect(gfMul(0x80, 2)).toBe(0x1d);
    expect(gfInv(2)).toBe(0x8e);
    expect(gfInv(3)).toBe(0xf4);
    for (let a = 1; a < 256; a++) expect(gfMul(a, gfInv(a))).toBe(1);
  });

  it('builds the Cauchy parity rows Hadoop and ISA-L build', () => {
    expect(hex(cauchyEncodeMatrix(3, 2).subarray(9))).toBe('f48e0147a77a');
    expect(hex(cauchyEncodeMatrix(6, 3).subarray(36))).toBe('7aba47a78ef4' + 'ba7aa747f48e' + 'ad9ddd983daa');
  });

  it('inverts the rows {1, 3, 4} of rs-3-2 to the published inverse', () => {
    const m = cauchyEncodeMatrix(3, 2);
    const sub = Uint8Array.from([...m.subarray(3, 6), ...m.subarray(9, 12), ...m.subarray(12, 15)]);
    expect(hex(gfInvertMatrix(sub, 3)!)).toBe('01bbbd' + '010000' + '7a686b');
  });

  it('reports a singular matrix', () => {
    expect(gfInvertMatrix(Uint8Array.from([1, 2, 1, 2]), 2)).toBeUndefined();
  });
});

describe('schema', () => {
  it('accepts what Hadoop accepts and refuses the rest with ERR_OZONE_EC_CONFIG', () => {
    expect(checkErasureCoderSchema({ codec: 'rs', data: 10, parity: 4 })).toEqual({
      codec: 'rs',
      data: 10,
      parity: 4,
    });
    expect(checkErasureCoderSchema({ codec: 'rs', data: 250, parity: 5 }).data).toBe(250);
    for (const bad of [
      { codec: 'rs', data: 251, parity: 5 },
      { codec: 'rs', data: 0, parity: 2 },
      { codec: 'rs', data: 3, parity: 1.5 },
      { codec: 'xor', data: 2, parity: 2 },
      { codec: 'lrc', data: 3, parity: 2 },
    ]) {
      expect(
        expectError(() => checkErasureCoderSchema(bad as ErasureCoderSchema), FastpathError),
      ).toMatchObject({
        code: 'ERR_OZONE_EC_CONFIG',
      });
    }
  });
});

describe.each(ENGINES)('the %s engine', (engine) => {
  const encode = (schema: ErasureCoderSchema, data: Uint8Array[]): Uint8Array[] =>
    encodeWith(engine, schema, data);

  describe('raw erasure encoder', () => {
    it('gives the published rs-3-2, rs-6-3 and xor-2-1 parity', () => {
      expect(encode({ codec: 'rs', data: 3, parity: 2 }, counterCells(3, 16)).map(hex)).toEqual([
        '2853dea5d9a22f54d7ac215a265dd0ab',
        '59c370ea0b9122b8fd67d44eaf35861c',
      ]);
      expect(encode({ codec: 'rs', data: 6, parity: 3 }, counterCells(6, 8)).map(hex)).toEqual([
        '461cf2a8336987dd',
        'acf61842d9836d37',
        '22c0fb198d6f54b6',
      ]);
      expect(encode({ codec: 'rs', data: 3, parity: 2 }, counterCells(3, 1)).map(hex)).toEqual(['8c', '53']);
      expect(encode({ codec: 'xor', data: 2, parity: 1 }, counterCells(2, 8)).map(hex)).toEqual([
        '0808080808080808',
      ]);
    });

    it('gives the published hashes of the 1 MiB vectors', () => {
      const n = 1 << 20;
      const cells = (d: number): Uint8Array[] =>
        Array.from({ length: d }, (_, j) => {
          const cell = new Uint8Array(n);
          for (let t = 0; t < n; t++) cell[t] = (131 * j + 7 * t + (t >>> 8)) & 0xff;
          return cell;
        });
      const sha = (parts: Uint8Array[]): string => {
        const h = createHash('sha256');
        for (const p of parts) h.update(p);
        return h.digest('hex');
      };
      expect(sha(encode({ codec: 'rs', data: 3, parity: 2 }, cells(3)))).toBe(
        '0b308f6d88c858e6444626273c3ce8997209f2f7af4f3e4823877641b8885977',
      );
      expect(sha(encode({ codec: 'rs', data: 6, parity: 3 }, cells(6)))).toBe(
        'cc2dff15f0772b30975621b270f98493181507678364e9f397839853a0297907',
      );
    });

    it('encodes cells that are views into a larger buffer at odd offsets', () => {
      const backing = new Uint8Array(100);
      const data = counterCells(3, 16).map((cell, j) => {
        const view = backing.subarray(1 + j * 17, 17 + j * 17);
        view.set(cell);
        return view;
      });
      expect(encode({ codec: 'rs', data: 3, parity: 2 }, data).map(hex)).toEqual(
        encode({ codec: 'rs', data: 3, parity: 2 }, counterCells(3, 16)).map(hex),
      );
    });
  });

  describe('raw erasure decoder', () => {
    it('rebuilds d1 and d3 of rs-3-2 from d2, p1 and p2', () => {
      const schema = { codec: 'rs', data: 3, parity: 2 } as const;
      const data = counterCells(3, 16);
      const [p1, p2] = encode(schema, data);
      const out = [new Uint8Array(16), new Uint8Array(16)];
      createRawErasureDecoder(schema, { engine }).decode([null, data[1], null, p1, p2], [0, 2], out);
      expect(out.map(hex)).toEqual([hex(data[0]!), hex(data[2]!)]);
    });

    it('uses the first d present units, as Hadoop does, when more are given', () => {
      const schema = { codec: 'rs', data: 3, parity: 2 } as const;
      const data = counterCells(3, 16);
      const [p1] = encode(schema, data);
      const garbage = new Uint8Array(16).fill(0x5a);
      const out = [new Uint8Array(16)];
      // p2 is the fourth present unit: a decoder that used it would not give d1 back.
      createRawErasureDecoder(schema, { engine }).decode([null, data[1], data[2], p1, garbage], [0], out);
      expect(hex(out[0]!)).toBe(hex(data[0]!));
    });

    it('refuses more erasures than parity and too few inputs with ERR_OZONE_EC_UNRECOVERABLE', () => {
      const decoder = createRawErasureDecoder({ codec: 'rs', data: 3, parity: 2 }, { engine });
      const c = new Uint8Array(4);
      const outs = (k: number): Uint8Array[] => Array.from({ length: k }, () => new Uint8Array(4));
      expect(
        expectError(() => decoder.decode([null, null, null, c, c], [0, 1, 2], outs(3)), FastpathError),
      ).toMatchObject({
        code: 'ERR_OZONE_EC_UNRECOVERABLE',
        neededUnits: 3,
        availableUnits: 2,
      });
      expect(
        expectError(() => decoder.decode([null, c, null, c, null], [0], outs(1)), FastpathError),
      ).toMatchObject({
        code: 'ERR_OZONE_EC_UNRECOVERABLE',
        availableUnits: 2,
      });
    });

    it('refuses misshapen arguments with ERR_OZONE_INVALID_ARGUMENT before writing', () => {
      const decoder = createRawErasureDecoder({ codec: 'rs', data: 3, parity: 2 }, { engine });
      const c = new Uint8Array(4);
      const out = new Uint8Array(4).fill(7);
      const bad = [
        () => decoder.decode([c, c, c, c], [4], [out]),
        () => decoder.decode([null, c, c, c, c], [0, 0], [out, out]),
        () => decoder.decode([null, c, c, c, c], [5], [out]),
        () => decoder.decode([c, c, c, c, c], [0], [out]),
        () => decoder.decode([null, c, c, c, new Uint8Array(5)], [0], [out]),
        () => decoder.decode([null, c, c, c, c], [0], []),
        () => createRawErasureEncoder({ codec: 'rs', data: 3, parity: 2 }, { engine }).encode([c, c], [c, c]),
      ];
      for (const call of bad)
        expect(expectError(call, FastpathError)).toMatchObject({ code: 'ERR_OZONE_INVALID_ARGUMENT' });
      expect([...out]).toEqual([7, 7, 7, 7]);
    });
  });

  describe('property: decode(encode(x)) = x for any erasure the parity covers', () => {
    const schemaArb = fc.oneof(
      fc.record({
        codec: fc.constant('rs' as const),
        data: fc.integer({ min: 1, max: 12 }),
        parity: fc.integer({ min: 1, max: 5 }),
      }),
      fc.record({
        codec: fc.constant('xor' as const),
        data: fc.integer({ min: 1, max: 12 }),
        parity: fc.constant(1),
      }),
    );
    const caseArb = schemaArb.chain((schema) => {
      const all = schema.data + schema.parity;
      return fc.record({
        schema: fc.constant(schema),
        cellBytes: fc.integer({ min: 1, max: 300 }),
        seed: fc.integer(),
        erased: fc.shuffledSubarray(
          Array.from({ length: all }, (_, i) => i),
          { minLength: 0, maxLength: schema.parity },
        ),
        dropExtra: fc.boolean(),
      });
    });

    it('holds', () => {
      fc.assert(
        fc.property(caseArb, ({ schema, cellBytes, seed, erased, dropExtra }) => {
          let x = seed | 0 || 1;
          const next = (): number => {
            x ^= x << 13;
            x ^= x >>> 17;
            x ^= x << 5;
            return x & 0xff;
          };
          const data = Array.from({ length: schema.data }, () =>
            Uint8Array.from({ length: cellBytes }, next),
          );
          const units = [...data, ...encode(schema, data)];
          const inputs: (Uint8Array | null)[] = units.map((u, i) => (erased.includes(i) ? null : u));
          // Also leave out an unerased unit when more than d remain: decoders must cope with gaps.
          if (dropExtra) {
            const spare = inputs.findIndex((u, i) => u !== null && !erased.includes(i));
            if (inputs.filter((u) => u !== null).length > schema.data && spare >= 0) inputs[spare] = null;
          }
          const outputs = erased.map(() => new Uint8Array(cellBytes));
          createRawErasureDecoder(schema, { engine }).decode(inputs, erased, outputs);
          erased.forEach((e, i) => expect(hex(outputs[i]!)).toBe(hex(units[e]!)));
        }),
        { numRuns: 400 },
      );
    });
  });
});

describe('engine choice', () => {
  it('falls back to TypeScript when the ISA-L addon cannot load, and refuses isa-l by name', () => {
    const missing = loadIsalEngineFrom('/nonexistent/fastpath_isal_ec.node');
    expect(missing.available ? '' : missing.reason).toContain('libisal-dev');
    expect(resolveGfEngine('typescript').name).toBe('typescript');
    expect(expectError(() => resolveGfEngine('simd' as ErasureCoderEngineName), FastpathError)).toMatchObject(
      {
        code: 'ERR_OZONE_EC_CONFIG',
      },
    );
    if (loadIsalEngine().available) {
      expect(resolveGfEngine('auto').name).toBe('isa-l');
    } else {
      expect(resolveGfEngine('auto').name).toBe('typescript');
      expect(expectError(() => resolveGfEngine('isa-l'), FastpathError)).toMatchObject({
        code: 'ERR_OZONE_EC_CONFIG',
      });
    }
  });

  it('gives identical bytes from every engine on random 1 MiB-class stripes', () => {
    const data = Array.from({ length: 6 }, (_, j) =>
      Uint8Array.from({ length: 65_537 }, (_, t) => (t * 97 + j * 13 + (t >> 9)) & 0xff),
    );
    const schema = { codec: 'rs', data: 6, parity: 3 } as const;
    const results = ENGINES.map((engine) => encodeWith(engine, schema, data).map(hex).join());
    expect(new Set(results).size).toBe(1);
  });
});
