import { createHash } from 'node:crypto';
import { checkInteger, InvalidOptionError } from '@fastpath/core';
import {
  ecBlockGroupLengths,
  ecGroupReadable,
  ecInternalBlockLengths,
  parseEcReplication,
  type EcReplication,
  type OzoneEcReplicationText,
} from './ec-replication.js';
import { checkOzoneName, type KeyToWrite } from './key-spec.js';
import { keyPatternBytes } from './key-pattern-bytes.js';

/** Options of {@link erasureCodedKeySet}. */
export interface ErasureCodedKeySetOptions {
  /** The keys' EC replication, Ozone's text form. Default `rs-3-2-64k` (a 192 KiB stripe). */
  replication?: OzoneEcReplicationText;
  /** Default `ec-keys`. */
  volume?: string;
  /** Default: the replication's text (`rs-3-2-64k`), with `-default` when `viaBucketDefault`. */
  bucket?: string;
  /**
   * The OM's block size for these keys (`KeyToWrite.blockSizeBytes`): each internal block, so a
   * block group holds data units × this many key bytes. A multiple of the cell. Default: 2 cells
   * (two stripes per group: 384 KiB of key for `rs-3-2-64k`).
   */
  blockSizeBytes?: number;
  /**
   * Give the replication to the bucket (`bucketReplication`, Ozone's
   * `BucketArgs#setDefaultReplicationConfig`) and none to the keys, so that the OM applies the
   * bucket's default; else every key names it. Default false.
   */
  viaBucketDefault?: boolean;
  /** Seed of the first key; key i gets `seed + i`. Default 1000. */
  seed?: number;
}

/** One key of the set: what it is for, what to write, and what a reader must find. */
export interface ErasureCodedTestKey {
  /** What the size is, e.g. `stripe-plus-one`; also the key's name. */
  readonly name: string;
  /** For `RealOzoneCluster.writeKeys`. */
  readonly spec: KeyToWrite;
  readonly sizeBytes: number;
  readonly seed: number;
  /** Key bytes of each block group, in order (none for the empty key). */
  readonly groupLengths: readonly number[];
  /** Per block group, the length of each internal block by replica index (element 0 is index 1). */
  readonly internalBlockLengths: ReadonlyArray<readonly number[]>;
  /** The key's bytes `[offset, offset + length)` (default: to the end), as the writer wrote them. */
  expectedBytes(offset?: number, length?: number): Buffer;
  /** SHA-256 (hex) of the whole key, what `readKeyWithJava` reports for a correct read. */
  readonly sha256: string;
}

/** EC keys whose sizes sit on the layout's edges, for writing with Ozone's Java client and reading back. */
export interface ErasureCodedKeySet {
  readonly ec: EcReplication;
  readonly volume: string;
  readonly bucket: string;
  readonly blockSizeBytes: number;
  readonly keys: readonly ErasureCodedTestKey[];
  /** Every key's spec, in order: `cluster.writeKeys(set.specs)`. */
  readonly specs: readonly KeyToWrite[];
  /**
   * Whether a reader that reconstructs as Ozone's does can read `key` with the internal blocks of
   * `lostReplicaIndexes` gone (their datanodes stopped, or their bytes failing checksums): every
   * block group must keep enough of them ({@link ecGroupReadable}).
   */
  readable(key: ErasureCodedTestKey, lostReplicaIndexes: Iterable<number>): boolean;
}

/**
 * A set of erasure-coded keys of the sizes where EC layouts break: 0 B, 1 B, one cell −1/±0/+1,
 * one stripe −1/±0/+1, and several block groups ending mid-stripe, each with the bytes and the
 * layout (block group lengths, internal block lengths) a reader must find. Write it with
 * `cluster.writeKeys(set.specs)` on a cluster with data + parity datanodes whose
 * `allowedReplicationConfigs` allows the replication (`SMALL_CELL_ALLOWED_REPLICATION_CONFIGS` for
 * cells under 512 KiB).
 *
 * @example
 * ```ts
 * await using cluster = await startRealOzoneCluster({
 *   datanodes: 6,
 *   allowedReplicationConfigs: SMALL_CELL_ALLOWED_REPLICATION_CONFIGS,
 * });
 * const set = erasureCodedKeySet({ replication: 'rs-3-2-64k' });
 * await cluster.writeKeys(set.specs);
 * for (const key of set.keys) {
 *   const read = await cluster.readKeyWithJava(set.volume, set.bucket, key.name);
 *   // read.sha256 === key.sha256
 * }
 * ```
 */
