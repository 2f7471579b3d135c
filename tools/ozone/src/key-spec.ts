import { checkInteger, checkOneOf, InvalidOptionError } from '@fastpath/core';
import { parseEcReplication, type EcReplication, type OzoneEcReplicationText } from './ec-replication.js';

/** Ozone's `ContainerProtos.ChecksumType` values. */
export const OZONE_CHECKSUM_TYPES = ['NONE', 'CRC32', 'CRC32C', 'SHA256', 'MD5'] as const;
export type OzoneChecksumType = (typeof OZONE_CHECKSUM_TYPES)[number];

export const OZONE_BUCKET_LAYOUTS = ['FILE_SYSTEM_OPTIMIZED', 'OBJECT_STORE', 'LEGACY'] as const;
export type OzoneBucketLayout = (typeof OZONE_BUCKET_LAYOUTS)[number];

/** The replicated (Ratis) forms a key or bucket can take, as Ozone's `configFormat` writes them. */
export const OZONE_KEY_REPLICATIONS = ['RATIS/THREE', 'RATIS/ONE'] as const;
export type OzoneRatisReplication = (typeof OZONE_KEY_REPLICATIONS)[number];
/** A key's or bucket's replication: `RATIS/THREE`, `RATIS/ONE`, or erasure coded in Ozone's text form (`rs-3-2-1024k`). */
export type OzoneKeyReplication = OzoneRatisReplication | OzoneEcReplicationText;

/**
 * One key for Ozone's Java client to write. Its bytes are the Ozone client contract suite's
 * `contractKeyBytes(size, seed)`.
 * A missing volume or bucket is created (the bucket with `bucketLayout`, else the OM's default).
 */
export interface KeyToWrite {
  volume: string;
  bucket: string;
  key: string;
  size: number;
  /** `ozone.client.checksum.type` of the writing client. Default `CRC32` (Ozone's default). */
  checksumType?: OzoneChecksumType;
  /** `ozone.client.bytes.per.checksum` of the writing client. Default 16384 (Ozone's default). */
  bytesPerChecksum?: number;
  /**
   * Chunk size of the writing client: its `ozone.client.stream.buffer.size` (Ozone's client
   * writes a chunk each time that buffer fills; `ozone.scm.chunk.size` does not reach the write
   * path), with the flush and max buffer sizes at 4× and 8× of it. Default: Ozone's 4 MiB.
   * Not for an EC key, whose chunks are its cells.
   */
  chunkSizeBytes?: number;
  /**
   * Block size for this key. The OM decides block sizes (`ozone.scm.block.size`, read once), so
   * the launcher sets the running OM's value for this key's write and restores it afterwards.
   * For an EC key it is the size of each internal block, so a block group holds data units × this
   * many key bytes. Default: the cluster's (Ozone's 256 MiB).
   */
  blockSizeBytes?: number;
  /** Seed of the content pattern (a signed 32-bit integer). Default 0. */
  seed?: number;
  /**
   * The key's replication, sent with the key (`KeyArgs.type` and, for EC,
   * `ecReplicationConfig`): `RATIS/THREE`, `RATIS/ONE`, or Ozone's EC text form
   * `<codec>-<data>-<parity>-<cell>[k]` (`rs-3-2-1024k`; the cluster needs data + parity
   * datanodes, and the OM's `ozone.replication.allowed-configs` must allow it, see the cluster's
   * `allowedReplicationConfigs`). Default: with `bucketReplication` none (the OM gives the key the
   * bucket's default), else `RATIS/THREE` with 3+ datanodes, else `RATIS/ONE`.
   */
  replication?: OzoneKeyReplication;
  /**
   * The bucket's default replication (`BucketArgs#setDefaultReplicationConfig`), set when the
   * writer creates the bucket; an existing bucket must already have it, or the write is refused.
   * Same forms as `replication`. Default: none (the OM's server default).
   */
  bucketReplication?: OzoneKeyReplication;
  bucketLayout?: OzoneBucketLayout;
  /**
   * Write with Ozone's streaming writer (`OzoneBucket#createStreamKey`: Ratis DataStream to the
   * pipeline's `RATIS_DATASTREAM` ports, a PutBlock over Ratis every
   * `ozone.client.datastream.buffer.flush.size`), as `ozone.fs.datastream.enabled` makes Ozone's
   * file systems write files above their threshold. The cluster must run with
   * `hdds.container.ratis.datastream.enabled`; RATIS keys only (Ozone falls back to its ordinary
   * writer for others). Its chunks are `ozone.client.datastream.min.packet.size` (1 MiB), which
   * `chunkSizeBytes` sets. Default: false.
   */
  dataStream?: boolean;
}

