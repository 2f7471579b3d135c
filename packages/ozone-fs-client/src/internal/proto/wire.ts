// The generated protobuf codecs (protobufjs static code from proto/*.proto) and the conversions
// between protobufjs' Long and the bigint/number the rest of the package uses.
import Long from 'long';
import protos from './protos.cjs';

export const hdds = protos.hadoop.hdds;
export const dn = protos.hadoop.hdds.datanode;
export const om = protos.hadoop.ozone;
export const common = protos.hadoop.common;
export type { hadoop } from './protos.cjs';

// The conversions work on the two 32-bit halves: through a decimal string (Long's toString and
// fromString) each cost microseconds, and a write or a commit makes several (container, local and
// client IDs, offsets, lengths).
const LOW_32 = 0xffffffffn;

function longFromBigInt(value: bigint, unsigned: boolean): Long {
  return Long.fromBits(Number(value & LOW_32), Number((value >> 32n) & LOW_32), unsigned);
}

/** A signed 64-bit protobuf value from a bigint (container and local IDs exceed 2^53). */
export function int64(value: bigint): Long {
  return longFromBigInt(value, false);
}

/** An unsigned 64-bit protobuf value from a non-negative safe integer or bigint. */
export function uint64(value: number | bigint): Long {
  return typeof value === 'bigint' ? longFromBigInt(value, true) : Long.fromNumber(value, true);
}

/** A 64-bit protobuf value as a bigint, exactly (signed or not as the Long says). */
export function toBigInt(value: Long | number | null | undefined): bigint {
  if (value == null) return 0n;
  if (typeof value === 'number') return BigInt(value);
  const bits = (BigInt(value.high >>> 0) << 32n) | BigInt(value.low >>> 0);
  return value.unsigned ? bits : BigInt.asIntN(64, bits);
}

/**
 * A 64-bit protobuf value as a number; a value beyond 2^53 (a length or offset no real key has)
 * is refused by the caller's validation rather than rounded here.
 */
export function toNumber(value: Long | number | null | undefined): number {
  if (value == null) return 0;
  if (typeof value === 'number') return value;
  return value.toNumber();
}

/** Whether a decoded message carries `field` on the wire (protobufjs puts defaults on the prototype). */
export function has(message: object, field: string): boolean {
  return Object.prototype.hasOwnProperty.call(message, field);
}
