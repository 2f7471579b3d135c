// The generated protobuf codecs (protobufjs static code from proto/*.proto) and the conversions
// between protobufjs' Long and the numbers the rest of the package uses.
import Long from 'long';
import protos from './protos.cjs';

export const raft = protos.ratis.common;
export type { ratis } from './protos.cjs';

/** An unsigned 64-bit protobuf value from a non-negative safe integer or bigint. */
export function uint64(value: number | bigint): Long {
  return typeof value === 'bigint' ? Long.fromString(value.toString(), true) : Long.fromNumber(value, true);
}

/**
 * A 64-bit protobuf value as a number. Log indexes, call ids and sequence numbers stay far below
 * 2^53 in any group's life; a larger one (a garbage answer) is refused by the caller.
 */
export function toNumber(value: Long | number | null | undefined): number {
  if (value == null) return 0;
  if (typeof value === 'number') return value;
  return value.toNumber();
}
