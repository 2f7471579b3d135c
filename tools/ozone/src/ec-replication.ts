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
