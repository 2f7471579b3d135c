import { setTimeout as sleep } from 'node:timers/promises';
import { encodedBlockToken, isBlockTokenRefusal } from './internal/block-token.js';
import { FastpathError } from '@fastpath/core';
import {
  ChecksumMismatchError,
  OzoneClosedError,
  OzoneError,
  OzoneInvalidArgumentError,
  OzoneProtocolError,
  ReplicasExhaustedError,
  ShortCircuitError,
  ShortReadError,
  type ChunkLocation,
} from './ozone-errors.js';
import {
  checksumTypeName,
  computeChecksumBoundaries,
  copyFromParts,
  findChecksumMismatchInParts,
} from './internal/checksum.js';
import type { KeyDecryptor } from './internal/crypto/key-decryptor.js';
import type { ReadContext } from './internal/read-context.js';
import type { ReadWorkerPool, WorkerKeyStream } from './internal/workers/read-worker-pool.js';
import {
  encodeRequest,
  getBlockRequest,
  readBlockRequest,
  readChunkRequest,
  type BlockRef,
} from './internal/block-requests.js';
import { BlockStreamReader } from './internal/block-stream-reader.js';
import {
  positionalReadBlockPays,
  readBlockFallback,
  readBlockRange,
  STREAMING_BYTES_PER_CHUNK,
  type ReadBlockFallback,
} from './internal/read-block-plan.js';
import { pipelineDatanodes, type DatanodeAddress } from './internal/pipeline.js';
import { EcBlockGroupReader, replicaNodes, type InternalBlock } from './internal/ec/ec-block-group-reader.js';
import type { EcBlockGroupLayout } from './internal/ec/ec-stripe-layout.js';
import { replicationFromProto } from './internal/replication.js';
import { orderReplicas } from './internal/replica-order.js';
import type { LocalBlockFile } from './internal/short-circuit/local-block-file.js';
import { hdds, toBigInt, toNumber, type hadoop } from './internal/proto/wire.js';
import type { ChunkInfoView } from './internal/proto/decode-container-answer.js';
import type { ReceivedAnswer } from './internal/grpc/datanode-channel.js';

/** One block of a key as the OM lists it. */
export interface KeyBlockLocation {
  /** The container holding the block (`BlockID.containerID`). */
  containerId: bigint;
  /** The block's id inside its container (`BlockID.localID`). */
  localId: bigint;
  /**
   * The block's commit sequence id (BCSID) as the OM recorded it at commit; GetBlock sends it so
   * that a replica that has not applied the committed data is refused.
   */
  blockCommitSequenceId: bigint;
  /** Offset of the block within the key, in bytes. */
  offsetInKey: number;
  /** Bytes of the key in this block. */
  lengthBytes: number;
  /** The replicas: the block's pipeline members in the pipeline's order (the client picks the order it tries them in). */
  datanodes: readonly DatanodeAddress[];
  /** The block token every command on the block carries (`hdds.block.token.enabled`); `undefined` when the OM sent none. */
  encodedToken?: string | undefined;
  /**
   * For a block group of an erasure-coded key: its EC config and the replica index (1..d+p) of
   * each of `datanodes` (Pipeline.memberReplicaIndexes; an index may be missing or repeated).
   */
  ec?: EcBlockGroupLayout | undefined;
  /** For one internal block of an EC block group: its replica index, sent with every command on it. */
  replicaIndex?: number | undefined;
}

/**
 * Looks the stream's key up again at the OM: its blocks with their current replicas and new block
 * tokens. Ozone's RpcClient hands its key readers the same lookup (`getKeyInfo`, the OM told to
 * refresh its container cache) for when a datanode refuses a block command.
 */
export type KeyLocationLookup = () => Promise<readonly KeyBlockLocation[]>;

/** The block token a datanode refused, and the block it was for. */
export interface RefusedBlockToken {
  containerId: bigint;
  localId: bigint;
  /** The token refused (`undefined`: the command carried none). */
  token: string | undefined;
}

/**
 * Where a stream's new block tokens come from when a datanode refuses one: the OM (`lookup`, on the
 * caller's thread, counted in `locationRefreshes`), or, for a read worker's copy of a stream, the
 * stream on the caller's thread (`ask`), which looks the key up there once for all its copies.
 */
export type BlockTokenSource =
  | { lookup: KeyLocationLookup }
  | { ask: (refused: RefusedBlockToken) => Promise<readonly KeyBlockLocation[]> };

interface ChunkEntry {
  info: ChunkInfoView;
  /** Offset of the chunk within the block, in bytes (cumulative chunk lengths, as Java maps reads). */
  start: number;
  length: number;
}

/** A widened, verified window kept after a read that used only part of it (ChunkInputStream's buffers). */
interface CachedWindow {
  /** Offset of the window within its chunk. */
  offset: number;
  /** Its bytes, in pieces as they were received (a read copies from them; no joined copy is made). */
  parts: readonly Uint8Array[];
  length: number;
  /**
   * Hands the received answer `parts` are views of back to its pool, once the window is dropped
   * (a read-ahead window per MiB read would otherwise cost a new buffer per MiB).
   */
  release?: (() => void) | undefined;
}

/** Most bytes of widened windows a stream keeps (one window per chunk, oldest dropped first). */
export const DEFAULT_WINDOW_CACHE_BYTES = 8 * 1024 * 1024;

/** A replica whose data did not match its checksums, as the stream reports it. */
export interface BadReplicaReport {
  /** The UUID of the datanode whose replica is corrupt. */
  datanodeUuid: string;
  /** The datanode's `ip:port` (STANDALONE port). */
  address: string;
  /** The block, chunk and offset in the chunk of the checksum window that did not match. */
  location: ChunkLocation;
}

