import {
  OzoneClosedError,
  OzoneDataStreamUnavailableError,
  OzoneHsyncUnsupportedError,
} from './ozone-errors.js';
import { encodedBlockToken } from './internal/block-token.js';
import { CHECKSUM_TYPE_VALUES, computeChecksums, type ChecksumTypeName } from './internal/checksum.js';
import type { ClientContext } from './internal/client-context.js';
import type { BlockRef } from './internal/block-requests.js';
import type { KeyEncryptor } from './internal/crypto/key-encryptor.js';
import { commitKeyRequest, type CommitBlock } from './internal/commit-key-request.js';
import { allocateBlock } from './internal/allocate-block.js';
import { ExcludeList } from './internal/exclude-list.js';
import type { KeyReplication } from './internal/replication.js';
import { EcKeyWriter } from './internal/ec/ec-key-writer.js';
import { canEnableHsync, flushDue, hsyncRefusal } from './internal/hsync/hsync-policy.js';
import { pipelineDatanodes } from './internal/pipeline.js';
import { pipelineRaftGroup } from './internal/ratis/pipeline-raft-group.js';
import type { BlockWriter } from './internal/ratis/block-writer.js';
import { DataStreamBlockWriter } from './internal/ratis/data-stream-block-writer.js';
import { RatisBlockWriter } from './internal/ratis/ratis-block-writer.js';
import { writeFailureKind } from './internal/ratis/write-failure.js';
import { toBigInt, uint64, type hadoop } from './internal/proto/wire.js';

/** How a key's data is cut and checksummed. */
export interface KeyWriteLayout {
  chunkSizeBytes: number;
  blockSizeBytes: number;
  checksumType: ChecksumTypeName;
  bytesPerChecksum: number;
}

/** What the OM answered to CreateKey, for the stream. */
export interface OpenKeySession {
  volume: string;
  bucket: string;
  key: string;
  /** The open-key ID (CreateKeyResponse.ID) that AllocateBlock and CommitKey carry. */
  clientId: bigint;
  preallocated: hadoop.ozone.IKeyLocation[];
  /** The key's replication as CreateKey answered it (the key's own, the bucket's default or the OM's). */
  replication: KeyReplication;
  /** The size CreateKey was given (0: unknown), for sizing the buffer writes are gathered in. */
  expectedBytes: number;
}

/** The smallest buffer writes are gathered in: a small key's bytes, without a chunk's worth of memory. */
const MIN_FILL_BYTES = 64 * 1024;
/**
 * The least a native engine copies on the thread pool: below it the hop to a pool thread and back
 * costs about what the copy does (some 20 µs per 64 KiB here).
 */
const NATIVE_COPY_MIN_BYTES = 256 * 1024;

interface OpenBlock {
  ref: BlockRef;
  /** The pipeline's UUID (its Raft group). */
  pipelineId: string;
  writer: BlockWriter;
  chunks: number;
  offsetInKey: number;
}

/**
 * Writes one key (the KeyOutputStream/BlockOutputStream analogue): data is cut into chunks
 * (`ozone.client.stream.buffer.size`) and blocks (`ozone.scm.block.size`), each chunk with its
 * checksums; `close()` commits the key with CommitKey, every block with its BCSID and length.
 *
 * Every block is written through its pipeline's Raft group, as Java's client writes it:
 * WriteChunk and PutBlock on Ratis's ordered stream, a PutBlock every
 * `ozone.client.stream.buffer.flush.size` and at the block's end, each PutBlock's log index (the
 * block's BCSID) watched at `hdds.ratis.client.request.watch.type`, and the writer held back while
 * `ozone.client.stream.buffer.max.size` is unacknowledged. The same path serves a real cluster and
 * the embedded mini cluster, whose datanodes serve their pipelines' Raft groups too. A key whose
 * write fails is never committed.
 *
 * With `ozone.fs.datastream.enabled`, a RATIS key of more than `ozone.fs.datastream.auto.threshold`
 * bytes (CreateKey's size; when that is unknown, the stream holds what is written until it passes
 * the threshold or closes, as Ozone's SelectorOutputStream does) is streamed instead, as Java's
 * KeyDataStreamOutput writes it: each block's chunks (`ozone.client.datastream.min.packet.size`)
 * as Ratis DataStream packets to the pipeline's `RATIS_DATASTREAM` ports, PutBlocks through the
 * Raft log; failover, retries and the commit are the same.
 *
 * An erasure-coded key (CreateKey answered EC) is written as Java's ECKeyOutputStream writes it:
 * stripes of `ecChunkSize` cells with their parity, each stripe's cells at once to the d + p
 * replicas of a block group over the datanodes' standalone port, a failed stripe written again
 * into a new group (see the package README, "Erasure-coded keys"). `flush()` does nothing for
 * such a key and `hsync()` is refused, as in Ozone.
 */
