// One block written with Ratis streaming (HDDS-4454), in the order of Java's BlockDataStreamOutput:
// a stream opened with a StreamInit header routed along the pipeline, each chunk one raw data
// packet (no WriteChunk: the datanodes write the bytes to the block file as they arrive), a
// PutBlock through the Raft log every flush size once the packets it names are acknowledged, and
// at the end the in-stream PutBlock with its length trailer and the CLOSE option, which Ratis
// follows with the forward that links the stream into the log, beside the final PutBlock.
import type { RaftClient, RaftDataStream } from '@fastpath/ratis-client';
import { streamInitRequest, type BlockRef } from '../block-requests.js';
import type { hadoop } from '../proto/wire.js';
import { LedgerBlockWriter } from './block-writer.js';
import { encodeContainerCommandMessage } from './container-command-message.js';
import { PutBlockLedger } from './put-block-ledger.js';

/** How one streamed block is flushed, watched and routed (the client's settings). */
export interface DataStreamBlockSettings {
  /** `ozone.client.datastream.buffer.flush.size`. */
  dataStreamFlushSizeBytes: number;
  /** `ozone.client.datastream.window.size`. */
  dataStreamWindowBytes: number;
  /** `ozone.client.datastream.sync.size` (0: never). */
  dataStreamSyncSizeBytes: number;
  /** `ozone.client.datastream.pipeline.mode`. */
  dataStreamChainRouting: boolean;
  watchType: 'ALL_COMMITTED' | 'MAJORITY_COMMITTED';
}

/** The largest PutBlock a datanode takes at a stream's end (Java's PUT_BLOCK_REQUEST_LENGTH_MAX). */
const IN_STREAM_PUT_BLOCK_MAX_BYTES = 1 << 20;

export class DataStreamBlockWriter extends LedgerBlockWriter {
  readonly #raft: RaftClient;
  readonly #settings: DataStreamBlockSettings;
  /** The pipeline's members in order: the first is the stream's primary, the chain follows the rest. */
  readonly #memberIds: readonly string[];
  #stream: RaftDataStream | undefined;
  /**
   * Data packets not yet acknowledged, each already guarded against unhandled rejections. Every
   * PutBlock waits for all of them, not only those sent since the one before: a PutBlock that
   * follows another with nothing new between (the eof one right after a flush-size one) would
   * otherwise reach the log before the data it names is on the datanodes (as Java's
   * `waitFuturesComplete` waits for every outstanding packet).
   */
  readonly #unacknowledged = new Set<Promise<void>>();
  /** Block bytes at the last packet sent with SYNC. */
  #syncedBytes = 0;

  /**
   * @param raft the pipeline's Ratis client; every member must have a DataStream address.
   * @param memberIds the pipeline's datanode UUIDs in pipeline order (the first is the primary
   *   and what each command names as its target, as Java fills it).
   * @param release called with each chunk's data once acknowledged (its buffer may be used again).
   */
  constructor(
    raft: RaftClient,
    ref: BlockRef,
    memberIds: readonly string[],
    settings: DataStreamBlockSettings,
    release?: (data: Buffer) => void,
  ) {
    super(new PutBlockLedger(raft, ref, memberIds[0] ?? '', settings.watchType, release));
    this.#raft = raft;
    this.#memberIds = [...memberIds];
    this.#settings = settings;
  }

  /**
   * Sends one chunk as one data packet, after waiting while `ozone.client.datastream.window.size`
   * of the block is unacknowledged; a PutBlock follows once a flush size has gathered.
   */
  async writeChunk(chunk: hadoop.hdds.datanode.IChunkInfo, data: Buffer): Promise<void> {
    const ledger = this.ledger;
    await ledger.waitForRoom(data.length, this.#settings.dataStreamWindowBytes);
    const stream = (this.#stream ??= this.#open());
    const endBytes = ledger.lengthBytes + data.length;
    const syncEvery = this.#settings.dataStreamSyncSizeBytes;
    const sync = syncEvery > 0 && endBytes - this.#syncedBytes >= syncEvery;
    if (sync) this.#syncedBytes = endBytes;
    const sent = ledger.guard(stream.write(data, { sync }));
    this.#unacknowledged.add(sent);
    void sent.then(() => this.#unacknowledged.delete(sent));
    ledger.record(chunk, data);
    if (ledger.unflushedBytes >= this.#settings.dataStreamFlushSizeBytes) this.#flush(false);
  }

  async finish(): Promise<bigint> {
    const ledger = this.ledger;
    ledger.throwIfFailed();
    const stream = this.#stream;
    if (!stream || ledger.lengthBytes === 0) return ledger.settle([...this.#unacknowledged]);
    const dataSent = [...this.#unacknowledged];
    const putBlock = this.#flush(true);
    // The stream's end, once every packet is acknowledged: the PutBlock as a packet, then its
    // length with CLOSE. Datanodes since HDDS-12007 ignore that PutBlock (the one through the log
    // counts), but they strip the trailer's bytes off the block file, so it must be there.
    const closed = ledger.guard(
      (async () => {
        await Promise.all(dataSent);
        ledger.throwIfFailed();
        const message = Buffer.concat(putBlock);
        if (message.length > IN_STREAM_PUT_BLOCK_MAX_BYTES)
          throw new RangeError(
            `the block's PutBlock takes ${message.length} bytes, more than a stream's end holds (${IN_STREAM_PUT_BLOCK_MAX_BYTES})`,
          );
        const trailer = Buffer.allocUnsafe(4);
        trailer.writeInt32BE(message.length, 0);
        const wrote = stream.write(message);
        await Promise.all([wrote, stream.close(trailer)]);
      })(),
    );
    return ledger.settle([closed]);
  }

  async sync(): Promise<bigint> {
    this.ledger.throwIfFailed();
    if (this.ledger.unflushedBytes > 0) this.#flush(false);
    return this.ledger.settle([...this.#unacknowledged]);
  }

  /** Stops the stream of a block given up on (a failover): nothing more is sent on it. */
  abandon(): void {
    this.#stream?.abort();
  }

  #open(): RaftDataStream {
    const ledger = this.ledger;
    const header = encodeContainerCommandMessage(streamInitRequest(ledger.ref, ledger.datanodeUuid));
    return this.#raft.stream(header, {
      routing: this.#settings.dataStreamChainRouting ? 'chain' : 'star',
      peerOrder: this.#memberIds,
    });
  }

  #flush(eof: boolean): Uint8Array[] {
    const sent = [...this.#unacknowledged];
    return this.ledger.flush(eof, sent, true);
  }
}