interface BlockState {
  location: KeyBlockLocation;
  chunks?: Promise<ChunkEntry[]> | undefined;
  preferredUuid?: string;
  /** The block file a local datanode passed (short-circuit), while its reads succeed. */
  local?: { file: LocalBlockFile; datanode: DatanodeAddress } | undefined;
  /** With ReadBlock on: whether the block is streamed, or why not; decided once its chunks are known. */
  streaming?: ReadBlockFallback | 'yes' | undefined;
  /** The ReadBlock stream an earlier read left with bytes still to come (a sequential read's pre-read). */
  stream?: { reader: BlockStreamReader; datanode: DatanodeAddress } | undefined;
  /** An erasure-coded block group's reader, opened by its first read. */
  ec?: EcBlockGroupReader | undefined;
}

/** What a read asked the datanodes for, per chunk request (for tests and metrics). */
export interface KeyInputStreamStats {
  /** Bytes received from datanodes (after widening to checksum windows). */
  bytesFetched: number;
  /** Bytes checksummed. */
  bytesVerified: number;
  /** `ReadChunk` calls sent to datanodes (one per chunk range, per replica tried). */
  readChunkCalls: number;
  /** `GetBlock` calls sent (one per block the stream reads, per replica tried), over gRPC or a domain socket. */
  getBlockCalls: number;
  /** Replica attempts that failed and were failed over. */
  failovers: number;
  /** Bytes served from a cached widened window without a datanode call. */
  bytesFromCache: number;
  /** GetBlock calls answered over a datanode's domain socket with the block file (counted in getBlockCalls too). */
  shortCircuitGetBlocks: number;
  /** Chunk ranges read from a passed block file (instead of ReadChunk). */
  shortCircuitReads: number;
  /** Bytes read from passed block files (counted in bytesFetched too). */
  bytesReadShortCircuit: number;
  /** Short-circuit failures that sent a read to gRPC (and disabled short-circuit for that datanode). */
  shortCircuitFallbacks: number;
  /** Streaming `ReadBlock` requests sent (one per stream, per replica tried). */
  readBlockCalls: number;
  /** ReadBlock pieces received and accepted. */
  readBlockPieces: number;
  /** Bytes received in ReadBlock pieces (counted in bytesFetched too). */
  bytesStreamed: number;
  /** Blocks read with ReadChunk although ReadBlock is on (uneven chunks, an empty block, a datanode older than version 3). */
  readBlockFallbacks: number;
  /** Erasure-coded stripes (or the parts of them a read needed) rebuilt from parity because a data replica was missing or failed. */
  ecStripesRebuilt: number;
  /** Key bytes delivered from rebuilt cells (counted once, when decoded). */
  ecBytesRebuilt: number;
  /**
   * Times the stream looked its key up again at the OM because a datanode refused a block token
   * (at most one per read of a block; concurrent refusals share one). With read workers, this
   * stream looks up for their copies of it: one lookup for all the workers refused meanwhile.
   */
  locationRefreshes: number;
}

/** What a stream is opened with besides its key. */
export interface KeyInputStreamOptions {
  /** Most bytes of widened windows kept (default {@link DEFAULT_WINDOW_CACHE_BYTES}). */
  windowCacheBytes?: number | undefined;
  /** Read worker threads to send the stream's reads to. */
  workers?: ReadWorkerPool | undefined;
  /** An encrypted key's data key. */
  decryptor?: KeyDecryptor | undefined;
  /** Where new block tokens come from when a datanode refuses one. */
  tokenSource?: BlockTokenSource | undefined;
  /**
   * The stream this one reads a part of for (an erasure-coded group's replica streams): its
   * counters and bad-replica list are updated in place instead of the stream's own.
   */
  sharedWith?: { stats: KeyInputStreamStats; badReplicas: BadReplicaReport[] } | undefined;
}

function emptyStats(): KeyInputStreamStats {
  return {
    bytesFetched: 0,
    bytesVerified: 0,
    readChunkCalls: 0,
    getBlockCalls: 0,
    failovers: 0,
    bytesFromCache: 0,
    shortCircuitGetBlocks: 0,
    shortCircuitReads: 0,
    bytesReadShortCircuit: 0,
    shortCircuitFallbacks: 0,
    readBlockCalls: 0,
    readBlockPieces: 0,
    bytesStreamed: 0,
    readBlockFallbacks: 0,
    ecStripesRebuilt: 0,
    ecBytesRebuilt: 0,
    locationRefreshes: 0,
  };
}

/**
 * Positional reads of one key (the KeyInputStream/BlockInputStream/ChunkInputStream analogue):
 * GetBlock once per block, ReadChunk V1 per chunk range widened to checksum windows when
 * verification is on, verified per window, and the next replica tried when one fails. It keeps no
 * cursor, so concurrent reads on one stream do not interfere. `verifyChecksum` is captured at
 * open and kept for the stream's life. With `ozone.client.stream.readblock.enable`, a read that
 * starts where the last one ended (and a positional read of at least
 * `ozone.client.stream.readblock.positional.min.size`) is one streaming ReadBlock per block instead,
 * where the block allows it.
 */