/** What a key became, as Ozone reports it after the write. */
export interface WrittenKey {
  readonly volume: string;
  readonly bucket: string;
  readonly key: string;
  readonly size: number;
  readonly seed: number;
  /** The key's replication as the OM recorded it, in the forms of `KeyToWrite.replication` (`RATIS/THREE`, `rs-3-2-64k`). */
  readonly replication: string;
  readonly bucketLayout: OzoneBucketLayout;
  /** The writing client's effective settings (Ozone raises a bytes-per-checksum below its minimum). */
  readonly checksumType: OzoneChecksumType;
  readonly bytesPerChecksum: number;
  /** The client's chunk size: its stream buffer, for an EC key the cell, for a streamed key its packet. */
  readonly chunkSizeBytes: number;
  /** SHA-256 (hex) of the bytes the Java client wrote. */
  readonly sha256: string;
  /** The key's blocks in order; ids are Java longs (local ids exceed 2^53), hence bigint. */
  readonly blocks: ReadonlyArray<WrittenBlock>;
}

export interface WrittenBlock {
  readonly containerId: bigint;
  readonly localId: bigint;
  /** Offset of the key's data within the block (0 for every block Ozone's client writes). */
  readonly offset: number;
  /** Offset of the block's first byte within the key. */
  readonly offsetInKey: number;
  /** The key bytes in the block (for an EC key, in its block group, parity not counted). */
  readonly length: number;
}

// Ozone's volume and bucket name rule (OmUtils / HddsClientUtils#verifyResourceName): 3-63
// characters of lower-case letters, digits, '-' and '.', starting and ending with a letter or digit.
const RESOURCE_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** Checks a volume or bucket name against Ozone's rule; throws `InvalidOptionError` naming `option`. */
export function checkOzoneName(option: string, name: unknown): string {
  if (typeof name !== 'string' || !RESOURCE_NAME.test(name) || name.includes('..')) {
    throw new InvalidOptionError(
      option,
      'an Ozone name is 3-63 characters of a-z, 0-9, "-" and ".", starting and ending with a letter or digit',
    );
  }
  return name;
}

/** What `writeKeys` checks a batch against: the cluster the keys go to. */
export interface KeyWriteContext {
  /** The replication of a key that names none (and whose bucket names none). */
  readonly defaultReplication: OzoneRatisReplication;
  /** Datanodes of the cluster: an EC key needs data + parity of them. */
  readonly datanodes: number;
  /** The OM's `ozone.replication.allowed-configs` (a Java regular expression), checked here when JavaScript reads it alike. */
  readonly allowedReplicationConfigs: string;
}

/**
 * Checks a replication text (`option` names it in the error): one of the Ratis forms, or an EC
 * form Ozone parses, that the cluster has datanodes for and whose config format the OM allows.
 * Returns it as sent to the launcher (EC in its lower-case text form).
 */
export function checkReplication(option: string, value: unknown, context: KeyWriteContext): string {
  let format: string;
  let sent: string;
  let ec: EcReplication | undefined;
  if (typeof value === 'string' && (OZONE_KEY_REPLICATIONS as readonly string[]).includes(value)) {
    format = value;
    sent = value;
  } else {
    ec = parseEcReplication(value, option);
    format = ec.configFormat;
    sent = ec.text;
    const nodes = ec.dataUnits + ec.parityUnits;
    if (nodes > context.datanodes) {
      throw new InvalidOptionError(
        option,
        `${ec.text} writes ${nodes} internal blocks per block group, each on its own datanode; the cluster has ${context.datanodes}`,
      );
    }
  }
  const allowed = javaWholeMatch(context.allowedReplicationConfigs);
  if (allowed !== undefined && !allowed.test(format)) {
    throw new InvalidOptionError(
      option,
      `the OM refuses ${format}: ozone.replication.allowed-configs is ${context.allowedReplicationConfigs} (see the cluster option allowedReplicationConfigs)`,
    );
  }
  return sent;
}

/** A Java pattern as `Matcher#matches` applies it (the whole input), or undefined when JavaScript cannot compile it. */
function javaWholeMatch(pattern: string): RegExp | undefined {
  if (pattern === '') return undefined; // Ozone: an empty pattern disables the check
  try {
    return new RegExp(`^(?:${pattern})$`);
  } catch {
    return undefined;
  }
}

