import { checkInteger, checkOneOf, InvalidOptionError } from '@fastpath/core';

/** Ozone's `ContainerProtos.ChecksumType` values. */
export const OZONE_CHECKSUM_TYPES = ['NONE', 'CRC32', 'CRC32C', 'SHA256', 'MD5'] as const;
export type OzoneChecksumType = (typeof OZONE_CHECKSUM_TYPES)[number];

export const OZONE_BUCKET_LAYOUTS = ['FILE_SYSTEM_OPTIMIZED', 'OBJECT_STORE', 'LEGACY'] as const;
export type OzoneBucketLayout = (typeof OZONE_BUCKET_LAYOUTS)[number];

export const OZONE_KEY_REPLICATIONS = ['RATIS/THREE', 'RATIS/ONE'] as const;
export type OzoneKeyReplication = (typeof OZONE_KEY_REPLICATIONS)[number];

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
   */
  chunkSizeBytes?: number;
  /**
   * Block size for this key. The OM decides block sizes (`ozone.scm.block.size`, read once), so
   * the launcher sets the running OM's value for this key's write and restores it afterwards.
   * Default: the cluster's (Ozone's 256 MiB).
   */
  blockSizeBytes?: number;
  /** Seed of the content pattern (a signed 32-bit integer). Default 0. */
  seed?: number;
  /** Default `RATIS/THREE` with 3+ datanodes, else `RATIS/ONE`. */
  replication?: OzoneKeyReplication;
  bucketLayout?: OzoneBucketLayout;
}

/** What a key became, as Ozone reports it after the write. */
export interface WrittenKey {
  readonly volume: string;
  readonly bucket: string;
  readonly key: string;
  readonly size: number;
  readonly seed: number;
  readonly replication: string;
  readonly bucketLayout: OzoneBucketLayout;
  /** The writing client's effective settings (Ozone raises a bytes-per-checksum below its minimum). */
  readonly checksumType: OzoneChecksumType;
  readonly bytesPerChecksum: number;
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

/** Checks every key of a batch before the batch is sent, so a bad entry writes nothing. */
export function checkKeysToWrite(
  keys: readonly KeyToWrite[],
  defaultReplication: OzoneKeyReplication,
): KeyToWrite[] {
  // Checked for plain-JavaScript callers, on an unknown-typed alias: Array.isArray on the
  // argument itself would narrow the readonly array to any[].
  const given: unknown = keys;
  if (!Array.isArray(given)) throw new InvalidOptionError('keys', 'expected an array of keys to write');
  return keys.map((spec, i) => {
    const at = `keys[${i}]`;
    if (typeof spec !== 'object' || spec === null) throw new InvalidOptionError(at, 'expected an object');
    for (const field of ['volume', 'bucket'] as const) checkOzoneName(`${at}.${field}`, spec[field]);
    if (typeof spec.key !== 'string' || spec.key.length === 0 || /[\0\r\n]/.test(spec.key)) {
      throw new InvalidOptionError(`${at}.key`, 'expected a non-empty key name without NUL or line breaks');
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
      replication: checkOneOf(
        `${at}.replication`,
        spec.replication ?? defaultReplication,
        OZONE_KEY_REPLICATIONS,
      ),
      ...(spec.bucketLayout === undefined
        ? {}
        : { bucketLayout: checkOneOf(`${at}.bucketLayout`, spec.bucketLayout, OZONE_BUCKET_LAYOUTS) }),
    };
  });
}
