import { TokenCreationAbortedError, TokenStoreError } from '../../token-errors.js';
import { decodeSharedCount, encodeSharedCount } from '@fastpath/hadoop-common';
import { ZK_BAD_VERSION, type ZkSession } from './zk-session.js';

const INT32_MAX = 0x7fff_ffff;
const CAS_ATTEMPTS = 1000;

/**
 * Sequence numbers and master-key ids from Hadoop's shared counters (`ZKDTSMSeqNumRoot`,
 * `ZKDTSMKeyIdRoot`): a range of `batchSize` numbers is reserved by compare-and-set on the
 * counter's version and handed out locally (Hadoop's `incrSharedCount`). The caller serialises
 * `allocate` (the allocator mutex, or the write lock in `'global'` mode).
 */
export class ZkSequenceAllocator {
  readonly #session: ZkSession;
  readonly #seqNumPath: string;
  readonly #keyIdPath: string;
  readonly #batchSize: number;
  #current = 0;
  #max = 0;

  constructor(session: ZkSession, paths: { seqNumRoot: string; keyIdRoot: string }, batchSize: number) {
    this.#session = session;
    this.#seqNumPath = paths.seqNumRoot;
    this.#keyIdPath = paths.keyIdRoot;
    this.#batchSize = batchSize;
  }

  /** The range numbers are handed from: `(current, max]` is still unused. */
  get range(): { current: number; max: number } {
    return { current: this.#current, max: this.#max };
  }

  /** The next sequence number; reserves a new range first when this one is used up. */
  async allocate(signal: AbortSignal | undefined, beforeRefill: () => void | Promise<void>): Promise<number> {
    if (this.#current >= this.#max) {
      await beforeRefill();
      await this.reserveRange(signal);
    }
    return ++this.#current;
  }

  /**
   * Reserves the next range by compare-and-set on the shared counter. The local range changes
   * only after ZooKeeper confirmed the reservation: an aborted or failed refill leaves it used
   * up, so no number outside a reserved range is ever handed out.
   */
  async reserveRange(signal: AbortSignal | undefined): Promise<void> {
    const start = await this.#counterAdd(this.#seqNumPath, this.#batchSize, signal);
    this.#current = start;
    this.#max = start + this.#batchSize;
  }

  /** The next master-key id (Hadoop's `incrementCurrentKeyId`). */
  async nextKeyId(): Promise<number> {
    return (await this.#counterAdd(this.#keyIdPath, 1, undefined)) + 1;
  }

  /** Adds `delta` to a shared counter by compare-and-set on its version; resolves the old value. */
  async #counterAdd(path: string, delta: number, signal: AbortSignal | undefined): Promise<number> {
    for (let attempt = 1; ; attempt++) {
      const { data, stat } = await abortable(this.#session.getData(path), signal);
      const value = decodeSharedCount(data);
      if (value > INT32_MAX - delta) {
        throw new TokenStoreError(
          `shared counter ${path} is exhausted: ${value} + ${delta} does not fit in 32 bits`,
        );
      }
      try {
        await abortable(this.#session.setData(path, encodeSharedCount(value + delta), stat.version), signal);
        return value;
      } catch (error) {
        if (error instanceof TokenStoreError && error.zkCode === ZK_BAD_VERSION && attempt < CAS_ATTEMPTS)
          continue;
        throw error;
      }
    }
  }
}

/** Races `promise` against `signal`: an abort rejects at once, whatever the operation does. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  promise.catch(() => undefined);
  if (signal.aborted) return Promise.reject(abortError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function abortError(signal: AbortSignal): TokenCreationAbortedError {
  return new TokenCreationAbortedError(
    'token creation aborted while reserving a sequence range; nothing was issued',
    {
      cause: signal.reason,
    },
  );
}
