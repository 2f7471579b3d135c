// The FSDataInputStream analogue over a KeyInputStream: a cursor for read/seek/getPos, and
// positional reads that never touch it. Positional reads hold no lock and share no state across
// their I/O, so any number of them run at once on one stream (Java's FSInputStream serialises
// them on the stream's monitor).
import { ChecksumMismatchError, OzoneInvalidArgumentError, ReplicasExhaustedError } from '../ozone-errors.js';
import type { BadReplicaReport, KeyInputStream, KeyInputStreamStats } from '../key-input-stream.js';
import { ChecksumError, EndOfFileError } from './file-system-errors.js';

/**
 * A file opened for reading by {@link OzoneFileSystem.open} (Hadoop's `FSDataInputStream`): a
 * cursor for `read`/`seek`/`getPos`, and positional reads that leave the cursor alone and may run
 * concurrently. When every replica of a chunk fails its checksums, a read throws
 * {@link ChecksumError}.
 */
export class OzoneFSInputStream {
  /** The file's full URI (`ofs://om/vol/bucket/key`). */
  readonly path: string;
  readonly #key: KeyInputStream;
  #position = 0;
  /** Cursor reads run one after another (they share the cursor); positional reads skip this. */
  #cursorQueue: Promise<unknown> = Promise.resolve();

  /** @internal built by OzoneFileSystem#open */
  constructor(path: string, key: KeyInputStream) {
    this.path = path;
    this.#key = key;
  }

  /** Length of the file in bytes. */
  get length(): number {
    return this.#key.lengthBytes;
  }

  /** Whether this stream verifies checksums (captured from its file system when opened). */
  get verifyChecksum(): boolean {
    return this.#key.verifyChecksum;
  }

  /** What the stream's reads asked of the datanodes, counted since it was opened. */
  get stats(): Readonly<KeyInputStreamStats> {
    return this.#key.stats;
  }

  /** Replicas whose data failed their checksums on this stream's reads. */
  get badReplicas(): readonly BadReplicaReport[] {
    return this.#key.badReplicas;
  }

  /** Bytes of widened checksum windows held by the stream now. */
  get bufferedBytes(): number {
    return this.#key.cachedBytes;
  }

  /** The cursor: the offset in bytes where the next cursor read starts (0 when opened). */
  getPos(): number {
    return this.#position;
  }

  /**
   * Moves the cursor to `position` (bytes; the file's length is allowed, reads there return -1).
   * Throws `ERR_OZONE_INVALID_ARGUMENT` for a negative or non-integer position and an
   * {@link EndOfFileError} past the end.
   */
  seek(position: number): void {
    if (!Number.isSafeInteger(position) || position < 0)
      throw new OzoneInvalidArgumentError(`cannot seek to ${position}`);
    if (position > this.length)
      throw new EndOfFileError(
        `${this.path}: cannot seek to ${position}, past the end (${this.length} bytes)`,
      );
    this.#position = position;
  }

  /**
   * `read(buffer, offset?, length?)` reads at the cursor and moves it; `read(position, buffer,
   * offset, length)` is a positional read that leaves the cursor alone. Both return the bytes
   * read, or -1 at the end of the file (as Hadoop's streams do).
   */
  read(buffer: Uint8Array, offset?: number, length?: number): Promise<number>;
  read(position: number, buffer: Uint8Array, offset: number, length: number): Promise<number>;
  read(a: Uint8Array | number, b?: Uint8Array | number, c?: number, d?: number): Promise<number> {
    if (typeof a === 'number') return this.#pread(a, b as Uint8Array, c ?? 0, d ?? 0);
    const buffer = a;
    const offset = (b as number | undefined) ?? 0;
    const length = c ?? buffer.length - offset;
    const run = this.#cursorQueue.then(async () => {
      const n = await this.#pread(this.#position, buffer, offset, length);
      if (n > 0) this.#position += n;
      return n;
    });
    this.#cursorQueue = run.catch(() => undefined);
    return run;
  }

  /** Reads exactly `length` bytes at `position` into `buffer[offset…]`; an `EndOfFileError` if the file is shorter. */
  async readFully(
    position: number,
    buffer: Uint8Array,
    offset = 0,
    length = buffer.length - offset,
  ): Promise<void> {
    if (Number.isSafeInteger(position) && Number.isSafeInteger(length) && position + length > this.length)
      throw new EndOfFileError(
        `${this.path}: ${length} bytes at ${position} pass the end of the file (${this.length} bytes)`,
      );
    await this.#pread(position, buffer, offset, length);
  }

  async #pread(position: number, buffer: Uint8Array, offset: number, length: number): Promise<number> {
    if (length === 0) return 0;
    if (position >= this.length && Number.isSafeInteger(position)) return -1;
    try {
      return await this.#key.read(position, buffer, offset, length);
    } catch (err) {
      throw this.#checksumError(err);
    }
  }

  /** Every replica failing its checksums is Hadoop's ChecksumException, not a generic failure. */
  #checksumError(err: unknown): unknown {
    if (!(err instanceof ReplicasExhaustedError)) return err;
    const mismatches = err.attempts.filter(
      (a): a is ChecksumMismatchError => a instanceof ChecksumMismatchError,
    );
    if (mismatches.length === 0 || mismatches.length !== err.attempts.length) return err;
    return new ChecksumError(this.path, (mismatches[0] as ChecksumMismatchError).location, err.attempts);
  }

  /** Drops the widened windows the stream holds; later reads fetch again. */
  unbuffer(): void {
    this.#key.unbuffer();
  }

  /** Closes the stream and drops its buffers; reads after it throw `ERR_OZONE_CLOSED`. */
  close(): void {
    this.#key.close();
  }

  /** Same as {@link OzoneFSInputStream.close}, for `using`. */
  [Symbol.dispose](): void {
    this.close();
  }
}
