// Where the bytes of an erasure-coded block group live: the stripe layout of Ozone's EC keys
// (apache/ozone 2.2.0 ECBlockInputStream: currentStreamIndex, internalBlockLength;
// ECBlockInputStreamProxy.expectedDataLocations; hdds ECReplicationConfig for the text form).
import { ErasureCodingConfigError } from '../../ozone-errors.js';
import { checkErasureCoderSchema, type ErasureCodecName } from './raw-erasure-coder.js';

/** An EC replication config as Ozone states it (`hadoop.hdds.ECReplicationConfig`). */
export interface EcReplicationConfig {
  /** The codec: `rs` (Reed-Solomon) or `xor`. */
  readonly codec: ErasureCodecName;
  /** Data units per stripe (d). */
  readonly data: number;
  /** Parity units per stripe (p): the number of lost units a stripe survives. */
  readonly parity: number;
  /** Cell size in bytes (`ecChunkSize`; 1048576 for the `1024k` forms). */
  readonly ecChunkSize: number;
}

const TEXT_FORM = /^([a-zA-Z]+)-(\d+)-(\d+)-(\d+)([kK])?$/;

/**
 * Parses Ozone's text form `<codec>-<data>-<parity>-<chunk>[k]` (`rs-3-2-1024k`, `RS-6-3-1024k`,
 * `xor-2-1-1048576`); a trailing k multiplies the chunk size by 1024, the codec may be any case.
 *
 * @throws ErasureCodingConfigError for text that does not match, or values the coders cannot use
 */
export function parseEcReplicationConfig(text: string): EcReplicationConfig {
  const m = TEXT_FORM.exec(text.trim());
  if (!m) {
    throw new ErasureCodingConfigError(
      `EC replication config ${JSON.stringify(text)} does not match <codec>-<data>-<parity>-<chunk>[k], e.g. rs-6-3-1024k`,
    );
  }
  const ecChunkSize = Number(m[4]) * (m[5] === undefined ? 1 : 1024);
  return checkEcReplicationConfig({
    codec: m[1]!.toLowerCase() as ErasureCodecName,
    data: Number(m[2]),
    parity: Number(m[3]),
    ecChunkSize,
  });
}

/** Checks a config (from the wire or from text) and returns it frozen. */
export function checkEcReplicationConfig(config: EcReplicationConfig): EcReplicationConfig {
  const { codec, data, parity } = checkErasureCoderSchema({
    codec: String(config.codec).toLowerCase() as ErasureCodecName,
    data: config.data,
    parity: config.parity,
  });
  if (
    !Number.isSafeInteger(config.ecChunkSize) ||
    config.ecChunkSize < 1 ||
    config.ecChunkSize > 2 ** 31 - 1
  ) {
    throw new ErasureCodingConfigError(
      `${codec}-${data}-${parity}: ecChunkSize must be a positive int32, got ${String(config.ecChunkSize)}`,
    );
  }
  return Object.freeze({ codec, data, parity, ecChunkSize: config.ecChunkSize });
}

/** Where one key byte of a block group lives. */
export interface StripePosition {
  /** Stripe number in the group, from 0. */
  readonly stripe: number;
  /** Replica index 1..data of the data cell that holds it. */
  readonly replicaIndex: number;
  readonly offsetInCell: number;
  /** Offset in that replica's internal block. */
  readonly offsetInReplica: number;
  /** Bytes from here to the end of the cell or of the group, whichever comes first. */
  readonly bytesToCellEnd: number;
}

/**
 * Maps offset `o` of a group of `groupLength` key bytes to its data cell (Ozone's
 * ECBlockInputStream: cell k of the group goes to replica (k mod d) + 1 at stripe ⌊k / d⌋).
 */
export function locateInGroup(config: EcReplicationConfig, groupLength: number, o: number): StripePosition {
  const c = config.ecChunkSize;
  const stripeBytes = c * config.data;
  const stripe = Math.floor(o / stripeBytes);
  const r = o % stripeBytes;
  const cell = Math.floor(r / c);
  const offsetInCell = r % c;
  return {
    stripe,
    replicaIndex: cell + 1,
    offsetInCell,
    offsetInReplica: stripe * c + offsetInCell,
    bytesToCellEnd: Math.min(c - offsetInCell, groupLength - o),
  };
}

/**
 * Bytes of the internal block with replica index `index` (1..d+p) of a group of `groupLength`
 * key bytes. A parity block is as long as replica 1's: the last partial stripe's parity cells are
 * as long as its first data cell.
 */
export function internalBlockLength(config: EcReplicationConfig, groupLength: number, index: number): number {
  const c = config.ecChunkSize;
  const d = config.data;
  const last = groupLength % (c * d);
  const full = (groupLength - last) / d;
  const lastCell = Math.floor(last / c) + 1;
  const lastLen = last % c;
  const i = index > d ? 1 : index;
  if (i < lastCell) return full + c;
  if (i === lastCell) return full + lastLen;
  return full;
}

/** Data replicas a group of `groupLength` bytes has data on: min(⌈L / c⌉, d). */
export function expectedDataLocations(config: EcReplicationConfig, groupLength: number): number {
  return Math.min(Math.ceil(groupLength / config.ecChunkSize), config.data);
}

/** How a block group of an EC key is laid out on the datanodes its pipeline lists. */
export interface EcBlockGroupLayout {
  /** The block group's EC config, from the OM's key location. */
  readonly config: EcReplicationConfig;
  /**
   * The replica index (1..d+p) of each pipeline member, in member order
   * (Pipeline.memberReplicaIndexes; 0 where the OM sent none). A read pipeline lists only the
   * replicas SCM knows to be alive: an index may be missing, or held by more than one node.
   */
  readonly replicaIndexes: readonly number[];
}