export class KeyInputStream {
  /** The key's length in bytes (`KeyInfo.dataSize` when opened); reads stop there. */
  readonly lengthBytes: number;
  /** Whether reads verify checksums: the `verifyChecksum` given to `openKey`, else `ozone.client.verify.checksum`. Fixed for the stream's life. */
  readonly verifyChecksum: boolean;
  /** What this stream's reads did, counted since it was opened (updated in place; with read workers, as they report). */
  readonly stats: KeyInputStreamStats;
  /** Replicas found corrupt by this stream's reads, in the order found. */
  readonly badReplicas: BadReplicaReport[];
  readonly #blocks: BlockState[];
  readonly #ctx: ReadContext;
  readonly #windowCacheBytes: number;
  /** With read worker threads: where this stream's reads go (each worker has its own copy of the stream). */
  readonly #workers: WorkerKeyStream | undefined;
  /** Widened windows by chunk (Map order = age); total bytes in #cachedBytes. */
  readonly #windows = new Map<ChunkEntry, CachedWindow>();
  #cachedBytes = 0;
  #closed = false;
  /** Where the last read ended in the key: a read that starts there is sequential. */
  #lastEnd = 0;
  /** Whether a read has ended at `#lastEnd` (ReadChunk's read-ahead waits for a second read in line). */
  #readBefore = false;
  /** An encrypted key's data key: reads fetch ciphertext (checked against its checksums) and decrypt it last. */
  readonly #decryptor: KeyDecryptor | undefined;
  /** Where new block tokens come from when a datanode refuses one; none: a refusal fails the replica, as before. */
  readonly #tokenSource: BlockTokenSource | undefined;
  /** The lookup in flight, which every read refused meanwhile waits for instead of asking again. */
  #refreshing: Promise<void> | undefined;

  /** @internal built by OzoneClient#openKey */
  constructor(
    ctx: ReadContext,
    blocks: readonly KeyBlockLocation[],
    lengthBytes: number,
    verifyChecksum: boolean,
    options: KeyInputStreamOptions = {},
  ) {
    const { workers, decryptor, tokenSource } = options;
    this.#ctx = ctx;
    this.#decryptor = decryptor;
    this.#tokenSource = tokenSource;
    this.#blocks = blocks.map((location) => ({ location }));
    this.lengthBytes = lengthBytes;
    this.verifyChecksum = verifyChecksum;
    this.#windowCacheBytes = options.windowCacheBytes ?? DEFAULT_WINDOW_CACHE_BYTES;
    this.stats = options.sharedWith?.stats ?? emptyStats();
    this.badReplicas = options.sharedWith?.badReplicas ?? [];
    this.#workers = workers?.openStream(
      { blocks, lengthBytes, verifyChecksum, windowCacheBytes: this.#windowCacheBytes },
      {
        stats: this.stats,
        badReplicas: this.badReplicas,
        renewedBlocks: (refused) => this.#renewedBlocks(refused),
      },
    );
  }