export class KeyOutputStream {
  readonly #ctx: ClientContext;
  readonly #session: OpenKeySession;
  readonly #layout: KeyWriteLayout;
  readonly #committed: Array<{ ref: BlockRef; offsetInKey: number; lengthBytes: number }> = [];
  /** Data accepted and not yet sent, in order: buffers of the stream's own, never the caller's. */
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /**
   * The buffer that `write` copies into, sized to end at a chunk boundary, so that a chunk is a
   * view of it and the caller's bytes are copied once on their way to the datanodes. Its part
   * filled and not yet taken (`from` to `to`) is the last entry of `#pending`.
   */
  #fill: { buffer: Buffer; from: number; to: number } | undefined;
  /**
   * Copies into fill buffers still running on the native engine's threads: each `write` waits for
   * its own, and no chunk is taken before all have settled.
   */
  #copies: Array<Promise<void>> = [];
  #block: OpenBlock | undefined;
  #written = 0;
  #closed = false;
  // Boxed, so that whatever was thrown (even undefined) is rethrown as it was.
  #failed: { error: unknown } | undefined;
  /** What AllocateBlock is told to avoid after failures (Java's ExcludeList). */
  readonly #exclude = new ExcludeList();
  #retries = 0;
  /**
   * Gives an acknowledged chunk's buffer back to the client's pool: only a whole pooled buffer is
   * taken back (a chunk that is a view of one), so a chunk joined from pieces or written by the
   * encryptor is left to the collector.
   */
  readonly #releaseChunk = (data: Buffer): void => this.#ctx.chunkBuffers.give(data);
  /** An encrypted key's cipher: what is buffered, sent, checksummed and re-sent is ciphertext. */
  readonly #encryptor: KeyEncryptor | undefined;
  /** The data path of an erasure-coded key; the rest of the stream's state is then unused. */
  readonly #ec: EcKeyWriter | undefined;
  /**
   * Whether blocks are streamed (Ratis DataStream) rather than written chunk by chunk through the
   * Raft log; undefined while a key of unknown size has not yet passed the streaming threshold.
   */
  #dataStream: boolean | undefined;

  /** @internal built by OzoneClient#createKey */
  constructor(ctx: ClientContext, session: OpenKeySession, layout: KeyWriteLayout, encryptor?: KeyEncryptor) {
    this.#ctx = ctx;
    this.#session = session;
    this.#layout = layout;
    this.#encryptor = encryptor;
    const { replication } = session;
    this.#ec =
      replication.type === 'EC' ? new EcKeyWriter(ctx, session, layout, replication.config) : undefined;
    const { dataStreamEnabled, dataStreamAutoThresholdBytes } = ctx.config;
    if (!dataStreamEnabled || replication.type !== 'RATIS') this.#dataStream = false;
    else if (session.expectedBytes > 0)
      this.#dataStream = session.expectedBytes > dataStreamAutoThresholdBytes;
  }

  /** Bytes accepted so far. */
  get bytesWritten(): number {
    return this.#ec ? this.#ec.bytesWritten : this.#written + this.#pendingBytes;
  }

