// One block written through its pipeline's Raft group, in the order of Java's BlockOutputStream:
// WriteChunk per chunk and PutBlock every flush size on the ordered stream (so the datanodes apply
// them in that order), a watch on each PutBlock's log index, and writers held back while too much
// of the block is written but not yet watched.
import type { RaftClient } from '@fastpath/ratis-client';
import { writeChunkRequest, type BlockRef } from '../block-requests.js';
import type { hadoop } from '../proto/wire.js';
import { LedgerBlockWriter } from './block-writer.js';
import { PutBlockLedger } from './put-block-ledger.js';

/** How one block is flushed and watched (the client's settings). */
export interface RatisBlockSettings {
  flushSizeBytes: number;
  maxBufferSizeBytes: number;
  watchType: 'ALL_COMMITTED' | 'MAJORITY_COMMITTED';
}

export class RatisBlockWriter extends LedgerBlockWriter {
  readonly #settings: RatisBlockSettings;
  /** Requests sent since the last flush (WriteChunks), each already guarded against unhandled rejections. */
  #sent: Array<Promise<void>> = [];

  /**
   * @param raft the pipeline's Ratis client.
   * @param ref the block, with the BCSID the OM allocated it with (0 for a new block).
   * @param datanodeUuid what each command names as its target (`datanodeUuid`): the pipeline's first member, as Java fills it.
   * @param release called with each chunk's data once acknowledged (its buffer may be used again).
   */
  constructor(
    raft: RaftClient,
    ref: BlockRef,
    datanodeUuid: string,
    settings: RatisBlockSettings,
    release?: (data: Buffer) => void,
  ) {
    super(new PutBlockLedger(raft, ref, datanodeUuid, settings.watchType, release));
    this.#settings = {
      ...settings,
      // A flush is whole chunks; a smaller limit than one flush would stall the writer on itself.
      maxBufferSizeBytes: Math.max(settings.maxBufferSizeBytes, settings.flushSizeBytes),
    };
  }

  /**
   * Sends one chunk (WriteChunk), after waiting while `ozone.client.stream.buffer.max.size` of
   * the block is unacknowledged; sends PutBlock once a flush size has gathered since the last one.
   * Resolves once the chunk is handed to the ordered stream, not when it is applied.
   */
  async writeChunk(chunk: hadoop.hdds.datanode.IChunkInfo, data: Buffer): Promise<void> {
    const ledger = this.ledger;
    await ledger.waitForRoom(data.length, this.#settings.maxBufferSizeBytes);
    const request = writeChunkRequest(ledger.ref, chunk, data, ledger.datanodeUuid);
    this.#sent.push(ledger.guard(ledger.command('WriteChunk', request)));
    ledger.record(chunk, data);
    if (ledger.unflushedBytes >= this.#settings.flushSizeBytes) this.#flush(false);
  }

  async finish(): Promise<bigint> {
    this.ledger.throwIfFailed();
    if (this.ledger.lengthBytes > 0) this.#flush(true);
    return this.ledger.settle(this.#sent);
  }

  async sync(): Promise<bigint> {
    this.ledger.throwIfFailed();
    if (this.ledger.unflushedBytes > 0) this.#flush(false);
    return this.ledger.settle(this.#sent);
  }

  abandon(): void {
    // What is queued on the ordered stream stays there: the group's retry cache and the
    // container's state decide it; a block given up is never committed.
  }

  #flush(eof: boolean): void {
    const sent = this.#sent;
    this.#sent = [];
    this.ledger.flush(eof, sent, false);
  }
}
