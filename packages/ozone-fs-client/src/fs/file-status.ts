// The FileStatus of Hadoop's FileSystem, as the Ozone file systems fill it.

/** A file or directory. Times in ms since the epoch; `path` is the full URI. */
export interface FileStatus {
  /** Full URI, e.g. `ofs://om:8981/vol1/bucket1/dir/file`. */
  readonly path: string;
  /** Bytes (0 for a directory). */
  readonly length: number;
  readonly isDirectory: boolean;
  readonly isFile: boolean;
  /** Block size of the file (the OM's `blockSize`; 0 for volumes, buckets and the root). */
  readonly blockSize: number;
  readonly modificationTime: number;
  readonly owner: string;
  /** Replicas of each block: the key's replication factor (3 for RATIS/THREE, 1 for ONE), 0 for a directory. */
  readonly replication: number;
}
