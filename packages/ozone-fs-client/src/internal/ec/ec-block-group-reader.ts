// Reads one block group of an erasure-coded key. Healthy: each cell comes from the internal block
// of its replica index, read by an ordinary replica stream (GetBlock, ReadChunk or ReadBlock,
// checksums, failover to a spare node holding the same index). Degraded: a data replica that the
// pipeline does not list, or whose reads fail, is rebuilt from d surviving units of each stripe
// that needs it. Ozone splits this over ECBlockInputStreamProxy, ECBlockInputStream and
// ECBlockReconstructedStripeInputStream; the rules of which units to read are theirs.
import {
  ErasureUnrecoverableError,
  OzoneClosedError,
  OzoneError,
  OzoneInvalidArgumentError,
  OzoneProtocolError,
} from '../../ozone-errors.js';
import type { DatanodeAddress } from '../pipeline.js';
import { createRawErasureDecoder, type RawErasureDecoder } from './raw-erasure-coder.js';
import {
  internalBlockLength,
  type EcBlockGroupLayout,
  type EcReplicationConfig,
} from './ec-stripe-layout.js';

/** The nodes a group's pipeline lists for replica `index`, in pipeline order. */
export function replicaNodes(
  layout: EcBlockGroupLayout,
  datanodes: readonly DatanodeAddress[],
  index: number,
): DatanodeAddress[] {
  return datanodes.filter((_, i) => (layout.replicaIndexes[i] ?? 0) === index);
}

/** What the reader reads an internal block with: a key stream over that one block. */
export interface ReplicaReader {
  read(position: number, target: Uint8Array, offset: number, length: number): Promise<number>;
  readonly cachedBytes: number;
  unbuffer(): void;
  close(): void;
}

/** One internal block of the group, for the stream that reads it. */
export interface InternalBlock {
  replicaIndex: number;
  lengthBytes: number;
  /** The nodes holding this index, the first the one to try first (the rest are spares). */
  datanodes: DatanodeAddress[];
}

export interface EcBlockGroupReaderOptions {
  /** Names the group in errors: `<containerId>/<localId>`. */
  name: string;
  layout: EcBlockGroupLayout;
  datanodes: readonly DatanodeAddress[];
  /** Key bytes in the group (parity not counted). */
  lengthBytes: number;
  openReplica: (block: InternalBlock) => ReplicaReader;
  /** A stripe's lost cells were rebuilt: `bytes` of them went to a reader. */
  onRebuilt: (bytes: number) => void;
}

/** The part of one data cell a read wants. */
interface CellRead {
  /** Replica index 1..d. */
  index: number;
  offsetInCell: number;
  length: number;
  /** Where in the caller's target the bytes go. */
  targetOffset: number;
}

export class EcBlockGroupReader {
  readonly #config: EcReplicationConfig;
  readonly #options: EcBlockGroupReaderOptions;
  /** The nodes of each replica index, first listed first. */
  readonly #nodes = new Map<number, DatanodeAddress[]>();
  readonly #replicas = new Map<number, ReplicaReader>();
  /** Readers of lost replicas, closed with the group. */
  readonly #retired: ReplicaReader[] = [];
  /** Replica indexes lost for this stream's life: absent from the pipeline, or failed a read. */
  readonly #lost = new Set<number>();
  /** Why each lost index was lost, for the error when too many are. */
  readonly #why: Error[] = [];
  #decoder: RawErasureDecoder | undefined;
  #closed = false;

