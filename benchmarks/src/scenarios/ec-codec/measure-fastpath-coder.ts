import { createRawErasureDecoder, createRawErasureEncoder } from '@fastpath/ozone-fs-client';

/** One case of the ec-codec scenario, as every column codes it. */
export interface CodecCase {
  readonly data: number;
  readonly parity: number;
  readonly cellBytes: number;
  /** 0: encode; else decode with data cells 0..erasures-1 lost. */
  readonly erasures: number;
}

/**
 * A fastpath coder set up for one case, with the stripe the Java and C columns code (data byte
 * (j, t) = 131·j + 7·t + ⌊t/256⌋). `step()` codes one whole stripe.
 */
export function prepareFastpathCase(c: CodecCase, engine: 'typescript' | 'isa-l'): { step(): void } {
  const schema = { codec: 'rs' as const, data: c.data, parity: c.parity };
  const units = Array.from({ length: c.data + c.parity }, () => new Uint8Array(c.cellBytes));
  for (let j = 0; j < c.data; j++) {
    const cell = units[j]!;
    for (let t = 0; t < c.cellBytes; t++) cell[t] = (131 * j + 7 * t + (t >>> 8)) & 0xff;
  }
  const encoder = createRawErasureEncoder(schema, { engine });
  const data = units.slice(0, c.data);
  const parity = units.slice(c.data);
  encoder.encode(data, parity);
  if (c.erasures === 0) return { step: () => encoder.encode(data, parity) };
  const decoder = createRawErasureDecoder(schema, { engine });
  const inputs = units.map((u, i) => (i < c.erasures ? null : u));
  const erased = Array.from({ length: c.erasures }, (_, i) => i);
  const outputs = erased.map(() => new Uint8Array(c.cellBytes));
  decoder.decode(inputs, erased, outputs);
  // A benchmark of wrong bytes is worth nothing: the rebuilt cells must be the lost ones.
  outputs.forEach((out, i) => {
    if (!Buffer.from(out.buffer, out.byteOffset, out.length).equals(units[i]!)) {
      throw new Error(`${engine} rs-${c.data}-${c.parity}: decode did not rebuild cell ${i}`);
    }
  });
  return { step: () => decoder.decode(inputs, erased, outputs) };
}

/** Data MiB of whole stripes per second over one round of `roundMs`. */
export function measureRound(step: () => void, c: CodecCase, roundMs: number): number {
  const start = process.hrtime.bigint();
  const limit = BigInt(roundMs) * 1_000_000n;
  let stripes = 0;
  let elapsed = 0n;
  do {
    step();
    stripes++;
    elapsed = process.hrtime.bigint() - start;
  } while (elapsed < limit);
  return (stripes * c.data * c.cellBytes) / (1 << 20) / (Number(elapsed) / 1e9);
}
