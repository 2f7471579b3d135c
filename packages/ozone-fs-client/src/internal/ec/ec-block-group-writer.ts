// One block group of an erasure-coded key being written, as Ozone's ECBlockOutputStreamEntry
// writes it through its d + p ECBlockOutputStreams: each replica index on its own datanode, every
// command over that datanode's STANDALONE gRPC port (EC uses no Ratis), with the replica index in
// its block ID and the group's block token.
import { DatanodeResultError, OzoneProtocolError } from '../../ozone-errors.js';
import { encodedBlockToken } from '../block-token.js';
import { putBlockRequest, writeChunkRequest, type BlockRef } from '../block-requests.js';
import { CHECKSUM_TYPE_VALUES, computeChecksums, type ChecksumTypeName } from '../checksum.js';
import type { ClientContext } from '../client-context.js';
import { pipelineDatanodes, type DatanodeAddress } from '../pipeline.js';
import { toBigInt, toNumber, uint64, type hadoop } from '../proto/wire.js';
import { pipelineUuid } from '../ratis/pipeline-raft-group.js';
import type { EcReplicationConfig } from './ec-stripe-layout.js';

type ChunkInfo = hadoop.hdds.datanode.IChunkInfo;

/** How each cell is checksummed (`ozone.client.checksum.type`, `ozone.client.bytes.per.checksum`). */
export interface CellChecksums {
  checksumType: ChecksumTypeName;
  bytesPerChecksum: number;
}

/** One replica's failed command in a stripe. */
export interface ReplicaFailure {
  replicaIndex: number;
  datanode: DatanodeAddress;
  command: 'WriteChunk' | 'PutBlock';
  error: Error;
}

/** A stripe that did not reach every replica of its group: the group takes no more stripes. */
export class StripeWriteFailure extends Error {
  constructor(readonly failures: readonly ReplicaFailure[]) {
    super(failures.map((f) => `replica ${f.replicaIndex} ${f.command}: ${f.error.message}`).join('; '));
  }
}

/**
 * Whether a replica's failure names its datanode for the exclude list: every failure but a closed
 * container's (Ozone's ContainerNotOpenException, a CLOSED_CONTAINER_IO answer), which says
 * nothing against the datanode (ECKeyOutputStream#excludePipelineAndFailedDN).
 */
export function failureExcludesDatanode(error: unknown): boolean {
  return !(error instanceof DatanodeResultError && error.result === 'CLOSED_CONTAINER_IO');
}

/** The pipeline id an exclude list names: its UUID, else its string id. */
export function pipelineIdOf(pipeline: hadoop.hdds.IPipeline | null | undefined): string {
  return (pipeline ? pipelineUuid(pipeline) : undefined) ?? pipeline?.id?.id ?? '';
}

interface Replica {
  index: number;
  datanode: DatanodeAddress;
  ref: BlockRef;
  /** Every chunk the replica holds, in order: each PutBlock sends the full list. */
  chunks: ChunkInfo[];
  lengthBytes: number;
}

/**
 * The d + p replicas of one block group and what each holds. A stripe goes to all of them at once
 * ({@link writeStripe}); a stripe that fails leaves the group at the data length of its last
 * stripe that succeeded, and the key writer moves on to another group.
 */
export class EcBlockGroupWriter {
  /** The group's block ID and token, without a replica index. */
  readonly ref: BlockRef;
  /** The id of the group's pipeline (for the exclude list). */
  readonly pipelineId: string;
  /** Key bytes the group takes: whole stripes, as many as fit its internal block size. */
  readonly capacityBytes: number;
  readonly #ctx: ClientContext;
  readonly #config: EcReplicationConfig;
  readonly #checksums: CellChecksums;
  readonly #replicas: Replica[];
  #dataBytes = 0;

  /**
   * @param internalBlockBytes the most bytes one internal block takes (the OM's allocated length,
   *   `ozone.scm.block.size`); the group takes as many stripes as start below it.
   * @throws OzoneProtocolError for a pipeline that does not list replica indexes 1..d+p once each
   */
  constructor(
    ctx: ClientContext,
    location: hadoop.ozone.IKeyLocation,
    config: EcReplicationConfig,
    checksums: CellChecksums,
    internalBlockBytes: number,
  ) {
    const from = ctx.om.address;
    this.#ctx = ctx;
    this.#config = config;
    this.#checksums = checksums;
    this.ref = {
      containerId: toBigInt(location.blockID.containerBlockID.containerID),
      localId: toBigInt(location.blockID.containerBlockID.localID),
      // EC blocks have BCSID 0: nothing of theirs goes through Ratis.
      blockCommitSequenceId: 0n,
      encodedToken: encodedBlockToken(location),
    };
    this.pipelineId = pipelineIdOf(location.pipeline);
    const width = config.data + config.parity;
    const members = pipelineDatanodes(location.pipeline, from);
    const indexes = location.pipeline?.memberReplicaIndexes ?? [];
    const byIndex = new Map<number, DatanodeAddress>();
    members.forEach((m, i) => byIndex.set(indexes[i] ?? 0, m));
    if (
      members.length !== width ||
      byIndex.size !== width ||
      ![...byIndex.keys()].every((k) => k >= 1 && k <= width)
    )
      throw new OzoneProtocolError(
        from,
        `EC block group ${this.ref.containerId}/${this.ref.localId} needs ${width} members with replica indexes 1..${width}, got [${indexes.join(', ')}] for ${members.length} members`,
      );
    this.#replicas = [...byIndex.entries()]
      .sort(([a], [b]) => a - b)
      .map(([index, datanode]) => ({
        index,
        datanode,
        ref: { ...this.ref, replicaIndex: index },
        chunks: [],
        lengthBytes: 0,
      }));
    const c = config.ecChunkSize;
    this.capacityBytes = Math.max(1, Math.ceil(internalBlockBytes / c)) * c * config.data;
  }

