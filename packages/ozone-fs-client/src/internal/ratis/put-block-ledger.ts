// The metadata side of writing one block through its pipeline's Raft group, shared by both ways
// the data travels (WriteChunk on Ratis's ordered stream, or Ratis DataStream packets): the chunk
// list, a PutBlock every flush size sent through the Raft log, a watch on each PutBlock's log
// index, what those watches acknowledge (the part of the block that survives a pipeline failure),
// and the bytes past it kept for a re-write to another block.
import type { RaftClient } from '@fastpath/ratis-client';
import { DatanodeResultError, OzoneProtocolError } from '../../ozone-errors.js';
import { putBlockRequest, type BlockRef } from '../block-requests.js';
import { dn, toBigInt, type hadoop } from '../proto/wire.js';
import {
  containerCommandMessagePieces,
  EncodedChunkList,
  putBlockMessagePieces,
} from './container-command-message.js';

type ChunkInfo = hadoop.hdds.datanode.IChunkInfo;
type CommandName = 'WriteChunk' | 'PutBlock';

/** A PutBlock sent and not yet watched: the bytes of the block it covers. */
interface Flush {
  upToBytes: number;
  done: Promise<void>;
}

export class PutBlockLedger {
  readonly #raft: RaftClient;
  readonly #ref: BlockRef;
  readonly #datanodeUuid: string;
  readonly #watchType: 'ALL_COMMITTED' | 'MAJORITY_COMMITTED';
  /** The block's chunks, each encoded once: every PutBlock names them all. */
  readonly #chunks = new EncodedChunkList();
  readonly #flushes: Flush[] = [];
  #lengthBytes = 0;
  #flushedBytes = 0;
  #acknowledgedBytes = 0;
  /** The BCSID of the last PutBlock whose watch succeeded: what a commit of the acknowledged part carries. */
  #acknowledgedBcsid = 0n;
  /** The data of every chunk past `#acknowledgedBytes`, kept for a re-write to another block. */
  #retained: Array<{ endBytes: number; data: Buffer }> = [];
  #failure: { error: unknown } | undefined;
  /** Called with each chunk's data once a watched PutBlock covers it: nothing reads it again. */
  readonly #release: ((data: Buffer) => void) | undefined;

  /**
   * @param ref the block, with the BCSID the OM allocated it with (0 for a new block).
   * @param datanodeUuid what each command names as its target: the pipeline's first member, as Java fills it.
   * @param release called with each chunk's data once acknowledged (its sends answered, a watched
   *   PutBlock covering it), so that its buffer can be used again.
   */
  constructor(
    raft: RaftClient,
    ref: BlockRef,
    datanodeUuid: string,
    watchType: 'ALL_COMMITTED' | 'MAJORITY_COMMITTED',
    release?: (data: Buffer) => void,
  ) {
    this.#raft = raft;
    this.#ref = { ...ref };
    this.#datanodeUuid = datanodeUuid;
    this.#watchType = watchType;
    this.#release = release;
  }

  get ref(): Readonly<BlockRef> {
    return this.#ref;
  }

  get datanodeUuid(): string {
    return this.#datanodeUuid;
  }

  get blockCommitSequenceId(): bigint {
    return this.#ref.blockCommitSequenceId;
  }

  get lengthBytes(): number {
    return this.#lengthBytes;
  }

  get unflushedBytes(): number {
    return this.#lengthBytes - this.#flushedBytes;
  }

  get acknowledgedBytes(): number {
    return this.#acknowledgedBytes;
  }

  get acknowledgedBlockCommitSequenceId(): bigint {
    return this.#acknowledgedBcsid;
  }

