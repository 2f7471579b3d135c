// fastpath's raw erasure coders against hadoop-common's own (RSRawEncoder/RSRawDecoder,
// XORRawEncoder/XORRawDecoder, run in a JVM through the Hadoop fixture): the same parity for
// random data, and the same decoder outputs for every erasure pattern the parity covers. The
// decoder inputs are random rather than a codeword, so the outputs match only if both sides use
// the same units and the same decode rows, not merely if both decode correctly.
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from '@jest/globals';
import {
  createRawErasureDecoder,
  createRawErasureEncoder,
  type ErasureCoderSchema,
} from '@fastpath/ozone-fs-client';
import {
  prepareHadoop,
  runHadoopErasureCoder,
  type HadoopErasureCoderAnswer,
  type HadoopErasureCoderRequest,
  type HadoopInstallation,
} from '@fastpath/hadoop-fixture';

const b64 = (b: Uint8Array): string => Buffer.from(b).toString('base64');

// The TypeScript kernel always; ISA-L too when its optional addon is built (`auto` picks it).
const ENGINES = [
  ...new Set(['typescript', createRawErasureEncoder({ codec: 'rs', data: 1, parity: 1 }).engine]),
] as ('typescript' | 'isa-l')[];

/** Every subset of 0..n-1 with 1..max members, ascending (data units before parity, as Hadoop needs). */
function erasurePatterns(n: number, max: number): number[][] {
  const out: number[][] = [];
  const walk = (start: number, picked: number[]): void => {
    if (picked.length > 0) out.push([...picked]);
    if (picked.length === max) return;
    for (let i = start; i < n; i++) walk(i + 1, [...picked, i]);
  };
  walk(0, []);
  return out;
}

/** What Ozone's parser accepts that the coders can run, bounded to keep the JVM run short. */
const SCHEMAS: ErasureCoderSchema[] = [
  ...Array.from({ length: 10 }, (_, i) => i + 1).flatMap((data) =>
    [1, 2, 3, 4].map((parity) => ({ codec: 'rs' as const, data, parity })),
  ),
  { codec: 'rs', data: 12, parity: 4 },
  ...[1, 2, 3, 6].map((data) => ({ codec: 'xor' as const, data, parity: 1 })),
];

interface Case {
  readonly request: HadoopErasureCoderRequest;
  readonly expected: (answer: HadoopErasureCoderAnswer) => void;
}

function encodeCase(schema: ErasureCoderSchema, cellBytes: number): Case {
  const data = Array.from({ length: schema.data }, () => new Uint8Array(randomBytes(cellBytes)));
  const parities = ENGINES.map((engine) => {
    const parity = Array.from({ length: schema.parity }, () => new Uint8Array(cellBytes));
    createRawErasureEncoder(schema, { engine }).encode(data, parity);
    return parity.map(b64);
  });
  return {
    request: { op: 'encode', ...schema, cells: data.map(b64) },
    expected: (answer) => {
      for (const parity of parities) expect(answer).toMatchObject({ ok: true, parity });
    },
  };
}

function decodeCases(schema: ErasureCoderSchema, cellBytes: number): Case[] {
  const all = schema.data + schema.parity;
  const decoders = ENGINES.map((engine) => createRawErasureDecoder(schema, { engine }));
  return erasurePatterns(all, schema.parity).map((erased) => {
    const inputs = Array.from({ length: all }, (_, i) =>
      erased.includes(i) ? null : new Uint8Array(randomBytes(cellBytes)),
    );
    const results = decoders.map((decoder) => {
      const outputs = erased.map(() => new Uint8Array(cellBytes));
      decoder.decode(inputs, erased, outputs);
      return outputs.map(b64);
    });
    return {
      request: { op: 'decode', ...schema, inputs: inputs.map((c) => (c === null ? null : b64(c))), erased },
      expected: (answer) => {
        for (const outputs of results) expect(answer).toMatchObject({ ok: true, outputs });
      },
    };
  });
}

let hadoop: HadoopInstallation;

beforeAll(async () => {
  hadoop = await prepareHadoop();
}, 600_000);

describe("raw erasure coders, byte for byte against hadoop-common's", () => {
  it('encode random stripes of every schema, odd and 1 MiB cells', async () => {
    const cases = [
      ...SCHEMAS.flatMap((s) => [encodeCase(s, 1), encodeCase(s, 1 + Math.floor(Math.random() * 999))]),
      encodeCase({ codec: 'rs', data: 3, parity: 2 }, 1 << 20),
      encodeCase({ codec: 'rs', data: 6, parity: 3 }, 1 << 20),
    ];
    const answers = await runHadoopErasureCoder(
      hadoop,
      cases.map((c) => c.request),
      { heapMb: 1024 },
    );
    cases.forEach((c, i) => c.expected(answers[i]!));
  }, 300_000);

  it('decode every erasure pattern up to the parity count of every schema', async () => {
    const cases = SCHEMAS.flatMap((s) => decodeCases(s, 1 + Math.floor(Math.random() * 64)));
    expect(cases.length).toBeGreaterThan(5000);
    const answers = await runHadoopErasureCoder(
      hadoop,
      cases.map((c) => c.request),
    );
    cases.forEach((c, i) => c.expected(answers[i]!));
  }, 300_000);

  it("say whether Hadoop's native (ISA-L) coder loads; from Maven Central it cannot", async () => {
    const data = [1, 2, 3].map((j) => Uint8Array.from({ length: 8 }, (_, t) => j * 8 + t));
    const cells = data.map(b64);
    const [status, nativeEncode] = await runHadoopErasureCoder(hadoop, [
      { op: 'native' },
      { op: 'encode', codec: 'rs', data: 3, parity: 2, coder: 'native', cells },
    ]);
    // The jars carry no libhadoop.so: Hadoop's ErasureCodeNative reports why, and its native
    // coder refuses to construct. With a libhadoop built with ISA-L on java.library.path, the
    // native coder would answer, and its parity would be compared as the java coder's is.
    if (status?.ok === true && status.loaded === true) {
      const parity = [new Uint8Array(8), new Uint8Array(8)];
      createRawErasureEncoder({ codec: 'rs', data: 3, parity: 2 }).encode(data, parity);
      expect(nativeEncode).toMatchObject({ ok: true, parity: parity.map(b64) });
    } else {
      expect(status).toMatchObject({ ok: true, loaded: false, reason: expect.stringMatching(/native/) });
      expect(nativeEncode).toMatchObject({ ok: false });
    }
  }, 300_000);
});