  /** Bytes of widened windows held now (with read workers: by their copies of the stream, as last reported). */
  get cachedBytes(): number {
    if (this.#workers) return this.#workers.cachedBytes;
    let n = this.#cachedBytes;
    for (const b of this.#blocks) n += b.ec?.cachedBytes ?? 0;
    return n;
  }

  /** Drops every cached window and ends the ReadBlock streams left open (Hadoop's `unbuffer`); the stream stays open. */
  unbuffer(): void {
    for (const chunk of [...this.#windows.keys()]) this.#dropWindow(chunk);
    for (const b of this.#blocks) {
      b.stream?.reader.close();
      b.stream = undefined;
      b.ec?.unbuffer();
    }
    this.#workers?.unbuffer();
  }

  #dropWindow(chunk: ChunkEntry): void {
    const w = this.#windows.get(chunk);
    if (!w) return;
    this.#windows.delete(chunk);
    this.#cachedBytes -= w.length;
    w.release?.();
  }

  /** Serves the read from the chunk's cached window when it covers it; releases a window once its last byte is read. */
  #fromWindow(
    chunk: ChunkEntry,
    start: number,
    length: number,
    target: Uint8Array,
    targetOffset: number,
  ): boolean {
    const w = this.#windows.get(chunk);
    if (!w || start < w.offset || start + length > w.offset + w.length) return false;
    copyFromParts(w.parts, start - w.offset, length, target, targetOffset);
    this.stats.bytesFromCache += length;
    if (start + length === w.offset + w.length) this.#dropWindow(chunk);
    return true;
  }

  /**
   * Keeps the part of a widened window after the read, so the next sequential read needs no call.
   * Whether it kept a view of `parts`: their memory is then handed back for reuse by `release`
   * when the window is dropped, not before.
   */
  #keepWindow(
    chunk: ChunkEntry,
    offset: number,
    parts: readonly Uint8Array[],
    consumedTo: number,
    release: (() => void) | undefined,
  ): boolean {
    this.#dropWindow(chunk);
    const size = parts.reduce((n, p) => n + p.length, 0);
    if (consumedTo >= offset + size || size > this.#windowCacheBytes) return false;
    const kept = keepable(parts, size);
    const view = kept === parts;
    this.#windows.set(chunk, { offset, parts: kept, length: size, release: view ? release : undefined });
    this.#cachedBytes += size;
    for (const [oldest] of this.#windows) {
      if (this.#cachedBytes <= this.#windowCacheBytes) break;
      this.#dropWindow(oldest);
    }
    // The loop drops older windows only: this one alone fits the bound (checked above).
    return view;
  }

  /** The key's blocks, in key order. */
  get blocks(): readonly KeyBlockLocation[] {
    return this.#blocks.map((b) => b.location);
  }

  /** Reads exactly `length` bytes at `position`; throws when the range passes the end of the key. */
  async readFully(position: number, length: number): Promise<Buffer> {
    const out = Buffer.allocUnsafe(length);
    const n = await this.read(position, out, 0, length);
    if (n !== length)
      throw new OzoneInvalidArgumentError(
        `read of ${length} bytes at ${position} passes the end of the key (${this.lengthBytes} bytes)`,
      );
    return out;
  }

  /** Reads up to `length` bytes at `position` into `target[offset…]`; returns the count (0 at the end). */
  async read(position: number, target: Uint8Array, offset: number, length: number): Promise<number> {
    if (this.#closed) throw new OzoneClosedError('the key input stream');
    if (!Number.isSafeInteger(position) || position < 0)
      throw new OzoneInvalidArgumentError(`position must be a non-negative integer, got ${position}`);
    if (
      !Number.isSafeInteger(length) ||
      length < 0 ||
      !Number.isSafeInteger(offset) ||
      offset < 0 ||
      offset + length > target.length
    ) {
      throw new OzoneInvalidArgumentError(
        `offset ${offset} and length ${length} do not fit a buffer of ${target.length} bytes`,
      );
    }
    const end = Math.min(position + length, this.lengthBytes);
    if (end <= position) return 0;
    await this.#readRaw(position, target, offset, end);
    if (this.#decryptor) {
      // A close while the read was out zeroed the key: the bytes stay ciphertext and the read fails.
      if (this.#closed) throw new OzoneClosedError('the key input stream');
      this.#decryptor.decryptInPlace(position, target.subarray(offset, offset + (end - position)));
    }
    return end - position;
  }

  /** The key's bytes [position, end) as stored (ciphertext for an encrypted key) into `target[offset…]`. */
  async #readRaw(position: number, target: Uint8Array, offset: number, end: number): Promise<void> {
    if (this.#workers) {
      await this.#workers.read(position, target, offset, end - position);
      return;
    }
    const sequential = position === this.#lastEnd;
    // A read that continues the one before it (not merely the first read at 0) reads ahead on
    // ReadChunk: a stream read front to back then costs a datanode call per read-ahead, not per read.
    const readAhead = sequential && this.#readBefore ? this.#readAheadBytes : 0;
    this.#lastEnd = end;
    this.#readBefore = true;
    const work: Promise<void>[] = [];
    for (const block of this.#blocks) {
      const bStart = block.location.offsetInKey;
      const bEnd = bStart + block.location.lengthBytes;
      if (bEnd <= position || bStart >= end) continue;
      const from = Math.max(position, bStart);
      const to = Math.min(end, bEnd);
      if (block.location.ec) {
        work.push(this.#ecGroup(block).read(from - bStart, to - from, target, offset + (from - position)));
        continue;
      }
      work.push(
        this.#readBlock(block, from - bStart, to - from, target, offset + (from - position), sequential, {
          readAhead: to === end ? readAhead : 0,
        }),
      );
    }
    await Promise.all(work);
  }

  /**
   * The reader of an erasure-coded block group: each internal block is read by a stream of its
   * own (this stream's verification, counters and token refreshes; a share of its window cache).
   */
  #ecGroup(block: BlockState): EcBlockGroupReader {
    const layout = block.location.ec as EcBlockGroupLayout;
    const width = layout.config.data + layout.config.parity;
    block.ec ??= new EcBlockGroupReader({
      name: `${block.location.containerId}/${block.location.localId}`,
      layout,
      datanodes: block.location.datanodes,
      lengthBytes: block.location.lengthBytes,
      onRebuilt: (bytes) => {
        this.stats.ecStripesRebuilt++;
        this.stats.ecBytesRebuilt += bytes;
      },
      openReplica: (internal) =>
        new KeyInputStream(
          this.#ctx,
          [internalBlockLocation(block.location, internal)],
          internal.lengthBytes,
          this.verifyChecksum,
          {
            windowCacheBytes: Math.floor(this.#windowCacheBytes / width),
            sharedWith: { stats: this.stats, badReplicas: this.badReplicas },
            // A refused token renews the whole key's (the group's); the replica takes its part.
            tokenSource: this.#tokenSource && {
              ask: async (refused) => {
                if (this.#closed) throw new OzoneClosedError('the key input stream');
                if (block.location.encodedToken === refused.token) await this.#refresh(block, refused.token);
                const datanodes = replicaNodes(layout, block.location.datanodes, internal.replicaIndex);
                return [internalBlockLocation(block.location, { ...internal, datanodes })];
              },
            },
          },
        ),
    });
    return block.ec;
  }

  async #readBlock(
    block: BlockState,
    startInBlock: number,
    length: number,
    target: Uint8Array,
    targetOffset: number,
    sequential: boolean,
    { readAhead }: { readAhead: number },
  ): Promise<void> {
    const chunks = await this.#chunks(block);
    const known = chunks.reduce((n, c) => n + c.length, 0);
    if (known < startInBlock + length) {
      throw new OzoneProtocolError(
        block.location.datanodes[0]?.address ?? 'datanode',
        `block ${block.location.containerId}/${block.location.localId} has ${known} bytes in its chunks, the OM lists ${block.location.lengthBytes}`,
      );
    }
    if (
      !block.local &&
      (sequential || this.#streamsPositional(chunks, startInBlock, length, known)) &&
      this.#streamable(block, chunks)
    )
      return this.#streamRead(block, chunks, known, startInBlock, length, target, targetOffset, sequential);
    const end = startInBlock + length;
    const work: Promise<void>[] = [];
    for (const chunk of chunks) {
      const cEnd = chunk.start + chunk.length;
      if (cEnd <= startInBlock || chunk.start >= end) continue;
      const from = Math.max(startInBlock, chunk.start);
      const to = Math.min(end, cEnd);
      work.push(
        this.#readChunk(
          block,
          chunk,
          from - chunk.start,
          to - from,
          target,
          targetOffset + (from - startInBlock),
          to === end ? readAhead : 0,
        ),
      );
    }
    await Promise.all(work);
  }

  /** ReadChunk's read-ahead for a read that continues the last: never more than the window cache holds. */
  get #readAheadBytes(): number {
    return Math.min(this.#ctx.config.readChunkReadAheadBytes, this.#windowCacheBytes);
  }

  /**
   * Whether a positional read is streamed: at least `ozone.client.stream.readblock.positional.min.size`
   * bytes (0: every read, whatever it fetches), and not fetching much more than ReadChunk would.
   */
  #streamsPositional(chunks: readonly ChunkEntry[], start: number, length: number, known: number): boolean {
    const min = this.#ctx.config.streamReadBlockPositionalMinBytes;
    if (length < min) return false;
    if (min === 0) return true;
    const cd = chunks[0]?.info.checksumData;
    if (!cd) return false;
    const none = checksumTypeName(cd.type) === 'NONE';
    const windowBytes = none ? STREAMING_BYTES_PER_CHUNK : cd.bytesPerChecksum;
    return positionalReadBlockPays(start, length, known, windowBytes, this.verifyChecksum && !none);
  }

  /** Whether ReadBlock is on and the block may be streamed; a block that may not is counted once. */
  #streamable(block: BlockState, chunks: readonly ChunkEntry[]): boolean {
    if (!this.#ctx.config.streamReadBlockEnabled) return false;
    // An unknown checksum type: ReadChunk's path refuses it (or reads it unverified).
    if (chunks[0] && checksumTypeName(chunks[0].info.checksumData.type) === undefined) return false;
    if (block.streaming === undefined) {
      const fallback = readBlockFallback(
        chunks.map((c) => ({ offset: c.info.offset, len: c.length, checksumData: c.info.checksumData })),
        block.location.datanodes,
      );
      if (fallback) this.stats.readBlockFallbacks++;
      block.streaming = fallback ?? 'yes';
    }
    return block.streaming === 'yes';
  }

  /**
   * Block bytes [start, start + length) from a streaming ReadBlock: from the stream an earlier
   * sequential read left open when it holds them, else from a new one on the first replica that
   * serves it. A sequential read asks `ozone.client.stream.read.pre-read-size` bytes more (never
   * past the block's end) and leaves the stream for the next read.
   */
  async #streamRead(
    block: BlockState,
    chunks: readonly ChunkEntry[],
    known: number,
    start: number,
    length: number,
    target: Uint8Array,
    targetOffset: number,
    sequential: boolean,
  ): Promise<void> {
    const config = this.#ctx.config;
    const cd = (chunks[0] as ChunkEntry).info.checksumData;
    const type = checksumTypeName(cd.type) ?? 'NONE';
    const windowBytes = type === 'NONE' ? STREAMING_BYTES_PER_CHUNK : cd.bytesPerChecksum;
    const failures: Error[] = [];
    let skipUuid: string | undefined;
    const held = block.stream;
    block.stream = undefined;
    if (held?.reader.canServe(start, length)) {
      try {
        await held.reader.read(start, target, targetOffset, length);
        this.#keepStream(block, held);
        return;
      } catch (err) {
        held.reader.close();
        if (!(err instanceof OzoneError)) throw err;
        this.#streamFailed(held.datanode, err);
        this.stats.failovers++;
        failures.push(err);
        skipUuid = held.datanode.uuid;
      }
    } else held?.reader.close();
    const want = sequential ? length + config.streamReadPreReadSizeBytes : length;
    const range = readBlockRange(start, want, known, windowBytes, config.streamReadResponseDataSizeBytes);
    // start + length ≤ known was checked: there is always something to ask for.
    if (!range) throw new OzoneInvalidArgumentError(`nothing to stream at ${start} of ${known} bytes`);
    await this.#withReplicas(
      block,
      'ReadBlock',
      async (dn) => {
        this.stats.readBlockCalls++;
        const reader = new BlockStreamReader(this.#ctx.datanodes.channel(dn.address).openStream(), {
          address: dn.address,
          request: encodeRequest(
            readBlockRequest(this.#ref(block), range.offset, range.length, range.responseDataSize, dn.uuid),
          ),
          range,
          checksumType: type,
          bytesPerChecksum: cd.bytesPerChecksum,
          verify: this.verifyChecksum,
          crc: this.#ctx.bulk.crc,
          pieceTimeoutMs: config.streamReadTimeoutMs,
          locate: (at) => this.#locate(block, chunks, at),
          onPiece: (bytes) => {
            this.stats.readBlockPieces++;
            this.stats.bytesStreamed += bytes;
            this.stats.bytesFetched += bytes;
            if (this.verifyChecksum && type !== 'NONE') this.stats.bytesVerified += bytes;
          },
        });
        try {
          await reader.read(start, target, targetOffset, length);
        } catch (err) {
          reader.close();
          if (err instanceof OzoneError) this.#streamFailed(dn, err);
          throw err;
        }
        this.#keepStream(block, { reader, datanode: dn });
      },
      { skipUuid, failures },
    );
  }

  /** Leaves a stream with bytes still to come for the block's next read, unless one is left already. */
  #keepStream(block: BlockState, stream: { reader: BlockStreamReader; datanode: DatanodeAddress }): void {
    if (this.#closed || stream.reader.drained || block.stream !== undefined) stream.reader.close();
    else block.stream = stream;
  }

  /** A replica whose stream failed a checksum is reported, as ReadChunk's are. */
  #streamFailed(datanode: DatanodeAddress, err: OzoneError): void {
    if (err instanceof ChecksumMismatchError)
      this.badReplicas.push({
        datanodeUuid: datanode.uuid,
        address: datanode.address,
        location: err.location,
      });
  }

  /** The chunk holding a block offset, for a checksum error found in a ReadBlock piece. */
  #locate(block: BlockState, chunks: readonly ChunkEntry[], at: number): ChunkLocation {
    const chunk = chunks.find((c) => at >= c.start && at < c.start + c.length) ?? chunks[chunks.length - 1];
    return {
      containerId: block.location.containerId,
      localId: block.location.localId,
      chunkName: chunk?.info.chunkName ?? '',
      offsetInChunk: at - (chunk?.start ?? 0),
    };
  }

  #chunks(block: BlockState): Promise<ChunkEntry[]> {
    if (!block.chunks) {
      block.chunks = this.#getBlock(block);
      // A failed GetBlock is not cached: the next read asks again.
      block.chunks.catch(() => (block.chunks = undefined));
    }
    return block.chunks;
  }

  /** GetBlock: over a local datanode's domain socket when short-circuit is on (keeping the block file), else over gRPC. */
  async #getBlock(block: BlockState): Promise<ChunkEntry[]> {
    const sc = this.#ctx.shortCircuit;
    const target = sc?.target(orderReplicas(block.location.datanodes, block.preferredUuid));
    if (sc && target) {
      try {
        this.stats.getBlockCalls++;
        const { blockData, file } = await sc.getBlock(
          target,
          this.#ref(block),
          this.#ctx.config.readTimeoutMs,
        );
        if (this.#closed) {
          file.release();
          throw new OzoneClosedError('the key input stream');
        }
        this.stats.shortCircuitGetBlocks++;
        block.local = { file, datanode: target.datanode };
        block.preferredUuid = target.datanode.uuid;
        return chunkEntries(blockData);
      } catch (err) {
        if (!(err instanceof ShortCircuitError)) throw err;
        this.#shortCircuitFailed(target.datanode, err);
      }
    }
    return this.#withReplicas(block, 'GetBlock', async (dn) => {
      this.stats.getBlockCalls++;
      const r = await this.#ctx.datanodes
        .channel(dn.address)
        .read(getBlockRequest(this.#ref(block), dn.uuid), this.#ctx.config.readTimeoutMs);
      if (!r.getBlock) throw new OzoneProtocolError(dn.address, 'GetBlock answered without a getBlock body');
      return chunkEntries(r.getBlock.blockData);
    });
  }

  /** A short-circuit failure: that datanode's reads go over gRPC for the disable interval. */
  #shortCircuitFailed(datanode: DatanodeAddress, err: ShortCircuitError): void {
    this.stats.shortCircuitFallbacks++;
    this.#ctx.shortCircuit?.disable(datanode, err);
  }

  #dropLocal(block: BlockState): void {
    block.local?.file.release();
    block.local = undefined;
  }

  async #readChunk(
    block: BlockState,
    chunk: ChunkEntry,
    start: number,
    length: number,
    target: Uint8Array,
    targetOffset: number,
    readAhead = 0,
  ): Promise<void> {
    const cd = chunk.info.checksumData;
    const type = checksumTypeName(cd.type);
    const bpc = cd.bytesPerChecksum;
    const verify = this.verifyChecksum && type !== undefined && type !== 'NONE';
    // The range asked of the datanode: the read widened to whole checksum windows when verifying,
    // and a sequential read's read-ahead up to the chunk's end, if the window cache can keep it.
    let range = computeChecksumBoundaries(
      start,
      Math.min(length + readAhead, chunk.length - start),
      chunk.length,
      bpc,
      verify,
    );
    if (readAhead > 0 && range.length > this.#windowCacheBytes)
      range = computeChecksumBoundaries(start, length, chunk.length, bpc, verify);
    const chunkOffset = chunk.info.offset;
    const location: ChunkLocation = {
      containerId: block.location.containerId,
      localId: block.location.localId,
      chunkName: chunk.info.chunkName,
      offsetInChunk: range.offset,
    };
    if (this.#fromWindow(chunk, start, length, target, targetOffset)) return;
    if (this.verifyChecksum && type === undefined) {
      throw new OzoneProtocolError(
        'datanode',
        `chunk ${chunk.info.chunkName} has an unknown checksum type ${cd.type}`,
      );
    }
    // The received parts go to the caller's buffer as they are: verified in place, and only the
    // range asked for copied (once) into the target. Whether the window cache kept a view of them.
    const deliver = (dn: DatanodeAddress, parts: readonly Uint8Array[], release?: () => void): boolean => {
      if (verify) {
        this.stats.bytesVerified += range.length;
        const bad = findChecksumMismatchInParts(
          type,
          bpc,
          cd.checksums ?? [],
          parts,
          Math.floor(range.offset / bpc),
          this.#ctx.bulk.crc,
        );
        if (bad) {
          const at = { ...location, offsetInChunk: bad.window * bpc };
          this.badReplicas.push({ datanodeUuid: dn.uuid, address: dn.address, location: at });
          throw new ChecksumMismatchError(dn.address, at, bad.detail);
        }
      }
      copyFromParts(parts, start - range.offset, length, target, targetOffset);
      return this.#keepWindow(chunk, range.offset, parts, start + length, release);
    };
    const failures: Error[] = [];
    let skipUuid: string | undefined;
    const local = block.local;
    if (local) {
      // The same range, widening and verification as ReadChunk, read from the passed block file.
      try {
        const data = await local.file.read(chunkOffset + range.offset, range.length);
        this.stats.shortCircuitReads++;
        this.stats.bytesFetched += data.length;
        this.stats.bytesReadShortCircuit += data.length;
        deliver(local.datanode, [data]);
        return;
      } catch (err) {
        if (err instanceof ChecksumMismatchError) {
          // The replica is bad, not the short-circuit path: read the others over gRPC.
          this.stats.failovers++;
          failures.push(err);
          skipUuid = local.datanode.uuid;
          if (block.local === local) this.#dropLocal(block);
        } else if (err instanceof ShortCircuitError) {
          this.#shortCircuitFailed(local.datanode, err);
          if (block.local === local) this.#dropLocal(block);
        } else throw err;
      }
    }
    await this.#withReplicas(
      block,
      'ReadChunk',
      async (dn) => {
        this.stats.readChunkCalls++;
        const channel = this.#ctx.datanodes.channel(dn.address);
        const r = await channel.read(
          readChunkRequest(this.#ref(block), chunk.info, chunkOffset + range.offset, range.length, dn.uuid),
          this.#ctx.config.readTimeoutMs,
        );
        // The answer's memory goes back for reuse once its bytes are copied out (or found
        // wrong), unless the window cache keeps a view of them.
        let kept = false;
        try {
          kept = this.#takeReadChunk(r, dn, block, chunkOffset, range, location, (at, parts) =>
            deliver(at, parts, () => channel.release(r)),
          );
        } finally {
          if (!kept) channel.release(r);
        }
      },
      { skipUuid, failures },
    );
  }

  /** Checks a ReadChunk answer and delivers its data; whether the window cache kept a view of it. */
  #takeReadChunk(
    r: ReceivedAnswer,
    dn: DatanodeAddress,
    block: BlockState,
    chunkOffset: number,
    range: { offset: number; length: number },
    location: ChunkLocation,
    deliver: (dn: DatanodeAddress, parts: readonly Uint8Array[]) => boolean,
  ): boolean {
    const body = r.readChunk;
    if (!body) throw new OzoneProtocolError(dn.address, 'ReadChunk answered without a readChunk body');
    const buffers = body.parts;
    let received = 0;
    for (const b of buffers) received += b.length;
    this.stats.bytesFetched += received;
    // The datanode names the range it answered: an answer to another request (a stream
    // matched out of order) is refused whatever its length.
    const answered = body.chunkData;
    if (
      body.blockID.localID !== block.location.localId ||
      answered.offset !== chunkOffset + range.offset ||
      answered.len !== range.length
    )
      throw new OzoneProtocolError(
        dn.address,
        `ReadChunk answered block ${body.blockID.localID} at ${answered.offset}+${answered.len}, ` +
          `not ${block.location.localId} at ${chunkOffset + range.offset}+${range.length}`,
      );
    if (received !== range.length) throw new ShortReadError(dn.address, location, range.length, received);
    return deliver(dn, buffers);
  }

  /**
   * Runs `attempt` on each replica in turn until one succeeds; repeats the sweep while failures are
   * retriable and retries remain. A sweep in which a replica refused the block token is followed,
   * once per call, by new sweeps with a new token (Ozone's BlockInputStream refreshes its block's
   * pipeline and token the same way).
   */
  async #withReplicas<T>(
    block: BlockState,
    what: string,
    attempt: (dn: DatanodeAddress) => Promise<T>,
    // skipUuid: a replica already found bad (read short-circuit); failures: what failed before.
    { skipUuid, failures = [] }: { skipUuid?: string | undefined; failures?: Error[] } = {},
  ): Promise<T> {
    let renewed = false;
    for (let sweep = 0; ; sweep++) {
      let retriable = false;
      // The token a replica refused (a read whose token was renewed meanwhile does not renew it again).
      let refused: { token: string | undefined } | undefined;
      for (const dn of orderReplicas(block.location.datanodes, block.preferredUuid)) {
        if (dn.uuid === skipUuid) continue;
        if (this.#closed) throw new OzoneClosedError('the key input stream');
        const token = block.location.encodedToken;
        try {
          const value = await attempt(dn);
          block.preferredUuid = dn.uuid;
          return value;
        } catch (err) {
          if (!(err instanceof OzoneError)) throw err;
          this.stats.failovers++;
          failures.push(err);
          retriable ||= err instanceof FastpathError && err.retriable;
          if (isBlockTokenRefusal(err)) refused = { token };
        }
      }
      // Once only: a token the OM has just issued and a datanode still refuses is not going to
      // pass on a third try (a datanode without the OM's key), and the caller gets the refusals.
      if (refused && !renewed && this.#tokenSource) {
        renewed = true;
        if (!(await this.#renewToken(block, refused.token, failures))) break;
        sweep = -1;
        continue;
      }
      if (!retriable || sweep >= this.#ctx.config.readMaxRetries || block.location.datanodes.length === 0)
        break;
      await sleep(this.#ctx.config.readRetryIntervalMs);
    }
    throw new ReplicasExhaustedError(
      `${what} of block ${block.location.containerId}/${block.location.localId}`,
      failures,
    );
  }

  /**
   * After a replica refused `refused`: the key looked up again (in a read worker, by the stream on
   * the caller's thread), unless a lookup since gave the block another token already (reads
   * refused together share one lookup). Whether the block now has a token other than the refused
   * one; a failed lookup joins `failures`.
   */
  async #renewToken(block: BlockState, refused: string | undefined, failures: Error[]): Promise<boolean> {
    if (block.location.encodedToken === refused) {
      try {
        await this.#refresh(block, refused);
      } catch (err) {
        if (!(err instanceof FastpathError) || err instanceof OzoneClosedError) throw err;
        failures.push(err);
        return false;
      }
    }
    return block.location.encodedToken !== refused;
  }

  /**
   * A read worker's copy of this stream had `refused` refused: the key's blocks once this stream
   * holds another token for that block, renewed as this stream's own reads renew theirs (one
   * lookup for all the copies refused the same token). A failed lookup is thrown, for the copy's
   * read to report with its refusals.
   */
  async #renewedBlocks(refused: RefusedBlockToken): Promise<readonly KeyBlockLocation[]> {
    if (this.#closed) throw new OzoneClosedError('the key input stream');
    const block = this.#blocks.find(
      (b) => b.location.containerId === refused.containerId && b.location.localId === refused.localId,
    );
    if (block && block.location.encodedToken === refused.token) await this.#refresh(block, refused.token);
    return this.blocks;
  }

  /** The refresh in flight, else a new one started for `block`'s refused token. */
  #refresh(block: BlockState, refused: string | undefined): Promise<void> {
    this.#refreshing ??= this.#refreshLocations({
      containerId: block.location.containerId,
      localId: block.location.localId,
      token: refused,
    }).finally(() => (this.#refreshing = undefined));
    return this.#refreshing;
  }

  /** Every block of the key gets the replicas and token the OM lists now (their tokens were issued together, and expire together). */
  async #refreshLocations(refused: RefusedBlockToken): Promise<void> {
    const source = this.#tokenSource;
    if (!source) return;
    let fresh: readonly KeyBlockLocation[];
    if ('lookup' in source) {
      this.stats.locationRefreshes++;
      fresh = await source.lookup();
    } else fresh = await source.ask(refused);
    if (this.#closed) throw new OzoneClosedError('the key input stream');
    for (const block of this.#blocks) {
      const now = fresh.find(
        (f) => f.containerId === block.location.containerId && f.localId === block.location.localId,
      );
      // The stream keeps the key as it was opened (offsets, lengths, commit ids): as in Java's
      // reader, only where a block is read and with which token change. A block the key no
      // longer lists keeps its refused token, and its read fails.
      if (now)
        block.location = { ...block.location, datanodes: now.datanodes, encodedToken: now.encodedToken };
    }
  }

  #ref(block: BlockState): BlockRef {
    return {
      containerId: block.location.containerId,
      localId: block.location.localId,
      blockCommitSequenceId: block.location.blockCommitSequenceId,
      encodedToken: block.location.encodedToken,
      replicaIndex: block.location.replicaIndex,
    };
  }

  /** Ends the stream; reads in flight finish, later reads throw. */
  close(): void {
    this.#closed = true;
    this.unbuffer();
    for (const b of this.#blocks) {
      this.#dropLocal(b);
      b.ec?.close();
    }
    this.#workers?.close();
    this.#decryptor?.destroy();
  }
}

