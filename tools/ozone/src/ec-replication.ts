import { InvalidOptionError } from '@fastpath/core';

/**
 * Ozone's text form of an erasure-coded replication, `<codec>-<data>-<parity>-<cell>[k]`, as
 * `ozone sh key put --type EC --replication` and `ECReplicationConfig(String)` take it:
 * `rs-3-2-1024k`, `rs-6-3-64k`, `xor-2-1-1024k`, `RS-3-2-2048` (a cell of 2048 bytes).
 */
export type OzoneEcReplicationText =
  `${'rs' | 'xor' | 'RS' | 'XOR'}-${number}-${number}-${number}${'' | 'k' | 'K'}`;

/** An erasure-coded replication, parsed as Ozone's `ECReplicationConfig` parses it. */
export interface EcReplication {
  readonly codec: 'rs' | 'xor';
  /** Data units per stripe (d). */
  readonly dataUnits: number;
  /** Parity units per stripe (p); a block group has d + p internal blocks, replica indexes 1..d+p. */
  readonly parityUnits: number;
  /** The cell (`ecChunkSize`), bytes: every chunk of an internal block is one cell or less. */
  readonly cellBytes: number;
  /**
   * The text form with the codec in lower case and the cell in `k` when it is whole KiB
   * (`rs-3-2-64k`, as `ECReplicationConfig#getReplication` prints it), else in bytes (`rs-3-2-1000`).
   */
  readonly text: string;
  /**
   * What the OM matches against `ozone.replication.allowed-configs`
   * (`ECReplicationConfig#configFormat`): `EC/3-2-64k`, the codec left out and the cell in whole
   * KiB (rounded down, as Ozone does).
   */
  readonly configFormat: string;
}

// ECReplicationConfig's STRING_FORMAT, matched whole (Matcher#matches).
const EC_TEXT = /^([a-zA-Z]+)-(\d+)-(\d+)-(\d+)([kK])?$/;
const INT_MAX = 2 ** 31 - 1;

/**
 * Parses Ozone's EC text form with Ozone's own rules (the codec `rs` or `xor` in any case; data,
 * parity and cell positive; a trailing `k` multiplies the cell by 1024), and the cell within a
 * Java int, which Ozone's parser would overflow silently.
 *
 * @param option - Named by the error.
 * @throws InvalidOptionError naming `option` when `text` is not an EC replication Ozone accepts.
 * @example
 * ```ts
 * parseEcReplication('rs-3-2-64k'); // { codec: 'rs', dataUnits: 3, parityUnits: 2, cellBytes: 65536, ... }
 * ```
 */
export function parseEcReplication(text: unknown, option = 'replication'): EcReplication {
  const m = typeof text === 'string' ? EC_TEXT.exec(text) : null;
  if (m === null) {
    throw new InvalidOptionError(
      option,
      `expected RATIS/ONE, RATIS/THREE or an EC replication <codec>-<data>-<parity>-<cell>[k] such as rs-3-2-1024k, not ${JSON.stringify(text)}`,
    );
  }
  const [, codecText, dataText, parityText, cellText, k] = m as unknown as [
    string,
    string,
    string,
    string,
    string,
    string?,
  ];
  const codec = codecText.toLowerCase();
  if (codec !== 'rs' && codec !== 'xor') {
    throw new InvalidOptionError(option, `the EC codec ${codecText} is not one of Ozone's (rs, xor)`);
  }
  const dataUnits = Number(dataText);
  const parityUnits = Number(parityText);
  if (!(dataUnits > 0 && dataUnits <= INT_MAX && parityUnits > 0 && parityUnits <= INT_MAX)) {
    throw new InvalidOptionError(option, `data and parity units must be positive: ${String(text)}`);
  }
  const cellBytes = Number(cellText) * (k === undefined ? 1 : 1024);
  if (!(cellBytes > 0 && cellBytes <= INT_MAX)) {
    throw new InvalidOptionError(option, `the cell size must be 1 to ${INT_MAX} bytes: ${String(text)}`);
  }
  const cell = cellBytes % 1024 === 0 ? `${cellBytes / 1024}k` : String(cellBytes);
  return Object.freeze({
    codec,
    dataUnits,
    parityUnits,
    cellBytes,
    text: `${codec}-${dataUnits}-${parityUnits}-${cell}`,
    configFormat: `EC/${dataUnits}-${parityUnits}-${Math.floor(cellBytes / 1024)}k`,
  });
}

/**
 * The key bytes each block group of an EC key holds, in order: groups of `dataUnits × blockSizeBytes`
 * (the OM allocates internal blocks of its block size, and a group holds d of them), the last one
 * partial; none for an empty key.
 */
export function ecBlockGroupLengths(sizeBytes: number, ec: EcReplication, blockSizeBytes: number): number[] {
  const capacity = ec.dataUnits * blockSizeBytes;
  const groups: number[] = [];
  for (let left = sizeBytes; left > 0; left -= capacity) groups.push(Math.min(left, capacity));
  return groups;
}

/**
 * The length of each internal block of a block group of `groupLengthBytes` key bytes, by replica
 * index 1..d+p (element 0 is index 1), as Ozone's reader computes it
 * (`ECBlockInputStream#internalBlockLength`): data cells go round the d data replicas a stripe at a
 * time, the last stripe may end mid-cell, and every parity replica is as long as replica 1.
 */
export function ecInternalBlockLengths(groupLengthBytes: number, ec: EcReplication): number[] {
  const { dataUnits: d, parityUnits: p, cellBytes: c } = ec;
  const stripe = c * d;
  const last = groupLengthBytes % stripe;
  const full = (groupLengthBytes - last) / d;
  const lastCell = Math.floor(last / c) + 1;
  const lengths: number[] = [];
  for (let index = 1; index <= d; index++) {
    lengths.push(index < lastCell ? full + c : index === lastCell ? full + (last % c) : full);
  }
  for (let i = 0; i < p; i++) lengths.push(lengths[0] as number);
  return lengths;
}

/**
 * Replica indexes a reader needs for a block group of `groupLengthBytes` (Ozone's
 * `ECBlockInputStreamProxy#expectedDataLocations`): min(⌈L / cell⌉, d). The data indexes past them
 * hold nothing of the group and are read as zeros, so a group reads while any that many of its
 * data indexes 1..expected and parity indexes survive.
 */
export function ecExpectedDataLocations(groupLengthBytes: number, ec: EcReplication): number {
  return Math.min(Math.ceil(groupLengthBytes / ec.cellBytes), ec.dataUnits);
}

/**
 * Whether Ozone's Java reader can still read a block group of `groupLengthBytes` with the replicas
 * of `lostReplicaIndexes` gone (stopped, or failing their checksums): the surviving data indexes
 * among 1..expected plus the surviving parity indexes must number at least the expected ones
 * ({@link ecExpectedDataLocations}; `ECBlockReconstructedStripeInputStream#selectIndexes`).
 */
export function ecGroupReadable(
  groupLengthBytes: number,
  ec: EcReplication,
  lostReplicaIndexes: Iterable<number>,
): boolean {
  const lost = new Set(lostReplicaIndexes);
  const expected = ecExpectedDataLocations(groupLengthBytes, ec);
  let surviving = 0;
  for (let index = 1; index <= expected; index++) if (!lost.has(index)) surviving++;
  for (let index = ec.dataUnits + 1; index <= ec.dataUnits + ec.parityUnits; index++)
    if (!lost.has(index)) surviving++;
  return surviving >= expected;
}
