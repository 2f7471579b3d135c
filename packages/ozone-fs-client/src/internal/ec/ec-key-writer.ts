// The data path of an erasure-coded key, as Ozone's ECKeyOutputStream writes it: key bytes
// gathered into stripes of d cells, parity by the raw encoder, each stripe written to the d + p
// replicas of the current block group, groups taken from CreateKey's pre-allocation and then
// AllocateBlock, a failed stripe written again into a new group away from what failed, and
// CommitKey with the data length of every group that holds data.
import { ErasureCodedWriteError, type EcReplicaWriteFailure } from '../../ozone-errors.js';
import { allocateBlock, type AllocationTarget } from '../allocate-block.js';
import type { ClientContext } from '../client-context.js';
import { commitKeyRequest, type CommitTarget } from '../commit-key-request.js';
import { ExcludeList } from '../exclude-list.js';
import { toNumber, type hadoop } from '../proto/wire.js';
import {
  EcBlockGroupWriter,
  failureExcludesDatanode,
  pipelineIdOf,
  StripeWriteFailure,
  type CellChecksums,
} from './ec-block-group-writer.js';
import { stripeCells } from './ec-stripe-cells.js';
import type { EcReplicationConfig } from './ec-stripe-layout.js';
import { createRawErasureEncoder, type RawErasureEncoder } from './raw-erasure-coder.js';

/** The open key an EC writer writes: what AllocateBlock and CommitKey name, and CreateKey's groups. */
export interface EcKeySession extends AllocationTarget, CommitTarget {
  /** Groups CreateKey allocated, used in order before AllocateBlock is asked (dropped when their pipeline fails). */
  preallocated: hadoop.ozone.IKeyLocation[];
  /** The size CreateKey was given (0: unknown), for sizing the first stripe buffer. */
  expectedBytes: number;
}

/** How the key's cells are checksummed, and how long its internal blocks may grow. */
export interface EcKeyLayout extends CellChecksums {
  /** `ozone.scm.block.size`: an internal block's most bytes when the OM's location states none (or more). */
  blockSizeBytes: number;
}

/** The smallest first stripe buffer: a small key's bytes without a whole stripe's memory. */
const MIN_STRIPE_BUFFER_BYTES = 64 * 1024;

/**
 * Writes one EC key. `write` gathers bytes into the current stripe and writes each stripe as it
 * fills (resolving once the stripe's PutBlocks are answered); `close` writes the last, short
 * stripe and commits. A stripe that fails in a group excludes that group's pipeline and the
 * datanodes that failed, leaves the group at its last whole stripe, and is written again into
 * the next group, at most `ozone.client.max.ec.stripe.write.retries` times.
 */
export class EcKeyWriter {
  readonly #ctx: ClientContext;
  readonly #session: EcKeySession;
  readonly #layout: EcKeyLayout;
  readonly #config: EcReplicationConfig;
  readonly #encoder: RawErasureEncoder;
  readonly #stripeBytes: number;
  readonly #exclude = new ExcludeList();
  /** Every group written to, in key order; those holding data are committed. */
  readonly #groups: EcBlockGroupWriter[] = [];
  #group: EcBlockGroupWriter | undefined;
  /** The current stripe's bytes: `#filled` of them, in a buffer grown up to one stripe. */
  #stripe: Buffer;
  #filled = 0;
  readonly #parity: Uint8Array[] = [];
  /** Key bytes in acknowledged stripes. */
  #written = 0;

  constructor(ctx: ClientContext, session: EcKeySession, layout: EcKeyLayout, config: EcReplicationConfig) {
    this.#ctx = ctx;
    this.#session = session;
    this.#layout = layout;
    this.#config = config;
    this.#encoder = createRawErasureEncoder(config);
    this.#stripeBytes = config.ecChunkSize * config.data;
    this.#stripe = Buffer.allocUnsafe(
      Math.min(this.#stripeBytes, Math.max(MIN_STRIPE_BUFFER_BYTES, session.expectedBytes)),
    );
  }

  /** Bytes accepted so far. */
  get bytesWritten(): number {
    return this.#written + this.#filled;
  }

