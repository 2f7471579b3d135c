// A block file opened by a datanode and passed to this process: positional reads on its
// descriptor, which is closed once it is released and no read is in flight on it (closing it
// under a read could let the number be reused by another file before that read runs).
import { close, read } from 'node:fs';
import { promisify } from 'node:util';
import { ShortCircuitError } from '../../ozone-errors.js';

const readAt = promisify(read);
const closeFd = promisify(close);

// A stream dropped without close() would keep its block files open for the process's life: close
// the descriptor of a LocalBlockFile that is garbage-collected. A read in flight keeps its file
// reachable, so this never closes a descriptor under a read.
const unreleased = new FinalizationRegistry<number>((fd) => {
  close(fd, () => undefined);
});

export class LocalBlockFile {
  readonly #fd: number;
  readonly #address: string;
  #inFlight = 0;
  #released = false;
  #closed = false;

  constructor(fd: number, address: string) {
    this.#fd = fd;
    this.#address = address;
    unreleased.register(this, fd, this);
  }

  /** Exactly `length` bytes at `position` of the block file; a short file or a failed read is a {@link ShortCircuitError}. */
  async read(position: number, length: number): Promise<Buffer> {
    if (this.#released) throw new ShortCircuitError(this.#address, 'the block file was released');
    this.#inFlight++;
    try {
      const out = Buffer.allocUnsafe(length);
      let done = 0;
      while (done < length) {
        const { bytesRead } = await readAt(this.#fd, out, done, length - done, position + done);
        if (bytesRead === 0) break;
        done += bytesRead;
      }
      if (done !== length)
        throw new ShortCircuitError(
          this.#address,
          `the block file has ${done} of ${length} bytes at ${position}`,
        );
      return out;
    } catch (err) {
      if (err instanceof ShortCircuitError) throw err;
      throw new ShortCircuitError(
        this.#address,
        `reading the passed block file: ${(err as Error).message}`,
        err,
      );
    } finally {
      this.#inFlight--;
      this.#closeWhenIdle();
    }
  }

  /** No new reads; the descriptor closes when the last read in flight ends. */
  release(): void {
    this.#released = true;
    this.#closeWhenIdle();
  }

  #closeWhenIdle(): void {
    if (!this.#released || this.#inFlight > 0 || this.#closed) return;
    this.#closed = true;
    unreleased.unregister(this);
    closeFd(this.#fd).catch(() => undefined);
  }
}
