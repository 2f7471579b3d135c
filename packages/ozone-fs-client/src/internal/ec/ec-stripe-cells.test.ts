import { stripeCells } from './ec-stripe-cells.js';
import { parseEcReplicationConfig } from './ec-stripe-layout.js';
import { createRawErasureEncoder } from './raw-erasure-coder.js';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const counter = (n: number): Buffer => Buffer.from(Array.from({ length: n }, (_, t) => t % 256));

describe('the cells of a stripe', () => {
  const rs32x16 = parseEcReplicationConfig('rs-3-2-16');
  const encoder = createRawErasureEncoder(rs32x16, { engine: 'typescript' });

  it('a full stripe: d cells of c bytes and the published parity', () => {
    const cells = stripeCells(rs32x16, encoder, counter(48), []);
    expect(cells.map(hex)).toEqual([
      '000102030405060708090a0b0c0d0e0f',
      '101112131415161718191a1b1c1d1e1f',
      '202122232425262728292a2b2c2d2e2f',
      '2853dea5d9a22f54d7ac215a265dd0ab',
      '59c370ea0b9122b8fd67d44eaf35861c',
    ]);
  });

  it('one byte: one data byte, two empty data cells, parity of one byte over zero padding', () => {
    const cells = stripeCells(rs32x16, encoder, Buffer.from([0x01]), []);
    expect(cells.map((c) => c.length)).toEqual([1, 0, 0, 1, 1]);
    const parity = [new Uint8Array(1), new Uint8Array(1)];
    encoder.encode([Uint8Array.of(1), new Uint8Array(1), new Uint8Array(1)], parity);
    expect(cells.slice(3).map(hex)).toEqual(parity.map(hex));
  });

  it('a short last stripe: a short data cell, parity as long as the first cell', () => {
    const stripe = counter(20);
    const cells = stripeCells(rs32x16, encoder, stripe, []);
    expect(cells.map((c) => c.length)).toEqual([16, 4, 0, 16, 16]);
    const padded = Buffer.alloc(16);
    stripe.copy(padded, 0, 16);
    const parity = [new Uint8Array(16), new Uint8Array(16)];
    encoder.encode([stripe.subarray(0, 16), padded, new Uint8Array(16)], parity);
    expect(cells.slice(3).map(hex)).toEqual(parity.map(hex));
    // The data cells are the stripe's own bytes; padding never reaches them.
    expect(cells[1]!.buffer).toBe(stripe.buffer);
  });

  it('reuses parity buffers long enough and replaces shorter ones', () => {
    const scratch: Uint8Array[] = [new Uint8Array(4), new Uint8Array(16)];
    const kept = scratch[1];
    const cells = stripeCells(rs32x16, encoder, counter(48), scratch);
    expect(scratch[1]).toBe(kept);
    expect(scratch[0]!.length).toBe(16);
    expect(cells[3]!.buffer).toBe(scratch[0]!.buffer);
  });

  it('rs-3-2 with one-byte cells gives the published 8c 53', () => {
    const config = parseEcReplicationConfig('rs-3-2-1');
    expect(stripeCells(config, createRawErasureEncoder(config), counter(3), []).map(hex)).toEqual([
      '00',
      '01',
      '02',
      '8c',
      '53',
    ]);
  });
});