  unacknowledgedData(): Buffer {
    return Buffer.concat(this.#retained.map((r) => r.data));
  }

  /** Waits while `incomingBytes` more would leave over `limitBytes` of the block unacknowledged. */
  async waitForRoom(incomingBytes: number, limitBytes: number): Promise<void> {
    this.throwIfFailed();
    while (this.#lengthBytes + incomingBytes - this.#acknowledgedBytes > limitBytes) {
      const oldest = this.#flushes[0];
      if (!oldest) break;
      await oldest.done;
      this.throwIfFailed();
    }
  }

  /** Adds a chunk the caller has sent (or is sending) to the block's list and keeps its data. */
  record(chunk: ChunkInfo, data: Buffer): void {
    this.#chunks.append(chunk);
    this.#lengthBytes += data.length;
    this.#retained.push({ endBytes: this.#lengthBytes, data });
  }

  /**
   * Sends a PutBlock for every chunk recorded so far, then watches its log index.
   * `dataSent` are the sends of the chunks since the last PutBlock; a failure among them fails
   * the flush. With `afterData` the PutBlock waits for them before it is sent (the DataStream
   * path: a PutBlock may only name chunks the datanodes hold); without, it goes at once (the
   * ordered stream applies the WriteChunks before it). Returns the PutBlock sent, as message
   * content in pieces.
   */
  flush(eof: boolean, dataSent: readonly Promise<void>[], afterData: boolean): Uint8Array[] {
    const upToBytes = this.#lengthBytes;
    this.#flushedBytes = upToBytes;
    const message = putBlockMessagePieces(
      putBlockRequest(this.#ref, [], upToBytes, eof, this.#datanodeUuid),
      this.#chunks,
    );
    const flush: Flush = { upToBytes, done: Promise.resolve() };
    flush.done = this.guard(
      (async () => {
        if (afterData) {
          await Promise.all(dataSent);
          this.throwIfFailed();
        }
        const { response, logIndex } = await this.#send('PutBlock', message);
        await Promise.all(dataSent);
        this.throwIfFailed();
        const bcsid = toBigInt(response.putBlock?.committedBlockLength?.blockID?.blockCommitSequenceId);
        if (bcsid > this.#ref.blockCommitSequenceId) this.#ref.blockCommitSequenceId = bcsid;
        await this.#raft.watch(logIndex, { replication: this.#watchType, fallbackToMajorityCommitted: true });
        if (upToBytes > this.#acknowledgedBytes) {
          this.#acknowledgedBytes = upToBytes;
          this.#acknowledgedBcsid = bcsid;
          const kept = this.#retained.filter((r) => r.endBytes > upToBytes);
          if (this.#release)
            for (const r of this.#retained) if (r.endBytes <= upToBytes) this.#release(r.data);
          this.#retained = kept;
        }
        this.#flushes.splice(this.#flushes.indexOf(flush), 1);
      })(),
    );
    this.#flushes.push(flush);
    return message;
  }

  /** Waits for `pending` and every PutBlock and watch; resolves with the block's BCSID, rejects with the first failure. */
  async settle(pending: readonly Promise<void>[]): Promise<bigint> {
    await Promise.all([...pending, ...this.#flushes.map((f) => f.done)]);
    this.throwIfFailed();
    return this.#ref.blockCommitSequenceId;
  }

  /** Sends one container command on the ordered stream and checks the datanode's result. */
  async command(
    name: CommandName,
    request: hadoop.hdds.datanode.IContainerCommandRequestProto,
  ): Promise<{ response: hadoop.hdds.datanode.ContainerCommandResponseProto; logIndex: number }> {
    return this.#send(name, containerCommandMessagePieces(request));
  }

  async #send(
    name: CommandName,
    message: readonly Uint8Array[],
  ): Promise<{ response: hadoop.hdds.datanode.ContainerCommandResponseProto; logIndex: number }> {
    const reply = await this.#raft.send(message);
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
  guard(p: Promise<unknown>): Promise<void> {
    return p.then(
      () => undefined,
      (error: unknown) => {
        this.#failure ??= { error };
      },
    );
  }

  throwIfFailed(): void {
    if (this.#failure) throw this.#failure.error;
  }
}