  /** Key bytes of the group's stripes that every replica acknowledged (parity not counted). */
  get dataBytes(): number {
    return this.#dataBytes;
  }

  /** Whether the group takes no more stripes. */
  get full(): boolean {
    return this.#dataBytes >= this.capacityBytes;
  }

  /**
   * Writes one stripe (Ozone's ECKeyOutputStream#flushStripeToDatanodes): a WriteChunk per
   * non-empty cell, all at once, to the replica of its index; once all succeed, a PutBlock to
   * every replica, all at once, with the replica's full chunk list, `blockGroupLen` = the group's
   * data bytes with this stripe, and `eof`.
   *
   * @param cells the stripe's d + p cells in replica-index order (empty ones are not written)
   * @param dataBytes the key bytes of the stripe (its data cells' lengths)
   * @throws StripeWriteFailure naming every replica whose command failed
   */
  async writeStripe(cells: readonly Uint8Array[], dataBytes: number, eof: boolean): Promise<void> {
    const { checksumType, bytesPerChecksum } = this.#checksums;
    const timeoutMs = this.#ctx.config.readTimeoutMs;
    const written: Array<{ replica: Replica; chunk: ChunkInfo }> = [];
    const writes = this.#replicas.map(async (replica) => {
      const cell = cells[replica.index - 1] as Uint8Array;
      if (cell.length === 0) return;
      const chunk: ChunkInfo = {
        // Java's BlockOutputStream names a block's chunks <localID>_chunk_<n>, n from 1 per replica.
        chunkName: `${this.ref.localId}_chunk_${replica.chunks.length + 1}`,
        offset: uint64(replica.lengthBytes),
        len: uint64(cell.length),
        checksumData: {
          type: CHECKSUM_TYPE_VALUES[checksumType],
          bytesPerChecksum,
          checksums: computeChecksums(checksumType, bytesPerChecksum, cell, this.#ctx.bulk.crc),
        },
      };
      await this.#send(
        'WriteChunk',
        replica,
        writeChunkRequest(replica.ref, chunk, cell, replica.datanode.uuid),
        timeoutMs,
      );
      written.push({ replica, chunk });
    });
    await settle(writes);
    written.sort((a, b) => a.replica.index - b.replica.index);
    for (const { replica, chunk } of written) {
      replica.chunks.push(chunk);
      replica.lengthBytes += toNumber(chunk.len);
    }
    this.#setStripeChecksum(written.map((w) => w.chunk));
    const groupLength = this.#dataBytes + dataBytes;
    const puts = this.#replicas.map((replica) =>
      this.#send(
        'PutBlock',
        replica,
        putBlockRequest(replica.ref, [...replica.chunks], replica.lengthBytes, eof, replica.datanode.uuid, [
          // OzoneConsts.BLOCK_GROUP_LEN_KEY_IN_PUT_BLOCK: what reconstruction sizes the group by.
          { key: 'blockGroupLen', value: String(groupLength) },
        ]),
        timeoutMs,
      ),
    );
    await settle(puts);
    this.#dataBytes = groupLength;
  }

  /**
   * The stripe's checksum (ECBlockOutputStreamEntry#calculateChecksum): the checksums of its
   * chunks, replica 1 to d + p, joined, on the stripe's chunk of replica 1 and of every parity
   * replica (ECBlockOutputStream#executePutBlock). Only file-checksum code reads it.
   */
  #setStripeChecksum(stripeChunks: readonly ChunkInfo[]): void {
    const joined = Buffer.concat(stripeChunks.flatMap((c) => c.checksumData.checksums ?? []));
    for (const replica of this.#replicas) {
      if (replica.index > 1 && replica.index <= this.#config.data) continue;
      const last = replica.chunks[replica.chunks.length - 1];
      if (last) replica.chunks[replica.chunks.length - 1] = { ...last, stripeChecksum: joined };
    }
  }

  async #send(
    command: 'WriteChunk' | 'PutBlock',
    replica: Replica,
    request: hadoop.hdds.datanode.IContainerCommandRequestProto,
    timeoutMs: number,
  ): Promise<void> {
    try {
      await this.#ctx.datanodes.channel(replica.datanode.address).send(request, timeoutMs);
    } catch (err) {
      throw new ReplicaCommandError({
        replicaIndex: replica.index,
        datanode: replica.datanode,
        command,
        error: err instanceof Error ? err : new Error(String(err)),
      });
    }
  }
}

/** A replica's command that failed, carried to {@link settle}. */
class ReplicaCommandError extends Error {
  constructor(readonly failure: ReplicaFailure) {
    super(failure.error.message);
  }
}

/** Waits for every command; throws a {@link StripeWriteFailure} naming all that failed. */
async function settle(commands: ReadonlyArray<Promise<void>>): Promise<void> {
  const outcomes = await Promise.allSettled(commands);
  const failures: ReplicaFailure[] = [];
  for (const o of outcomes) {
    if (o.status === 'fulfilled') continue;
    if (!(o.reason instanceof ReplicaCommandError)) throw o.reason;
    failures.push(o.reason.failure);
  }
  if (failures.length > 0) throw new StripeWriteFailure(failures);
}
