import type { RaftStateMachine } from './raft-state-machine.js';

/**
 * The contract suite's state machine, the same in the embedded group and in the real Ratis
 * fixture: an append-only log of bytes.
 *
 * - A write appends its content; the reply is 16 bytes: the log index it was applied at, then the
 *   byte position where it begins in the log (both uint64 big-endian).
 * - A read-only query with empty content answers 16 bytes: the last applied log index, then the
 *   log's total length.
 * - A query of 16 bytes (position, length; uint64 big-endian) answers those bytes of the log,
 *   clipped to its end.
 *
 * @example
 * ```ts
 * const machine = new AppendLogStateMachine();
 * decodeAppendReply(machine.apply(Buffer.from('ab'), 3)); // { index: 3, position: 0 }
 * ```
 */
export class AppendLogStateMachine implements RaftStateMachine {
  #chunks: Buffer[] = [];
  #length = 0;
  #lastIndex = 0;
  /** How many writes were applied (a write applied twice shows here). */
  applied = 0;

  apply(content: Buffer, index: number): Buffer {
    const position = this.#length;
    this.#chunks.push(Buffer.from(content));
    this.#length += content.length;
    this.#lastIndex = index;
    this.applied++;
    return encodeTwoUint64(index, position);
  }

  /** Records a log index that carried no write (a leader's first entry), as Ratis's notifyTermIndexUpdated does. */
  skip(index: number): void {
    this.#lastIndex = Math.max(this.#lastIndex, index);
  }

  query(content: Buffer): Buffer {
    if (content.length === 0) return encodeTwoUint64(this.#lastIndex, this.#length);
    if (content.length !== 16) throw new Error(`a log query is empty or 16 bytes, got ${content.length}`);
    const position = Number(content.readBigUInt64BE(0));
    const length = Number(content.readBigUInt64BE(8));
    return this.bytes().subarray(Math.min(position, this.#length), Math.min(position + length, this.#length));
  }

  /** The whole log. */
  bytes(): Buffer {
    if (this.#chunks.length > 1) this.#chunks = [Buffer.concat(this.#chunks)];
    return this.#chunks[0] ?? Buffer.alloc(0);
  }
}

/** A query for `length` bytes of the append log from `position`. */
export function encodeLogRead(position: number, length: number): Buffer {
  return encodeTwoUint64(position, length);
}

/** A write's reply: the log index it was applied at and where it begins in the log. */
export function decodeAppendReply(content: Buffer): {
  /** The log index the write was applied at. */
  index: number;
  /** The byte offset in the log where the write's content begins. */
  position: number;
} {
  const [index, position] = decodeTwoUint64(content);
  return { index, position };
}

/** The reply to an empty query: the last applied index and the log's length. */
export function decodeLogStatus(content: Buffer): {
  /** The highest log index applied, entries without a write (a leader's first) included. */
  lastAppliedIndex: number;
  /** The log's total length in bytes. */
  length: number;
} {
  const [lastAppliedIndex, length] = decodeTwoUint64(content);
  return { lastAppliedIndex, length };
}

function encodeTwoUint64(a: number, b: number): Buffer {
  const out = Buffer.alloc(16);
  out.writeBigUInt64BE(BigInt(a), 0);
  out.writeBigUInt64BE(BigInt(b), 8);
  return out;
}

function decodeTwoUint64(content: Buffer): [number, number] {
  if (content.length !== 16) throw new Error(`expected 16 bytes, got ${content.length}`);
  return [Number(content.readBigUInt64BE(0)), Number(content.readBigUInt64BE(8))];
}
