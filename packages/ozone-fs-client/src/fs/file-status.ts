// The FileStatus of Hadoop's FileSystem, as the Ozone file systems fill it.

/** A file or directory. Times in ms since the epoch; `path` is the full URI. */
export interface FileStatus {
  /** Full URI, e.g. `ofs://om:8981/vol1/bucket1/dir/file`. */
  readonly path: string;
  /** Bytes (0 for a directory). */
  readonly length: number;
  /** True for a directory, including the root, a volume or a bucket. */
  readonly isDirectory: boolean;
  /** True for a file; always the opposite of `isDirectory`. */
  readonly isFile: boolean;
  /** Block size of the file (the OM's `blockSize`; 0 for volumes, buckets and the root). */
  readonly blockSize: number;
  /** Last modification in ms since the epoch; a volume's or bucket's creation time, 0 for the root. */
  readonly modificationTime: number;
  /** The owning user: the key's owner for files and directories, the volume's owner for a volume, this file system's user for a bucket and the root. */
  readonly owner: string;
  /** Replicas of each block: the key's replication factor (3 for RATIS/THREE, 1 for ONE), data + parity for EC (5 for rs-3-2), 0 for a directory. */
  readonly replication: number;
}