export function erasureCodedKeySet(options: ErasureCodedKeySetOptions = {}): ErasureCodedKeySet {
  const ec = parseEcReplication(options.replication ?? 'rs-3-2-64k');
  const viaBucketDefault = options.viaBucketDefault ?? false;
  if (typeof viaBucketDefault !== 'boolean')
    throw new InvalidOptionError('viaBucketDefault', 'expected a boolean');
  const volume = checkOzoneName('volume', options.volume ?? 'ec-keys');
  const bucket = checkOzoneName(
    'bucket',
    options.bucket ?? `${ec.text}${viaBucketDefault ? '-default' : ''}`,
  );
  const c = ec.cellBytes;
  const blockSizeBytes = checkInteger('blockSizeBytes', options.blockSizeBytes ?? 2 * c, c);
  if (blockSizeBytes % c !== 0)
    throw new InvalidOptionError('blockSizeBytes', `expected a multiple of the cell, ${c} bytes`);
  const seed = checkInteger('seed', options.seed ?? 1000, -(2 ** 31), 2 ** 31 - 64);
  const stripe = c * ec.dataUnits;
  const group = blockSizeBytes * ec.dataUnits;
  const sizes: Array<[string, number]> = [
    ['empty', 0],
    ['one-byte', 1],
    ['cell-minus-one', c - 1],
    ['cell', c],
    ['cell-plus-one', c + 1],
    ['stripe-minus-one', stripe - 1],
    ['stripe', stripe],
    ['stripe-plus-one', stripe + 1],
    // Two full groups, then one that ends in its second stripe, in that stripe's second cell.
    ['several-groups', 2 * group + stripe + c + 7],
  ];
  const keys = sizes.map(([name, sizeBytes], i): ErasureCodedTestKey => {
    const keySeed = seed + i;
    const groupLengths = ecBlockGroupLengths(sizeBytes, ec, blockSizeBytes);
    const spec: KeyToWrite = {
      volume,
      bucket,
      key: name,
      size: sizeBytes,
      seed: keySeed,
      blockSizeBytes,
      ...(viaBucketDefault
        ? { bucketReplication: ec.text as OzoneEcReplicationText }
        : { replication: ec.text as OzoneEcReplicationText }),
    };
    return Object.freeze({
      name,
      spec: Object.freeze(spec),
      sizeBytes,
      seed: keySeed,
      groupLengths: Object.freeze(groupLengths),
      internalBlockLengths: Object.freeze(
        groupLengths.map((l) => Object.freeze(ecInternalBlockLengths(l, ec))),
      ),
      expectedBytes: (offset = 0, length = sizeBytes - offset) => keyPatternBytes(length, keySeed, offset),
      sha256: patternSha256(sizeBytes, keySeed),
    });
  });
  return Object.freeze({
    ec,
    volume,
    bucket,
    blockSizeBytes,
    keys: Object.freeze(keys),
    specs: Object.freeze(keys.map((k) => k.spec)),
    readable: (key: ErasureCodedTestKey, lost: Iterable<number>) => {
      const indexes = [...lost];
      return key.groupLengths.every((l) => ecGroupReadable(l, ec, indexes));
    },
  });
}

const PIECE = 1 << 20;

function patternSha256(sizeBytes: number, seed: number): string {
  const hash = createHash('sha256');
  for (let at = 0; at < sizeBytes; at += PIECE)
    hash.update(keyPatternBytes(Math.min(PIECE, sizeBytes - at), seed, at));
  return hash.digest('hex');
}
