import { closeSync, openSync, readSync } from 'node:fs';
import { checkInteger, checkNonEmptyString } from '@fastpath/core';
import {
  DeviceReadError,
  DeviceShortReadError,
  DeviceUnavailableError,
  SecureRandomClosedError,
} from './secure-random-errors.js';
import type { SecureRandom } from './secure-random.js';
import { byteView, checkDrawSize, ownedBuffer } from './internal/draw-checks.js';

/** Options of {@link DeviceSecureRandom}. */
export interface DeviceSecureRandomOptions {
  /**
   * Path of the random device (Hadoop: `hadoop.security.random.device.file.path`).
   * Default: `'/dev/urandom'`.
   */
  path?: string;
  /**
   * Size of the reservoir in bytes: every refill reads this many bytes from the device in full.
   * Default: `8192` (Hadoop's `OsSecureRandom` reservoir). From 1 to 16 MiB.
   */
  reservoirBytes?: number;
}

/** Defaults of {@link DeviceSecureRandomOptions}. */
export const DEFAULT_DEVICE_SECURE_RANDOM_OPTIONS: Readonly<Required<DeviceSecureRandomOptions>> =
  Object.freeze({
    path: '/dev/urandom',
    reservoirBytes: 8192,
  });

const MAX_RESERVOIR_BYTES = 16 * 1024 * 1024;
// A blocking device read is only interrupted by a signal; a device that keeps saying "try again"
// is broken, and spinning on it forever would hang the caller.
const MAX_READ_RETRIES = 100;

// A reader dropped without close() must not leak its descriptor (Hadoop added finalize() for this).
const descriptorCloser = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // Already closed: nothing left to release.
  }
});

/**
 * Reads random bytes from an OS device file through a reservoir: the analogue of Hadoop's
 * `OsSecureRandom`, kept as the baseline that HADOOP-16011 moved away from.
 *
 * The device is opened at construction (so a bad path fails at once) and the reservoir is read
 * in full on the first draw and whenever it runs out. Unlike Hadoop, served bytes are erased from
 * the reservoir. Creating one per use (as Hadoop's codec did per connection) costs an open, a full
 * reservoir read and a close per use: hundreds of times slower than {@link PooledSecureRandom}.
 *
 * @example
 * ```ts
 * using random = new DeviceSecureRandom({ path: '/dev/urandom' });
 * const key = random.bytes(16);
 * ```
 */
export class DeviceSecureRandom implements SecureRandom {
  readonly impl = 'device' as const;
  /** The device path this reader uses. */
  readonly path: string;
  #fd: number;
  #closed = false;
  readonly #reservoir: Uint8Array;
  // Starts exhausted: the first draw reads a whole reservoir, as Hadoop does.
  #pos: number;

  constructor(options: DeviceSecureRandomOptions = {}) {
    const path = checkNonEmptyString('path', options.path ?? DEFAULT_DEVICE_SECURE_RANDOM_OPTIONS.path);
    const reservoirBytes = checkInteger(
      'reservoirBytes',
      options.reservoirBytes ?? DEFAULT_DEVICE_SECURE_RANDOM_OPTIONS.reservoirBytes,
      1,
      MAX_RESERVOIR_BYTES,
    );
    this.path = path;
    try {
      this.#fd = openSync(path, 'r');
    } catch (err) {
      throw new DeviceUnavailableError(path, err);
    }
    descriptorCloser.register(this, this.#fd, this);
    this.#reservoir = new Uint8Array(new ArrayBuffer(reservoirBytes));
    this.#pos = reservoirBytes;
  }

  fill<T extends ArrayBufferView>(target: T): T {
    this.#draw(byteView(target));
    return target;
  }

  bytes(size: number): Buffer {
    checkDrawSize(size);
    if (this.#closed) throw new SecureRandomClosedError(this.impl);
    return this.#draw(ownedBuffer(size));
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#reservoir.fill(0);
    this.#pos = this.#reservoir.length;
    descriptorCloser.unregister(this);
    try {
      closeSync(this.#fd);
    } catch {
      // Nothing useful to do: the descriptor is gone either way.
    }
  }

  /** Same as `close()`, for `using`: wipes the reservoir and closes the device descriptor; idempotent. */
  [Symbol.dispose](): void {
    this.close();
  }

  #draw<V extends Uint8Array>(view: V): V {
    try {
      if (this.#closed) throw new SecureRandomClosedError(this.impl);
      const reservoir = this.#reservoir;
      const size = view.length;
      let done = 0;
      while (done < size) {
        if (this.#pos >= reservoir.length) this.#refill();
        const pos = this.#pos;
        const n = Math.min(size - done, reservoir.length - pos);
        view.set(reservoir.subarray(pos, pos + n), done);
        reservoir.fill(0, pos, pos + n);
        this.#pos = pos + n;
        done += n;
      }
      return view;
    } catch (err) {
      view.fill(0);
      throw err;
    }
  }

  /** Reads a whole reservoir, looping over partial reads; on any failure the reservoir stays empty. */
  #refill(): void {
    const reservoir = this.#reservoir;
    let got = 0;
    let retries = 0;
    try {
      while (got < reservoir.length) {
        let n: number;
        try {
          n = readSync(this.#fd, reservoir, got, reservoir.length - got, null);
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          if ((code === 'EINTR' || code === 'EAGAIN') && ++retries <= MAX_READ_RETRIES) continue;
          throw new DeviceReadError(this.path, err);
        }
        if (n === 0) throw new DeviceShortReadError(this.path, reservoir.length, got);
        got += n;
      }
    } catch (err) {
      reservoir.fill(0);
      this.#pos = reservoir.length;
      throw err;
    }
    this.#pos = 0;
  }
}