  /** Appends `data`; full chunks are sent before it resolves. */
  async write(data: Uint8Array): Promise<void> {
    this.#check();
    try {
      if (this.#ec) {
        await this.#ec.write(this.#encryptor ? this.#encryptor.update(data) : data);
        return;
      }
      // The block is taken (and its pipeline checked) at the first byte, not when a whole chunk
      // is buffered: a write that cannot go anywhere fails at once. A key that may yet be
      // streamed takes none until that is decided.
      if (data.length > 0 && this.#dataStream !== undefined) await this.#currentBlock();
      if (this.#encryptor) {
        // Ciphertext is a buffer of the stream's own already.
        this.#pending.push(this.#encryptor.update(data));
        this.#fill = undefined;
        this.#pendingBytes += data.length;
      } else {
        this.#append(data);
        await this.#settleCopies();
      }
      if (this.#dataStream === undefined) {
        if (this.bytesWritten <= this.#ctx.config.dataStreamAutoThresholdBytes) return;
        this.#dataStream = true;
      }
      while (this.#pendingBytes >= this.#nextChunkBytes()) await this.#flushChunk(this.#nextChunkBytes());
    } catch (err) {
      this.#failed = { error: err };
      this.#encryptor?.destroy();
      throw err;
    }
  }

  /** Sends what is buffered, closes the last block with PutBlock and commits the key. */
  async close(): Promise<void> {
    try {
      await this.#close();
    } finally {
      this.#encryptor?.destroy();
    }
  }

  async #close(): Promise<void> {
    this.#check();
    this.#closed = true;
    if (this.#ec) return this.#ec.close();
    // A key of unknown size that stayed at or below the streaming threshold goes the async way.
    this.#dataStream ??= false;
    // #check rethrows an earlier write's failure: a refused or broken key never reaches CommitKey.
    // A failover at the last block puts its unacknowledged data back in front of what is pending.
    do {
      while (this.#pendingBytes > 0)
        await this.#flushChunk(Math.min(this.#pendingBytes, this.#nextChunkBytes()));
      await this.#finishBlock();
    } while (this.#pendingBytes > 0);
    await this.#ctx.om.submit('CommitKey', {
      commitKeyRequest: commitKeyRequest(this.#session, this.#committed, this.#written),
    });
  }

  /** `hsync()`: HBase calls both; Ozone's file systems make hflush an hsync. */
  async hflush(): Promise<void> {
    return this.hsync();
  }

  /**
   * With `ozone.client.hbase.enhancements.allowed` and `ozone.fs.hsync.enabled` on (Ozone's
   * experimental HBase support): sends what is buffered as a chunk, PutBlock, waits until the
   * block's watches reach their level, then CommitKey with `hsync`, so that the OM lists the key
   * with every byte written so far while it stays open; readers that open it afterwards see them.
   * The OM must allow it too (`ozone.hbase.enhancements.allowed`, `ozone.fs.hsync.enabled`), else
   * it answers `ERR_OZONE_NOT_SUPPORTED_OPERATION` (the stream stays usable). A key with one
   * replica is refused (`ERR_OZONE_HSYNC_UNSUPPORTED`). With either client setting off it is
   * {@link flush}, as in Ozone's client.
   */
  async hsync(): Promise<void> {
    if (!canEnableHsync(this.#ctx.config)) return this.flush();
    const refusal = hsyncRefusal(this.#session.replication);
    if (refusal) throw new OzoneHsyncUnsupportedError(this.#session.key, refusal);
    this.#check();
    await this.#failing(() => this.#syncData());
    const open =
      this.#block && this.#block.writer.lengthBytes > 0 ? [this.#openBlockAsCommitted(this.#block)] : [];
    await this.#ctx.om.submit('CommitKey', {
      commitKeyRequest: commitKeyRequest(this.#session, [...this.#committed, ...open], this.#written, {
        hsync: true,
      }),
    });
  }

  /**
   * Java's `flush()`: with `ozone.client.stream.buffer.flush.delay` on (the default) and less than
   * a chunk written since the last PutBlock it does nothing; otherwise it sends what is buffered,
   * PutBlock, and waits for the block's watches. Nothing reaches the OM: a new key stays invisible
   * to readers until `close()`.
   */
  async flush(): Promise<void> {
    this.#check();
    // Ozone's EC writer has nothing to flush: every stripe is written as it fills.
    if (this.#ec) return;
    const unflushed = this.#pendingBytes + (this.#block?.writer.unflushedBytes ?? 0);
    if (flushDue(this.#ctx.config, unflushed)) await this.#failing(() => this.#syncData());
  }

  /** Hadoop's StreamCapabilities: `hflush` and `hsync` when hsync is on and the key is not EC (Ozone's CapableOzoneFSOutputStream). */
  hasCapability(capability: string): boolean {
    const name = capability.toLowerCase();
    // An EC key has neither, whatever the settings (Ozone's CapableOzoneFSOutputStream).
    return (name === 'hflush' || name === 'hsync') && canEnableHsync(this.#ctx.config) && !this.#ec;
  }

  /** Runs a step of the data path; a failure fails the stream, as a failed write does. */
  async #failing(step: () => Promise<void>): Promise<void> {
    try {
      await step();
    } catch (err) {
      this.#failed = { error: err };
      throw err;
    }
  }

  /** Sends what is buffered and waits until every byte written so far is acknowledged, moving to a new block on failover. */
  async #syncData(): Promise<void> {
    // What is synced must reach the datanodes now: a key still below the streaming threshold
    // goes the async way (Ozone's SelectorOutputStream picks its stream on hflush/hsync too).
    this.#dataStream ??= false;
    do {
      while (this.#pendingBytes > 0)
        await this.#flushChunk(Math.min(this.#pendingBytes, this.#nextChunkBytes()));
      const block = this.#block;
      if (block) {
        try {
          await block.writer.sync();
        } catch (err) {
          this.#failover(block, err, undefined);
        }
      }
    } while (this.#pendingBytes > 0);
  }

  #openBlockAsCommitted(block: OpenBlock): CommitBlock {
    return {
      ref: { ...block.ref, blockCommitSequenceId: block.writer.blockCommitSequenceId },
      lengthBytes: block.writer.lengthBytes,
    };
  }

  #check(): void {
    if (this.#closed) throw new OzoneClosedError('the key output stream');
    if (this.#failed !== undefined) throw this.#failed.error;
  }

  /** The size of the next chunk: a whole chunk (a streamed key's is one packet), or what is left of the current block. */
  #nextChunkBytes(): number {
    const inBlock = this.#block
      ? this.#layout.blockSizeBytes - this.#block.writer.lengthBytes
      : this.#layout.blockSizeBytes;
    const chunk = this.#dataStream ? this.#ctx.config.dataStreamPacketBytes : this.#layout.chunkSizeBytes;
    return Math.min(chunk, inBlock);
  }

  /**
   * Copies `data` into the fill buffer, starting a new one (or growing a small one) when it is full.
   * With a native engine, large pieces bound for a whole chunk's buffer are copied on its threads
   * (see {@link #copies}); a small buffer, which a later write may grow by copying it, never is.
   */
  #append(data: Uint8Array): void {
    const copyAsync = this.#ctx.bulk.copyAsync;
    let at = 0;
    while (at < data.length) {
      let fill = this.#fill;
      if (!fill || fill.to === fill.buffer.length) fill = this.#newFill(data.length - at);
      const n = Math.min(data.length - at, fill.buffer.length - fill.to);
      const piece = data.subarray(at, at + n);
      if (copyAsync && n >= NATIVE_COPY_MIN_BYTES && fill.buffer.length === this.#nextChunkBytes())
        this.#copies.push(copyAsync(piece, fill.buffer, fill.to));
      else fill.buffer.set(piece, fill.to);
      const view = fill.buffer.subarray(fill.from, fill.to + n);
      // The untaken part of the fill buffer is the last pending entry (none when it is all taken).
      if (fill.to > fill.from) this.#pending[this.#pending.length - 1] = view;
      else this.#pending.push(view);
      fill.to += n;
      at += n;
      this.#pendingBytes += n;
    }
  }

  /** Waits for the copies {@link #append} left running; the first failure is thrown once all have settled. */
  async #settleCopies(): Promise<void> {
    if (this.#copies.length === 0) return;
    const copies = this.#copies;
    this.#copies = [];
    const failed = (await Promise.allSettled(copies)).find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /**
   * A fill buffer that ends where the chunk being gathered ends, or sooner: at the key's expected
   * end (CreateKey's size), or at least 64 KiB past `incoming` when the size is unknown. A full
   * small one holding all that is pending, that more data follows, grows to the chunk's end (its
   * bytes copied once more, at most what fit in it).
   */
  #newFill(incoming: number): { buffer: Buffer; from: number; to: number } {
    const chunk = this.#nextChunkBytes();
    const last = this.#fill;
    if (last && last.from === 0 && last.buffer.length < chunk && this.#pendingBytes === last.to) {
      const grown = { buffer: Buffer.allocUnsafe(chunk), from: 0, to: last.to };
      grown.buffer.set(last.buffer.subarray(0, last.to), 0);
      this.#pending[this.#pending.length - 1] = grown.buffer.subarray(0, last.to);
      this.#fill = grown;
      return grown;
    }
    const chunkLeft = chunk - (this.#pendingBytes % chunk);
    const expectedLeft = this.#session.expectedBytes - this.bytesWritten;
    const wanted = Math.max(incoming, expectedLeft > 0 ? expectedLeft : 0, MIN_FILL_BYTES);
    const size = Math.min(chunkLeft, wanted);
    // A whole chunk's buffer comes from (and, acknowledged, goes back to) the client's pool.
    const buffer = size === chunk ? this.#ctx.chunkBuffers.take(size) : Buffer.allocUnsafe(size);
    const fill = { buffer, from: 0, to: 0 };
    this.#fill = fill;
    return fill;
  }

  /** The first `n` pending bytes: a view when they lie in one buffer (a chunk gathered whole), else joined. */
  #take(n: number): Buffer {
    const first = this.#pending[0] as Buffer;
    const fill = this.#fill;
    if (first.length >= n) {
      // By the invariant, a lone pending entry with untaken fill bytes is the fill buffer's.
      if (fill && fill.to > fill.from && this.#pending.length === 1) fill.from += n;
      if (first.length > n) this.#pending[0] = first.subarray(n);
      else this.#pending.shift();
      this.#pendingBytes -= n;
      return first.subarray(0, n);
    }
    const all = Buffer.concat(this.#pending);
    const rest = all.subarray(n);
    this.#pending = rest.length > 0 ? [rest] : [];
    this.#pendingBytes = rest.length;
    // The fill buffer's bytes were joined: later writes start a new one.
    this.#fill = undefined;
    return all.subarray(0, n);
  }

  async #flushChunk(n: number): Promise<void> {
    await this.#settleCopies();
    const block = await this.#currentBlock();
    const data = this.#take(n);
    block.chunks++;
    const chunk: hadoop.hdds.datanode.IChunkInfo = {
      chunkName: `${block.ref.localId}_chunk_${block.chunks}`,
      offset: uint64(block.writer.lengthBytes),
      len: uint64(data.length),
      checksumData: {
        type: CHECKSUM_TYPE_VALUES[this.#layout.checksumType],
        bytesPerChecksum: this.#layout.bytesPerChecksum,
        checksums: computeChecksums(
          this.#layout.checksumType,
          this.#layout.bytesPerChecksum,
          data,
          this.#ctx.bulk.crc,
        ),
      },
    };
    try {
      await block.writer.writeChunk(chunk, data);
    } catch (err) {
      this.#failover(block, err, data);
      return;
    }
    this.#written += data.length;
    if (block.writer.lengthBytes >= this.#layout.blockSizeBytes) await this.#finishBlock();
  }

  async #currentBlock(): Promise<OpenBlock> {
    if (this.#block) return this.#block;
    const location =
      this.#session.preallocated.shift() ??
      (await allocateBlock(this.#ctx.om, this.#session, this.#layout.blockSizeBytes, this.#exclude));
    const ref: BlockRef = {
      containerId: toBigInt(location.blockID.containerBlockID.containerID),
      localId: toBigInt(location.blockID.containerBlockID.localID),
      blockCommitSequenceId: toBigInt(location.blockID.blockCommitSequenceId),
      encodedToken: encodedBlockToken(location),
    };
    const from = this.#ctx.om.address;
    const datanodes = pipelineDatanodes(location.pipeline, from);
    const pipeline = location.pipeline as hadoop.hdds.IPipeline;
    const group = pipelineRaftGroup(pipeline, from);
    const raft = this.#ctx.raft.client(group);
    let writer: BlockWriter;
    if (this.#dataStream) {
      // Java refuses such a pipeline before opening a stream (HDDS-12992); so does this, before
      // anything is sent.
      const missing = group.peers.find((p) => p.dataStreamAddress === undefined);
      if (missing)
        throw new OzoneDataStreamUnavailableError(
          `datanode ${missing.id} of pipeline ${group.groupId} lists no RATIS_DATASTREAM port (its datanodes need hdds.container.ratis.datastream.enabled)`,
        );
      writer = new DataStreamBlockWriter(
        raft,
        ref,
        datanodes.map((d) => d.uuid),
        this.#ctx.config,
        this.#releaseChunk,
      );
    } else {
      writer = new RatisBlockWriter(
        raft,
        ref,
        (datanodes[0] as { uuid: string }).uuid,
        this.#ctx.config,
        this.#releaseChunk,
      );
    }
    const block: OpenBlock = {
      ref,
      pipelineId: group.groupId,
      writer,
      chunks: 0,
      offsetInKey: this.#written,
    };
    this.#block = block;
    return block;
  }

  async #finishBlock(): Promise<void> {
    const block = this.#block;
    if (!block) return;
    this.#block = undefined;
    let blockCommitSequenceId: bigint;
    try {
      blockCommitSequenceId = await block.writer.finish();
    } catch (err) {
      this.#failover(block, err, undefined);
      return;
    }
    if (block.writer.lengthBytes === 0) return;
    this.#committed.push({
      ref: { ...block.ref, blockCommitSequenceId },
      offsetInKey: block.offsetInKey,
      lengthBytes: block.writer.lengthBytes,
    });
  }

  /**
   * Java's KeyOutputStream on a pipeline or container failure: the part of the block a watched
   * PutBlock covers is kept (committed with that PutBlock's BCSID), the rest goes back in front
   * of the pending data, and the next block is allocated with the failed container (or
   * pipeline) excluded. Other failures, and a key past `ozone.client.max.retries`, fail the key.
   */
  #failover(block: OpenBlock, error: unknown, unsent: Buffer | undefined): void {
    const kind = writeFailureKind(error);
    if (kind === undefined || this.#retries >= this.#ctx.config.writeMaxRetries) throw error;
    this.#retries++;
    this.#block = undefined;
    block.writer.abandon();
    const kept = block.writer.acknowledgedBytes;
    if (kept > 0)
      this.#committed.push({
        ref: { ...block.ref, blockCommitSequenceId: block.writer.acknowledgedBlockCommitSequenceId },
        offsetInKey: block.offsetInKey,
        lengthBytes: kept,
      });
    const again = [block.writer.unacknowledgedData(), ...(unsent ? [unsent] : [])].filter(
      (b) => b.length > 0,
    );
    this.#pending = [...again, ...this.#pending];
    this.#pendingBytes += again.reduce((n, b) => n + b.length, 0);
    this.#written = block.offsetInKey + kept;
    if (kind === 'container') this.#exclude.containerIds.add(block.ref.containerId);
    else this.#exclude.pipelineIds.add(block.pipelineId);
    // Blocks the OM allocated up front may sit in the same container or pipeline.
    this.#session.preallocated.length = 0;
  }
}
