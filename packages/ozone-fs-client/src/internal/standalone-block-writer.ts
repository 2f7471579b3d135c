// One block written over each member's standalone port: the embedded mini cluster's datanodes
// serve no Ratis group yet, so there is nothing to bypass there. Real datanodes serve one on their
// own RATIS port, and their blocks go through RatisBlockWriter.
import type { ClientContext } from './client-context.js';
import { putBlockRequest, writeChunkRequest, type BlockRef } from './block-requests.js';
import type { DatanodeAddress } from './pipeline.js';
import type { hadoop } from './proto/wire.js';

export class StandaloneBlockWriter {
  readonly #ctx: ClientContext;
  readonly #ref: BlockRef;
  readonly #datanodes: DatanodeAddress[];
  readonly #chunks: hadoop.hdds.datanode.IChunkInfo[] = [];
  #lengthBytes = 0;

  constructor(ctx: ClientContext, ref: BlockRef, datanodes: DatanodeAddress[]) {
    this.#ctx = ctx;
    this.#ref = ref;
    this.#datanodes = datanodes;
  }

  get lengthBytes(): number {
    return this.#lengthBytes;
  }

  /** WriteChunk to every member; resolves once each has answered. */
  async writeChunk(chunk: hadoop.hdds.datanode.IChunkInfo, data: Buffer): Promise<void> {
    await Promise.all(
      this.#datanodes.map((dn) =>
        this.#ctx.datanodes
          .channel(dn.address)
          .send(writeChunkRequest(this.#ref, chunk, data, dn.uuid), this.#ctx.config.readTimeoutMs),
      ),
    );
    this.#chunks.push(chunk);
    this.#lengthBytes += data.length;
  }

  /** PutBlock (eof) to every member; resolves with the BCSID the block was allocated with. */
  async finish(): Promise<bigint> {
    if (this.#lengthBytes > 0)
      await Promise.all(
        this.#datanodes.map((dn) =>
          this.#ctx.datanodes
            .channel(dn.address)
            .send(
              putBlockRequest(this.#ref, this.#chunks, this.#lengthBytes, true, dn.uuid),
              this.#ctx.config.readTimeoutMs,
            ),
        ),
      );
    return this.#ref.blockCommitSequenceId;
  }
}
