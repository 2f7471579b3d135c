import type { DataKey } from './data-key.js';

/**
 * Decrypts what positional reads of one encrypted key fetched. A multipart key is decrypted part
 * by part, each from counter 0 with the key's IV, because each part was encrypted by its own
 * stream starting at offset 0 (Ozone's `MultipartInputStream` of `OzoneCryptoInputStream`s).
 */
export class KeyDecryptor {
  readonly #key: DataKey;
  readonly #partStarts: readonly number[];

  /** `partStarts`: the key offset where each part begins, ascending, from 0 (one part: `[0]`). */
  constructor(key: DataKey, partStarts: readonly number[] = [0]) {
    this.#key = key;
    this.#partStarts = partStarts.length > 0 ? partStarts : [0];
  }

  /** Decrypts `data`, the bytes at key offset `position`, in place. */
  decryptInPlace(position: number, data: Uint8Array): void {
    let done = 0;
    while (done < data.length) {
      const at = position + done;
      let part = 0;
      while (part + 1 < this.#partStarts.length && (this.#partStarts[part + 1] as number) <= at) part++;
      const partStart = this.#partStarts[part] as number;
      const partEnd = this.#partStarts[part + 1] ?? Number.POSITIVE_INFINITY;
      const n = Math.min(data.length - done, partEnd - at);
      const view = data.subarray(done, done + n);
      view.set(this.#key.transformAt(at - partStart, view));
      done += n;
    }
  }

  /** Zeroes the data key. */
  destroy(): void {
    this.#key.destroy();
  }
}
