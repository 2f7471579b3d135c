import { randomUUID } from 'node:crypto';
import { RaftInvalidArgumentError } from './raft-client-errors.js';

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A UUID as Ratis puts it on the wire (client ids, group ids): 16 bytes, the most significant
 * 8 then the least significant 8, big-endian. That is the UUID's hex digits in order.
 *
 * @example
 * ```ts
 * uuidToBytes('02b1c7e4-9a0f-4b7e-8c1d-5f6a7b8c9d0e').length; // 16
 * ```
 */
export function uuidToBytes(uuid: string, what = 'uuid'): Buffer {
  if (!UUID_PATTERN.test(uuid))
    throw new RaftInvalidArgumentError(`${what} is not a UUID: ${JSON.stringify(uuid)}`);
  return Buffer.from(uuid.replaceAll('-', ''), 'hex');
}

/** The canonical lowercase UUID string of 16 wire bytes. */
export function bytesToUuid(bytes: Uint8Array): string {
  const hex = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A random client id, never the all-zero UUID (which Ratis reserves). */
export function randomClientId(): string {
  return randomUUID();
}

/** A peer id as Ratis carries it: the UTF-8 bytes of its string form. */
export function peerIdToBytes(peerId: string): Buffer {
  return Buffer.from(peerId, 'utf8');
}
