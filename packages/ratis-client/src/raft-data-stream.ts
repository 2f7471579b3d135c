import type { CommitInfo } from './raft-client-errors.js';
import type { RaftReply } from './raft-client.js';

/** Options of {@link RaftClient.stream}. */
export interface RaftStreamOptions {
  /**
   * How the data reaches the members. `chain`: the primary forwards each packet to the next member
   * of `peerOrder`, that one to the next, … (a routing table in the header request, Ozone's
   * `ozone.client.datastream.pipeline.mode` = true). `star`: the primary forwards to every other
   * member itself (no routing table). Default: `chain`.
   */
  routing?: 'chain' | 'star';
  /** The member the client streams to; it needs a `dataStreamAddress`. Default: the first of `peers`. */
  primaryId?: string;
  /**
   * The chain's order, every member once, the primary first (chain routing only). Default: the
   * members in the order of the client's `peers`, the primary moved first.
   */
  peerOrder?: readonly string[];
}

/** Options of one {@link RaftDataStream.write} or {@link RaftDataStream.close}. */
export interface RaftDataStreamWriteOptions {
  /** Ask every member to force its data to disk once this packet is written (Ratis's SYNC option). Default: `false`. */
  sync?: boolean;
}

/** The primary's answer to one data packet: every member of the route wrote it. */
export interface RaftDataStreamReply {
  /** The bytes the primary (and every member after it, which answered the same) wrote. */
  bytesWritten: number;
  /** Each member's commit index, as the primary knew it. */
  commitInfos: readonly CommitInfo[];
}

/**
 * One stream of Ratis's DataStream protocol, opened by {@link RaftClient.stream}: packets of data
 * to a primary member over its DataStream port, which forwards them along the route; then a
 * close, and a `forward` request through the Raft log that commits the stream.
 *
 * Writes are pipelined: each is one packet, sent at once (or when the client's
 * `dataStreamOutstandingRequests` leaves room) and answered in turn. The first failure fails the
 * stream: every write still outstanding, and every later call, rejects with that error. Nothing
 * is re-sent: writing the data again (on a new stream) is the caller's decision.
 *
 * @example
 * ```ts
 * const stream = client.stream(Buffer.from('block header'), { routing: 'chain' });
 * await Promise.all([stream.write(chunk1), stream.write(chunk2, { sync: true })]);
 * const { logIndex } = await stream.close(trailer);
 * ```
 */
export interface RaftDataStream {
  /** The stream's id: the call id of its header request. */
  readonly streamId: number;
  /** Data bytes handed to the connection so far (written, or waiting in the socket's buffer). */
  readonly bytesSent: number;
  /**
   * Sends `data` as one packet (its pieces written to the socket as they are, not copied) and
   * resolves once the primary answers that every member of the route wrote it. Keep the buffers
   * unchanged until the returned promise settles: they are on their way until then.
   */
  write(data: Buffer | readonly Buffer[], options?: RaftDataStreamWriteOptions): Promise<RaftDataStreamReply>;
  /**
   * Sends `data` as the last packet (with Ratis's CLOSE option; may be empty), waits for its
   * success, then sends the `forward` request that commits the stream through the Raft log (on the
   * client's ordered stream to the leader, re-sent on a leader change like any write). Resolves
   * with the forward's reply: `logIndex` is the stream's log entry. The buffers are held as for
   * {@link RaftDataStream.write}.
   */
  close(data: Buffer | readonly Buffer[], options?: RaftDataStreamWriteOptions): Promise<RaftReply>;
  /**
   * Gives the stream up: what is outstanding fails with `ERR_RATIS_DATASTREAM` (`cause`: `reason`)
   * and nothing more is sent on it. Idempotent; a no-op on a stream that already failed or closed.
   */
  abort(reason?: Error): void;
}