  constructor(options: EcBlockGroupReaderOptions) {
    this.#options = options;
    this.#config = options.layout.config;
    for (let index = 1; index <= this.#width; index++) {
      const nodes = replicaNodes(options.layout, options.datanodes, index);
      if (nodes.length > 0) this.#nodes.set(index, nodes);
    }
    // Ozone's proxy goes to the reconstructing reader at once when the pipeline lacks a data
    // index the group has data on; here that index is simply lost from the start.
    for (let index = 1; index <= this.#width; index++) {
      if (!this.#nodes.has(index) && this.#blockLength(index) > 0) {
        this.#lost.add(index);
        this.#why.push(
          new OzoneProtocolError(
            'OM',
            `the pipeline of block group ${options.name} lists no replica ${index}`,
          ),
        );
      }
    }
  }

  get #width(): number {
    return this.#config.data + this.#config.parity;
  }

  get cachedBytes(): number {
    let n = 0;
    for (const r of this.#replicas.values()) n += r.cachedBytes;
    return n;
  }

  /** Replica indexes this reader has given up on. */
  get lostReplicas(): readonly number[] {
    return [...this.#lost].sort((a, b) => a - b);
  }

  unbuffer(): void {
    for (const r of this.#replicas.values()) r.unbuffer();
  }

  close(): void {
    this.#closed = true;
    for (const r of this.#replicas.values()) r.close();
    for (const r of this.#retired) r.close();
    this.#replicas.clear();
    this.#retired.length = 0;
  }

  /** Reads group bytes [start, start + length) into `target[targetOffset…]`. */
  async read(start: number, length: number, target: Uint8Array, targetOffset: number): Promise<void> {
    const stripeBytes = this.#config.ecChunkSize * this.#config.data;
    const end = start + length;
    const work: Promise<void>[] = [];
    for (let o = start; o < end;) {
      const stripe = Math.floor(o / stripeBytes);
      const to = Math.min((stripe + 1) * stripeBytes, end);
      work.push(this.#readStripe(stripe, this.#cells(stripe, o, to, targetOffset + (o - start)), target));
      o = to;
    }
    await Promise.all(work);
  }

  /** The data cells of `stripe` that group bytes [from, to) cover. */
  #cells(stripe: number, from: number, to: number, targetOffset: number): CellRead[] {
    const c = this.#config.ecChunkSize;
    const stripeStart = stripe * c * this.#config.data;
    const cells: CellRead[] = [];
    for (let o = from; o < to;) {
      const inStripe = o - stripeStart;
      const cell = Math.floor(inStripe / c);
      const offsetInCell = inStripe % c;
      const length = Math.min(c - offsetInCell, to - o);
      cells.push({ index: cell + 1, offsetInCell, length, targetOffset: targetOffset + (o - from) });
      o += length;
    }
    return cells;
  }

  /** Cells whose replica is healthy come from it; the rest (and any that fail now) are rebuilt. */
  async #readStripe(stripe: number, cells: CellRead[], target: Uint8Array): Promise<void> {
    const c = this.#config.ecChunkSize;
    const lost = cells.filter((cell) => this.#lost.has(cell.index));
    const direct = cells.filter((cell) => !this.#lost.has(cell.index));
    const outcomes = await Promise.allSettled(
      direct.map((cell) =>
        this.#readUnit(cell.index, stripe * c + cell.offsetInCell, target, cell.targetOffset, cell.length),
      ),
    );
    outcomes.forEach((outcome, i) => {
      if (outcome.status === 'fulfilled') return;
      this.#lose(direct[i]!.index, outcome.reason);
      lost.push(direct[i]!);
    });
    if (lost.length > 0) await this.#rebuild(stripe, lost, target);
  }

  /** Marks `index` lost after `err`; an error that is not about the replica is thrown on. */
  #lose(index: number, err: unknown): void {
    if (
      !(err instanceof OzoneError) ||
      err instanceof OzoneClosedError ||
      err instanceof OzoneInvalidArgumentError
    )
      throw err;
    // A reader that failed is not used again (Ozone's proxy closes the failed block stream); it
    // is closed with the group, as other stripes may still be reading through it.
    const reader = this.#replicas.get(index);
    if (reader) this.#retired.push(reader);
    this.#replicas.delete(index);
    if (!this.#lost.has(index)) {
      this.#lost.add(index);
      this.#why.push(err);
    }
  }

  /**
   * Rebuilds the lost cells of one stripe, only over the span of cell offsets they need (each
   * byte of a unit depends only on the same byte of the others): d units read, first the
   * surviving data cells (and those past the stripe's data, which are zeros without a read), then
   * parity; a unit that fails is lost and the choice made again, until too few remain.
   */
  async #rebuild(stripe: number, lost: CellRead[], target: Uint8Array): Promise<void> {
    const { data: d, parity: p, ecChunkSize: c } = this.#config;
    const stripeData = Math.min(c * d, this.#options.lengthBytes - stripe * c * d);
    const lo = Math.min(...lost.map((cell) => cell.offsetInCell));
    const hi = Math.max(...lost.map((cell) => cell.offsetInCell + cell.length));
    const span = hi - lo;
    // Bytes of unit u (0-based) in this stripe: a data cell's share of the stripe's data; parity
    // cells are as long as the first data cell.
    const unitBytes = (u: number): number =>
      u < d ? Math.max(0, Math.min(c, stripeData - u * c)) : Math.min(c, stripeData);
    const units = new Map<number, Uint8Array>();
    // Bounded: every pass that does not return or throw has lost one more index (a chosen unit is
    // never a lost one), and after p + 1 losses too few units remain.
    for (;;) {
      if (this.#closed) throw new OzoneClosedError('the key input stream');
      const chosen: number[] = [];
      for (let u = 0; u < d; u++) {
        // A unit with no bytes in the span is zeros there whether or not its replica lives.
        if (unitBytes(u) <= lo || !this.#lost.has(u + 1)) chosen.push(u);
      }
      for (let u = d; u < d + p && chosen.length < d; u++) if (!this.#lost.has(u + 1)) chosen.push(u);
      if (chosen.length < d) {
        throw new ErasureUnrecoverableError(
          `stripe ${stripe} of block group ${this.#options.name} (replicas ${this.lostReplicas.join(', ')} lost)`,
          d,
          chosen.length,
          { retriable: true, cause: this.#why[this.#why.length - 1] },
        );
      }
      const toRead = chosen.filter((u) => !units.has(u));
      const reads = toRead.map(async (u) => {
        const unit = new Uint8Array(span);
        const have = Math.min(span, Math.max(0, unitBytes(u) - lo));
        if (have > 0) await this.#readUnit(u + 1, stripe * c + lo, unit, 0, have);
        return { u, unit };
      });
      const outcomes = await Promise.allSettled(reads);
      let failed = false;
      outcomes.forEach((outcome, i) => {
        if (outcome.status === 'fulfilled') units.set(outcome.value.u, outcome.value.unit);
        else {
          failed = true;
          this.#lose(toRead[i]! + 1, outcome.reason);
        }
      });
      // Units read before a failure are kept for the next choice.
      if (failed) continue;
      this.#decode(chosen, units, lost, lo, span, target);
      return;
    }
  }

  #decode(
    chosen: readonly number[],
    units: ReadonlyMap<number, Uint8Array>,
    lost: readonly CellRead[],
    lo: number,
    span: number,
    target: Uint8Array,
  ): void {
    const inputs: Array<Uint8Array | null> = new Array<Uint8Array | null>(this.#width).fill(null);
    for (const u of chosen) inputs[u] = units.get(u)!;
    const erased = [...new Set(lost.map((cell) => cell.index - 1))].sort((a, b) => a - b);
    const outputs = erased.map(() => new Uint8Array(span));
    this.#decoder ??= createRawErasureDecoder(this.#config);
    this.#decoder.decode(inputs, erased, outputs);
    let bytes = 0;
    for (const cell of lost) {
      const out = outputs[erased.indexOf(cell.index - 1)]!;
      target.set(
        out.subarray(cell.offsetInCell - lo, cell.offsetInCell - lo + cell.length),
        cell.targetOffset,
      );
      bytes += cell.length;
    }
    this.#options.onRebuilt(bytes);
  }

  /** Reads `length` bytes of replica `index` at `position`; a short read is the replica's failure. */
  async #readUnit(
    index: number,
    position: number,
    target: Uint8Array,
    targetOffset: number,
    length: number,
  ): Promise<void> {
    const reader = this.#replica(index);
    const n = await reader.read(position, target, targetOffset, length);
    if (n !== length) {
      throw new OzoneProtocolError(
        this.#nodes.get(index)?.[0]?.address ?? 'datanode',
        `replica ${index} of block group ${this.#options.name} gave ${n} of ${length} bytes at ${position}`,
      );
    }
  }

  #replica(index: number): ReplicaReader {
    if (this.#closed) throw new OzoneClosedError('the key input stream');
    let reader = this.#replicas.get(index);
    if (!reader) {
      reader = this.#options.openReplica({
        replicaIndex: index,
        lengthBytes: this.#blockLength(index),
        datanodes: [...(this.#nodes.get(index) ?? [])],
      });
      this.#replicas.set(index, reader);
    }
    return reader;
  }

  #blockLength(index: number): number {
    return internalBlockLength(this.#config, this.#options.lengthBytes, index);
  }
}
