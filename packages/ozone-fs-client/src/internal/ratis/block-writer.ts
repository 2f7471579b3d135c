import type { hadoop } from '../proto/wire.js';
import type { PutBlockLedger } from './put-block-ledger.js';

/**
 * One replicated block being written, whichever way its bytes travel (WriteChunk through the Raft
 * log, or Ratis DataStream): what the key output stream asks of it.
 */
export interface BlockWriter {
  /** The block's latest BCSID: the log index of the last PutBlock the group applied. */
  readonly blockCommitSequenceId: bigint;
  /** Bytes of the block handed to the writer. */
  readonly lengthBytes: number;
  /** Bytes of the block written since the last PutBlock. */
  readonly unflushedBytes: number;
  /** Bytes of the block covered by a PutBlock watched to its level: they survive a failure of the pipeline. */
  readonly acknowledgedBytes: number;
  /** The BCSID of the acknowledged part. */
  readonly acknowledgedBlockCommitSequenceId: bigint;
  /** The data written past the acknowledged part, in order: what a failover writes again. */
  unacknowledgedData(): Buffer;
  /**
   * Sends one chunk (its checksums in `chunk`), after waiting while too much of the block is
   * unacknowledged; resolves once it is handed on, not when the datanodes hold it. `data` must
   * stay unchanged until the block is finished or failed over.
   */
  writeChunk(chunk: hadoop.hdds.datanode.IChunkInfo, data: Buffer): Promise<void>;
  /**
   * Closes the block: PutBlock with `eof`, then waits for every send and watch of the block.
   * Resolves with the block's BCSID; rejects with the first failure of any of them.
   */
  finish(): Promise<bigint>;
  /**
   * hflush/hsync (Java's `handleFlush(false)`): PutBlock for what the last one did not cover,
   * then waits for every send and watch of the block. Resolves with the block's BCSID once all of
   * it is acknowledged; the block stays open for more chunks.
   */
  sync(): Promise<bigint>;
  /** Gives the block up (a failover moved its unacknowledged data elsewhere): nothing more is sent for it. */
  abandon(): void;
}

/**
 * What both block writers answer from their PutBlock ledger alike: lengths, what is
 * acknowledged, and the data a failover writes again. They differ in how chunks travel.
 */
export abstract class LedgerBlockWriter implements BlockWriter {
  protected constructor(protected readonly ledger: PutBlockLedger) {}

  get blockCommitSequenceId(): bigint {
    return this.ledger.blockCommitSequenceId;
  }

  get lengthBytes(): number {
    return this.ledger.lengthBytes;
  }

  get unflushedBytes(): number {
    return this.ledger.unflushedBytes;
  }

  get acknowledgedBytes(): number {
    return this.ledger.acknowledgedBytes;
  }

  get acknowledgedBlockCommitSequenceId(): bigint {
    return this.ledger.acknowledgedBlockCommitSequenceId;
  }

  unacknowledgedData(): Buffer {
    return this.ledger.unacknowledgedData();
  }

  abstract writeChunk(chunk: hadoop.hdds.datanode.IChunkInfo, data: Buffer): Promise<void>;
  abstract finish(): Promise<bigint>;
  abstract sync(): Promise<bigint>;
  abstract abandon(): void;
}
