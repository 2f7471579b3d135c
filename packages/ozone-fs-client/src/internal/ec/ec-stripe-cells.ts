// The d + p cells one stripe of an erasure-coded key is written as (Ozone's
// ECKeyOutputStream#generateParityCells): data cells cut from the stripe's bytes, parity cells as
// long as the first data cell, shorter data cells zero-padded for the encoder only.
import type { EcReplicationConfig } from './ec-stripe-layout.js';
import type { RawErasureEncoder } from './raw-erasure-coder.js';

/**
 * The cells of one stripe, in replica-index order (data 1..d, then parity d+1..d+p). A full stripe
 * has d cells of c bytes; a short last stripe has a short data cell and then empty ones, which are
 * not written (their replicas still get a PutBlock). Parity cells are always as long as the first
 * data cell, min(c, stripe length), computed over the data cells zero-padded to that length.
 *
 * @param stripe the stripe's key bytes, 1 to d × c of them
 * @param scratch the parity buffers to reuse (grown and replaced here when too short)
 * @returns the cells; the data cells are views of `stripe`, the parity cells of `scratch`
 */
export function stripeCells(
  config: EcReplicationConfig,
  encoder: RawErasureEncoder,
  stripe: Uint8Array,
  scratch: Uint8Array[],
): Uint8Array[] {
  const c = config.ecChunkSize;
  const cellLength = Math.min(c, stripe.length);
  const data: Uint8Array[] = [];
  const padded: Uint8Array[] = [];
  for (let i = 0; i < config.data; i++) {
    const cell = stripe.subarray(Math.min(i * c, stripe.length), Math.min((i + 1) * c, stripe.length));
    data.push(cell);
    if (cell.length === cellLength) padded.push(cell);
    else {
      const zeros = new Uint8Array(cellLength);
      zeros.set(cell);
      padded.push(zeros);
    }
  }
  const parity: Uint8Array[] = [];
  for (let r = 0; r < config.parity; r++) {
    let buffer = scratch[r];
    if (buffer === undefined || buffer.length < cellLength) {
      buffer = Buffer.allocUnsafe(cellLength);
      scratch[r] = buffer;
    }
    parity.push(buffer.subarray(0, cellLength));
  }
  encoder.encode(padded, parity);
  return [...data, ...parity];
}