  async write(data: Uint8Array): Promise<void> {
    let at = 0;
    while (at < data.length) {
      const n = Math.min(data.length - at, this.#stripeBytes - this.#filled);
      this.#reserve(this.#filled + n);
      this.#stripe.set(data.subarray(at, at + n), this.#filled);
      this.#filled += n;
      at += n;
      if (this.#filled === this.#stripeBytes) await this.#flushStripe();
    }
  }

  /** Writes the last, short stripe (if any) and commits the key: one location per group with data. */
  async close(): Promise<void> {
    if (this.#filled > 0) await this.#flushStripe();
    const groups = this.#groups.filter((g) => g.dataBytes > 0);
    await this.#ctx.om.submit('CommitKey', {
      commitKeyRequest: commitKeyRequest(
        this.#session,
        groups.map((g) => ({ ref: g.ref, lengthBytes: g.dataBytes })),
        this.#written,
      ),
    });
  }

  /** Grows the stripe buffer to hold `bytes` (never past one stripe). */
  #reserve(bytes: number): void {
    if (bytes <= this.#stripe.length) return;
    const grown = Buffer.allocUnsafe(Math.min(this.#stripeBytes, Math.max(bytes, 2 * this.#stripe.length)));
    this.#stripe.copy(grown, 0, 0, this.#filled);
    this.#stripe = grown;
  }

  async #flushStripe(): Promise<void> {
    const dataBytes = this.#filled;
    const cells = stripeCells(this.#config, this.#encoder, this.#stripe.subarray(0, dataBytes), this.#parity);
    const maxRetries = this.#ctx.config.ecStripeWriteMaxRetries;
    const failures: EcReplicaWriteFailure[] = [];
    for (let attempt = 1; ; attempt++) {
      const group = await this.#currentGroup().catch((err: unknown) => {
        // After failed attempts, a refused allocation ends the write: say what failed before it.
        if (failures.length === 0 || !(err instanceof Error)) throw err;
        throw new ErasureCodedWriteError(this.#session.key, attempt - 1, failures, err);
      });
      // The last stripe of a group: the one that fills it, or a short one (the key's last).
      const eof = dataBytes < this.#stripeBytes || group.dataBytes + dataBytes >= group.capacityBytes;
      try {
        await group.writeStripe(cells, dataBytes, eof);
        break;
      } catch (err) {
        if (!(err instanceof StripeWriteFailure)) throw err;
        for (const f of err.failures)
          failures.push({
            attempt,
            replicaIndex: f.replicaIndex,
            datanodeUuid: f.datanode.uuid,
            address: f.datanode.address,
            command: f.command,
            error: f.error,
          });
        this.#abandon(group, err);
        if (attempt > maxRetries) throw new ErasureCodedWriteError(this.#session.key, attempt, failures);
      }
    }
    this.#written += dataBytes;
    this.#filled = 0;
    if (this.#group?.full) this.#group = undefined;
  }

  /**
   * Java's excludePipelineAndFailedDN and rollbackAndReset: the group's pipeline and every
   * datanode whose failure was not a closed container go on the exclude list; the group keeps
   * its stripes before this one (they are committed) and takes no more, and the groups CreateKey
   * pre-allocated on the same pipeline are dropped.
   */
  #abandon(group: EcBlockGroupWriter, failure: StripeWriteFailure): void {
    this.#exclude.pipelineIds.add(group.pipelineId);
    for (const f of failure.failures)
      if (failureExcludesDatanode(f.error)) this.#exclude.datanodes.add(f.datanode.uuid);
    this.#group = undefined;
    const preallocated = this.#session.preallocated;
    const kept = preallocated.filter((l) => pipelineIdOf(l.pipeline) !== group.pipelineId);
    preallocated.splice(0, preallocated.length, ...kept);
  }

  async #currentGroup(): Promise<EcBlockGroupWriter> {
    if (this.#group) return this.#group;
    const blockBytes = this.#layout.blockSizeBytes;
    const location =
      this.#session.preallocated.shift() ??
      (await allocateBlock(this.#ctx.om, this.#session, blockBytes * this.#config.data, this.#exclude));
    // The OM allocates an EC group with its internal block size as the length (0 from an OM that
    // states none); the client's own block size bounds it too.
    const allocated = toNumber(location.length);
    const group = new EcBlockGroupWriter(
      this.#ctx,
      location,
      this.#config,
      this.#layout,
      allocated > 0 ? Math.min(allocated, blockBytes) : blockBytes,
    );
    this.#groups.push(group);
    this.#group = group;
    return group;
  }
}
