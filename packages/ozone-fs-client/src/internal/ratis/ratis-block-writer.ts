// One block written through its pipeline's Raft group, in the order of Java's BlockOutputStream:
// WriteChunk per chunk and PutBlock every flush size on the ordered stream (so the datanodes apply
// them in that order), a watch on each PutBlock's log index, and writers held back while too much
// of the block is written but not yet watched.
import type { RaftClient } from '@fastpath/ratis-client';
import { DatanodeResultError, OzoneProtocolError } from '../../ozone-errors.js';
import { putBlockRequest, writeChunkRequest, type BlockRef } from '../block-requests.js';
import { dn, toBigInt, type hadoop } from '../proto/wire.js';
import { containerCommandMessagePieces } from './container-command-message.js';

/** How one block is flushed and watched (the client's settings). */
export interface RatisBlockSettings {
  flushSizeBytes: number;
  maxBufferSizeBytes: number;
  watchType: 'ALL_COMMITTED' | 'MAJORITY_COMMITTED';
}

type ChunkInfo = hadoop.hdds.datanode.IChunkInfo;

/** A PutBlock sent and not yet watched: the bytes of the block it covers. */
interface Flush {
  upToBytes: number;
  done: Promise<void>;
}

export class RatisBlockWriter {
  readonly #raft: RaftClient;
  readonly #ref: BlockRef;
  readonly #settings: RatisBlockSettings;
  readonly #datanodeUuid: string;
  readonly #chunks: ChunkInfo[] = [];
  /** Requests sent since the last flush (WriteChunks), each already guarded against unhandled rejections. */
  #sent: Array<Promise<void>> = [];
  readonly #flushes: Flush[] = [];
  #lengthBytes = 0;
  #flushedBytes = 0;
  #acknowledgedBytes = 0;
  /** The BCSID of the last PutBlock whose watch succeeded: what a commit of the acknowledged part carries. */
  #acknowledgedBcsid = 0n;
  /** The data of every chunk past `#acknowledgedBytes`, kept for a re-write to another block. */
  #retained: Array<{ endBytes: number; data: Buffer }> = [];
  #failure: { error: unknown } | undefined;

