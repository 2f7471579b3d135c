// Hadoop's file-system exceptions as typed errors with stable codes (FileNotFoundException,
// FileAlreadyExistsException, ParentNotDirectoryException, PathIsNotEmptyDirectoryException, ...).
import { OzoneError, type ChunkLocation } from '../ozone-errors.js';

/** The path (or one of the paths) of a file-system call does not exist. Hadoop: `FileNotFoundException`. */
export class FileNotFoundError extends OzoneError {
  /** The path that was not found, as the caller gave it (made absolute against the working directory). */
  readonly path: string;
  constructor(path: string, detail = 'No such file or directory', cause?: unknown) {
    super('ERR_OZONE_FS_FILE_NOT_FOUND', `${path}: ${detail}`, { cause });
    this.path = path;
  }
}

/** A create or mkdirs meets a file (or a directory, for create) already at the path. Hadoop: `FileAlreadyExistsException`. */
export class FileAlreadyExistsError extends OzoneError {
  /** The path that was to be created. */
  readonly path: string;
  constructor(path: string, detail = 'already exists', cause?: unknown) {
    super('ERR_OZONE_FS_FILE_ALREADY_EXISTS', `${path}: ${detail}`, { cause });
    this.path = path;
  }
}

/** A parent of the path is a file. Hadoop: `ParentNotDirectoryException`. */
export class ParentNotDirectoryError extends OzoneError {
  /** The path that was to be created; the message names the parent that is a file. */
  readonly path: string;
  constructor(path: string, parent: string, cause?: unknown) {
    super('ERR_OZONE_FS_PARENT_NOT_DIRECTORY', `${path}: parent ${parent} is not a directory`, { cause });
    this.path = path;
  }
}

/** A non-recursive delete of a directory that has entries. Hadoop: `PathIsNotEmptyDirectoryException`. */
export class PathIsNotEmptyDirectoryError extends OzoneError {
  /** The directory that was to be deleted. */
  readonly path: string;
  constructor(path: string, cause?: unknown) {
    super('ERR_OZONE_FS_PATH_IS_NOT_EMPTY_DIRECTORY', `${path}: directory is not empty`, { cause });
    this.path = path;
  }
}

/** A path or URI the file system cannot use: another scheme, a bad authority, a `:` or an empty part. */
export class InvalidPathError extends OzoneError {
  /** The path or URI string as given. */
  readonly path: string;
  constructor(path: string, detail: string) {
    super('ERR_OZONE_FS_INVALID_PATH', `${path}: ${detail}`);
    this.path = path;
  }
}

/** An operation Ozone's file systems do not offer on that path (renaming a bucket, a rename across buckets, a file at a bucket's path). */
export class UnsupportedOperationError extends OzoneError {
  constructor(message: string) {
    super('ERR_OZONE_FS_UNSUPPORTED', message);
  }
}

/** A read past the end of the file (`readFully`). Hadoop: `EOFException`. */
export class EndOfFileError extends OzoneError {
  constructor(message: string) {
    super('ERR_OZONE_FS_EOF', message);
  }
}

/**
 * Every replica of a chunk failed its checksums. Hadoop: `ChecksumException`. `location` names the
 * block, chunk and offset in the chunk of the first bad window; `attempts` holds each replica's error.
 */
export class ChecksumError extends OzoneError {
  /** The file being read. */
  readonly path: string;
  /** The block, chunk and offset in the chunk of the first window whose checksum did not match. */
  readonly location: ChunkLocation;
  /** Each replica's error, in the order tried; the last one is also the `cause`. */
  readonly attempts: readonly Error[];
  constructor(path: string, location: ChunkLocation, attempts: readonly Error[]) {
    super(
      'ERR_OZONE_FS_CHECKSUM',
      `${path}: checksum error on every replica of block ${location.containerId}/${location.localId} chunk ${location.chunkName} at chunk offset ${location.offsetInChunk}`,
      { cause: attempts[attempts.length - 1] },
    );
    this.path = path;
    this.location = location;
    this.attempts = attempts;
  }
}