/**
 * A received window to keep: its pieces themselves when they are most of the memory they are
 * views of (the window is most of its gRPC message), else one copy, so that a small window never
 * pins a large message.
 */
function keepable(parts: readonly Uint8Array[], size: number): readonly Uint8Array[] {
  const memory = new Set(parts.map((p) => p.buffer));
  let held = 0;
  for (const m of memory) held += m.byteLength;
  return size * 2 >= held ? parts : [Buffer.concat(parts, size)];
}

/**
 * A block's chunks with their offsets within the block (cumulative lengths, as Java maps reads),
 * from a GetBlock answer decoded in place or by the generated codecs (the domain socket's).
 */
function chunkEntries(blockData: {
  chunks?: readonly (ChunkInfoView | hadoop.hdds.datanode.IChunkInfo)[] | null;
}): ChunkEntry[] {
  let start = 0;
  return (blockData.chunks ?? []).map((chunk) => {
    const info: ChunkInfoView = {
      chunkName: chunk.chunkName,
      offset: toNumber(chunk.offset),
      len: toNumber(chunk.len),
      checksumData: {
        type: chunk.checksumData.type,
        bytesPerChecksum: chunk.checksumData.bytesPerChecksum,
        checksums: chunk.checksumData.checksums ?? [],
      },
    };
    const length = info.len;
    const entry = { info, start, length };
    start += length;
    return entry;
  });
}

