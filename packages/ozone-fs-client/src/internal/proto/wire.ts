// The generated protobuf codecs (protobufjs static code from proto/*.proto) and the conversions
// between protobufjs' Long and the bigint/number the rest of the package uses.
import Long from 'long';
import protos from './protos.cjs';

export const hdds = protos.hadoop.hdds;
export const dn = protos.hadoop.hdds.datanode;
export const om = protos.hadoop.ozone;
export const common = protos.hadoop.common;
export type { hadoop } from './protos.cjs';

/** A signed 64-bit protobuf value from a bigint (container and local IDs exceed 2^53). */
export function int64(value: bigint): Long {
  return Long.fromString(value.toString(), false);
}

/** An unsigned 64-bit protobuf value from a non-negative safe integer or bigint. */
export function uint64(value: number | bigint): Long {
  return typeof value === 'bigint' ? Long.fromString(value.toString(), true) : Long.fromNumber(value, true);
}

/** A 64-bit protobuf value as a bigint, exactly. */
export function toBigInt(value: Long | number | null | undefined): bigint {
  if (value == null) return 0n;
  if (typeof value === 'number') return BigInt(value);
  return BigInt(value.toString());
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