  /**
   * @param raft the pipeline's Ratis client.
   * @param ref the block, with the BCSID the OM allocated it with (0 for a new block).
   * @param datanodeUuid what each command names as its target (`datanodeUuid`): the pipeline's first member, as Java fills it.
   */
  constructor(raft: RaftClient, ref: BlockRef, datanodeUuid: string, settings: RatisBlockSettings) {
    this.#raft = raft;
    this.#ref = { ...ref };
    this.#datanodeUuid = datanodeUuid;
    this.#settings = {
      ...settings,
      // A flush is whole chunks; a smaller limit than one flush would stall the writer on itself.
      maxBufferSizeBytes: Math.max(settings.maxBufferSizeBytes, settings.flushSizeBytes),
    };
  }

  /** The block's latest BCSID: the log index of the last PutBlock the group applied. */
  get blockCommitSequenceId(): bigint {
    return this.#ref.blockCommitSequenceId;
  }

  get lengthBytes(): number {
    return this.#lengthBytes;
  }

  /** Bytes of the block covered by a PutBlock watched to its level: they survive a failure of the pipeline. */
  get acknowledgedBytes(): number {
    return this.#acknowledgedBytes;
  }

  /** The BCSID of the acknowledged part. */
  get acknowledgedBlockCommitSequenceId(): bigint {
    return this.#acknowledgedBcsid;
  }

  /** The data written past the acknowledged part, in order: what a failover writes again. */
  unacknowledgedData(): Buffer {
    return Buffer.concat(this.#retained.map((r) => r.data));
  }

  /**
   * Sends one chunk (WriteChunk), after waiting while `ozone.client.stream.buffer.max.size` of
   * the block is unacknowledged; sends PutBlock once a flush size has gathered since the last one.
   * Resolves once the chunk is handed to the ordered stream, not when it is applied.
   */
  async writeChunk(chunk: ChunkInfo, data: Buffer): Promise<void> {
    this.#throwIfFailed();
    while (this.#lengthBytes + data.length - this.#acknowledgedBytes > this.#settings.maxBufferSizeBytes) {
      const oldest = this.#flushes[0];
      if (!oldest) break;
      await oldest.done;
      this.#throwIfFailed();
    }
    const request = writeChunkRequest(this.#ref, chunk, data, this.#datanodeUuid);
    this.#sent.push(this.#guard(this.#command('WriteChunk', request).then(() => undefined)));
    this.#chunks.push(chunk);
    this.#lengthBytes += data.length;
    this.#retained.push({ endBytes: this.#lengthBytes, data });
    if (this.#lengthBytes - this.#flushedBytes >= this.#settings.flushSizeBytes) this.#flush(false);
  }

  /**
   * Closes the block: PutBlock with `eof`, then waits for every request and watch of the block.
   * Resolves with the block's BCSID; rejects with the first failure of any of them.
   */
  async finish(): Promise<bigint> {
    this.#throwIfFailed();
    if (this.#lengthBytes > 0) this.#flush(true);
    return this.#settle();
  }

  /** Bytes of the block written since the last PutBlock. */
  get unflushedBytes(): number {
    return this.#lengthBytes - this.#flushedBytes;
  }

  /**
   * hflush/hsync (Java's `handleFlush(false)`): PutBlock for what the last one did not cover,
   * then waits for every request and watch of the block. Resolves with the block's BCSID once all
   * of it is acknowledged; the block stays open for more chunks.
   */
  async sync(): Promise<bigint> {
    this.#throwIfFailed();
    if (this.unflushedBytes > 0) this.#flush(false);
    return this.#settle();
  }

  async #settle(): Promise<bigint> {
    await Promise.all([...this.#sent, ...this.#flushes.map((f) => f.done)]);
    this.#throwIfFailed();
    return this.#ref.blockCommitSequenceId;
  }

  #flush(eof: boolean): void {
    const upToBytes = this.#lengthBytes;
    this.#flushedBytes = upToBytes;
    const request = putBlockRequest(this.#ref, [...this.#chunks], upToBytes, eof, this.#datanodeUuid);
    const chunksSent = this.#sent;
    this.#sent = [];
    const flush: Flush = { upToBytes, done: Promise.resolve() };
    flush.done = this.#guard(
      (async () => {
        const { response, logIndex } = await this.#command('PutBlock', request);
        // The WriteChunks before it on the ordered stream were applied first; a failure among
        // them fails this flush too.
        await Promise.all(chunksSent);
        this.#throwIfFailed();
        const bcsid = toBigInt(response.putBlock?.committedBlockLength?.blockID?.blockCommitSequenceId);
        if (bcsid > this.#ref.blockCommitSequenceId) this.#ref.blockCommitSequenceId = bcsid;
        await this.#raft.watch(logIndex, {
          replication: this.#settings.watchType,
          fallbackToMajorityCommitted: true,
        });
        if (upToBytes > this.#acknowledgedBytes) {
          this.#acknowledgedBytes = upToBytes;
          this.#acknowledgedBcsid = bcsid;
          this.#retained = this.#retained.filter((r) => r.endBytes > upToBytes);
        }
        this.#flushes.splice(this.#flushes.indexOf(flush), 1);
      })(),
    );
    this.#flushes.push(flush);
  }

  /** Sends one container command on the ordered stream and checks the datanode's result. */
  async #command(
    name: 'WriteChunk' | 'PutBlock',
    request: hadoop.hdds.datanode.IContainerCommandRequestProto,
  ): Promise<{ response: hadoop.hdds.datanode.ContainerCommandResponseProto; logIndex: number }> {
    const reply = await this.#raft.send(containerCommandMessagePieces(request));
    let response: hadoop.hdds.datanode.ContainerCommandResponseProto;
    try {
      response = dn.ContainerCommandResponseProto.decode(reply.content);
    } catch (err) {
      throw new OzoneProtocolError(
        `datanode ${reply.peerId}`,
        `${name} answered bytes that are not a response`,
        err,
      );
    }
    if (response.result !== dn.Result.SUCCESS)
      throw new DatanodeResultError(
        `datanode ${reply.peerId} (Ratis)`,
        name,
        dn.Result[response.result] ?? String(response.result),
        response.message ?? '',
      );
    return { response, logIndex: reply.logIndex };
  }

  /** Records the first failure (so later calls see it at once) and keeps the promise from rejecting unhandled. */
  #guard(p: Promise<void>): Promise<void> {
    return p.catch((error: unknown) => {
      this.#failure ??= { error };
    });
  }

  #throwIfFailed(): void {
    if (this.#failure) throw this.#failure.error;
  }
}
