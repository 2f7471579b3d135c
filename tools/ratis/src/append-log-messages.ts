// The messages of the fixture's state machine (java/fastpath/ratisfixture/AppendLogStateMachine.java),
// an append-only log: what a client puts in a request's content and finds in a reply's.
import { InvalidOptionError } from '@fastpath/core';

/** A write's reply: the Raft log index it was applied at and the byte position where it begins. */
export interface AppendLogWriteReply {
  readonly index: bigint;
  readonly position: bigint;
}

/** The answer to a status query (empty content): last applied index and the log's length in bytes. */
export interface AppendLogStatus {
  readonly lastAppliedIndex: bigint;
  readonly length: bigint;
}

/** The content of a status query: empty. */
export const APPEND_LOG_STATUS_QUERY: Uint8Array = new Uint8Array(0);

const U64_MAX = (1n << 64n) - 1n;

function twoU64(what: string, content: Uint8Array): [bigint, bigint] {
  if (content.byteLength !== 16) {
    throw new InvalidOptionError(
      what,
      `expected 16 bytes (two uint64 big-endian), got ${content.byteLength}`,
    );
  }
  const view = new DataView(content.buffer, content.byteOffset, 16);
  return [view.getBigUint64(0), view.getBigUint64(8)];
}

/** Decodes a write's reply content. @throws InvalidOptionError unless it is 16 bytes */
export function decodeAppendLogWriteReply(content: Uint8Array): AppendLogWriteReply {
  const [index, position] = twoU64('write reply', content);
  return { index, position };
}

/** Decodes a status query's answer. @throws InvalidOptionError unless it is 16 bytes */
export function decodeAppendLogStatus(content: Uint8Array): AppendLogStatus {
  const [lastAppliedIndex, length] = twoU64('status answer', content);
  return { lastAppliedIndex, length };
}

/**
 * The content of a read query: `length` bytes of the log from `position` (the answer is clipped
 * to the log's end). Both uint64.
 */
export function appendLogReadQuery(position: bigint | number, length: bigint | number): Uint8Array {
  const out = new Uint8Array(16);
  const view = new DataView(out.buffer);
  for (const [name, value, at] of [
    ['position', position, 0],
    ['length', length, 8],
  ] as const) {
    const v = typeof value === 'bigint' ? value : Number.isSafeInteger(value) ? BigInt(value) : -1n;
    if (v < 0n || v > U64_MAX) throw new InvalidOptionError(name, `expected a uint64, got ${String(value)}`);
    view.setBigUint64(at, v);
  }
  return out;
}