/** Checks every key of a batch before the batch is sent, so a bad entry writes nothing. */
export function checkKeysToWrite(keys: readonly KeyToWrite[], context: KeyWriteContext): KeyToWrite[] {
  // Checked for plain-JavaScript callers, on an unknown-typed alias: Array.isArray on the
  // argument itself would narrow the readonly array to any[].
  const given: unknown = keys;
  if (!Array.isArray(given)) throw new InvalidOptionError('keys', 'expected an array of keys to write');
  const bucketDefaults = new Map<string, string>();
  return keys.map((spec, i) => {
    const at = `keys[${i}]`;
    if (typeof spec !== 'object' || spec === null) throw new InvalidOptionError(at, 'expected an object');
    for (const field of ['volume', 'bucket'] as const) checkOzoneName(`${at}.${field}`, spec[field]);
    if (typeof spec.key !== 'string' || spec.key.length === 0 || /[\0\r\n]/.test(spec.key)) {
      throw new InvalidOptionError(`${at}.key`, 'expected a non-empty key name without NUL or line breaks');
    }
    const bucketReplication =
      spec.bucketReplication === undefined
        ? undefined
        : checkReplication(`${at}.bucketReplication`, spec.bucketReplication, context);
    if (bucketReplication !== undefined) {
      const bucket = `${spec.volume}/${spec.bucket}`;
      const earlier = bucketDefaults.get(bucket);
      if (earlier !== undefined && earlier !== bucketReplication) {
        throw new InvalidOptionError(
          `${at}.bucketReplication`,
          `an earlier key of this batch gives ${bucket} the default ${earlier}`,
        );
      }
      bucketDefaults.set(bucket, bucketReplication);
    }
    const replication =
      spec.replication === undefined && bucketReplication !== undefined
        ? undefined
        : checkReplication(`${at}.replication`, spec.replication ?? context.defaultReplication, context);
    const erasureCoded = !(OZONE_KEY_REPLICATIONS as readonly (string | undefined)[]).includes(
      replication ?? bucketReplication,
    );
    if (spec.dataStream !== undefined && typeof spec.dataStream !== 'boolean')
      throw new InvalidOptionError(`${at}.dataStream`, 'expected true or false');
    if (erasureCoded && spec.dataStream === true) {
      throw new InvalidOptionError(
        `${at}.dataStream`,
        'Ozone streams RATIS keys only: an EC key goes through its own writer',
      );
    }
    if (erasureCoded && spec.chunkSizeBytes !== undefined) {
      throw new InvalidOptionError(
        `${at}.chunkSizeBytes`,
        "an EC key's chunks are its cells: the cell size is part of its replication",
      );
    }
    return {
      volume: spec.volume,
      bucket: spec.bucket,
      key: spec.key,
      size: checkInteger(`${at}.size`, spec.size, 0),
      checksumType: checkOneOf(`${at}.checksumType`, spec.checksumType ?? 'CRC32', OZONE_CHECKSUM_TYPES),
      bytesPerChecksum: checkInteger(
        `${at}.bytesPerChecksum`,
        spec.bytesPerChecksum ?? 16_384,
        1,
        2 ** 31 - 1,
      ),
      ...(spec.chunkSizeBytes === undefined
        ? {}
        : { chunkSizeBytes: checkInteger(`${at}.chunkSizeBytes`, spec.chunkSizeBytes, 1, 2 ** 31 - 1) }),
      ...(spec.blockSizeBytes === undefined
        ? {}
        : { blockSizeBytes: checkInteger(`${at}.blockSizeBytes`, spec.blockSizeBytes, 1) }),
      seed: checkInteger(`${at}.seed`, spec.seed ?? 0, -(2 ** 31), 2 ** 31 - 1),
      ...(replication === undefined ? {} : { replication: replication as OzoneKeyReplication }),
      ...(bucketReplication === undefined
        ? {}
        : { bucketReplication: bucketReplication as OzoneKeyReplication }),
      ...(spec.bucketLayout === undefined
        ? {}
        : { bucketLayout: checkOneOf(`${at}.bucketLayout`, spec.bucketLayout, OZONE_BUCKET_LAYOUTS) }),
      ...(spec.dataStream === true ? { dataStream: true } : {}),
    };
  });
}