/** One internal block of an EC group, as a block of its own for the stream that reads it. */
function internalBlockLocation(group: KeyBlockLocation, internal: InternalBlock): KeyBlockLocation {
  return {
    containerId: group.containerId,
    localId: group.localId,
    blockCommitSequenceId: group.blockCommitSequenceId,
    offsetInKey: 0,
    lengthBytes: internal.lengthBytes,
    datanodes: internal.datanodes,
    encodedToken: group.encodedToken,
    replicaIndex: internal.replicaIndex,
  };
}

/**
 * The layout of an erasure-coded block group: the EC config its pipeline states (else the key's)
 * and the replica index of each member. Undefined for a replicated block.
 */
function ecGroupLayout(
  info: hadoop.ozone.IKeyInfo,
  pipeline: hadoop.hdds.IPipeline | null | undefined,
): EcBlockGroupLayout | undefined {
  const ec = pipeline?.type === hdds.ReplicationType.EC || info.type === hdds.ReplicationType.EC;
  if (!ec) return undefined;
  // The type is EC here, so the config is read (and checked) or its absence refused.
  const stated = replicationFromProto(
    hdds.ReplicationType.EC,
    undefined,
    pipeline?.ecReplicationConfig ?? info.ecReplicationConfig,
  );
  if (stated?.type !== 'EC') return undefined;
  const config = stated.config;
  const members = pipeline?.members?.length ?? 0;
  const indexes = pipeline?.memberReplicaIndexes ?? [];
  return { config, replicaIndexes: Array.from({ length: members }, (_, i) => indexes[i] ?? 0) };
}

/** The blocks of a key's latest version, from its KeyInfo. */
export function keyBlockLocations(info: hadoop.ozone.IKeyInfo, from: string): KeyBlockLocation[] {
  const versions = info.keyLocationList ?? [];
  const latest = versions[versions.length - 1];
  // KeyLocation.offset is the offset within the block (0 on a real cluster): a block's place in
  // the key is the sum of the lengths before it, as MultipartInputStream computes its partOffsets.
  let offsetInKey = 0;
  return (latest?.keyLocations ?? []).map((loc) => {
    const lengthBytes = toNumber(loc.length);
    const block = {
      containerId: toBigInt(loc.blockID.containerBlockID.containerID),
      localId: toBigInt(loc.blockID.containerBlockID.localID),
      blockCommitSequenceId: toBigInt(loc.blockID.blockCommitSequenceId),
      offsetInKey,
      lengthBytes,
      datanodes: pipelineDatanodes(loc.pipeline, from),
      encodedToken: encodedBlockToken(loc),
    };
    const ec = ecGroupLayout(info, loc.pipeline);
    offsetInKey += lengthBytes;
    return ec ? { ...block, ec } : block;
  });
}
