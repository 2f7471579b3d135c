import { startupSnapshot } from 'node:v8';
import { checkInteger, checkNumber, InvalidOptionError, systemClock } from '@fastpath/core';
import type { Clock } from '@fastpath/core';
import { SecureRandomClosedError } from './secure-random-errors.js';
import type { SecureRandom } from './secure-random.js';
import { byteView, checkDrawSize, ownedBuffer } from './internal/draw-checks.js';
import { systemRandomFill } from './internal/system-random-fill.js';

/** Options of {@link PooledSecureRandom}. */
export interface PooledSecureRandomOptions {
  /**
   * Bytes drawn from `crypto.randomFillSync` per refill; at most this many bytes are served
   * from one refill. Default: `16384` (16 KiB). A multiple of 16 from 256 to 16 MiB.
   */
  poolBytes?: number;
  /**
   * Maximum age of buffered bytes in milliseconds: older unserved bytes are wiped instead of
   * served (the next draw refills). Default: `1000`. From 1 to 3,600,000 (one hour).
   */
  maxPoolAgeMs?: number;
  /**
   * Draws of at least this many bytes skip the pool and go straight to `crypto.randomFillSync`
   * (for them the per-call cost no longer dominates). Default: `4096`, or `poolBytes` when that
   * is smaller. From 1 to `poolBytes`.
   */
  directMinBytes?: number;
  /** Where pool age is read from (`monotonicMs()`). Default: the system clock. */
  clock?: Clock;
}

/** Defaults of {@link PooledSecureRandomOptions}. */
export const DEFAULT_POOLED_SECURE_RANDOM_OPTIONS: Readonly<Required<PooledSecureRandomOptions>> =
  Object.freeze({
    poolBytes: 16384,
    maxPoolAgeMs: 1000,
    directMinBytes: 4096,
    clock: systemClock,
  });

// Draws up to this size are copied and erased with a plain loop over 32-bit words: for a few dozen
// bytes that is several times cheaper than the native set()/fill() calls and the subarray they
// need. Every draw consumes whole words (up to 3 bytes more than asked, erased with the rest),
// which keeps the read position word-aligned.
const LOOP_MAX_BYTES = 64;
// Reading a clock costs about as much as a whole small draw, so the age and pid are checked
// when serving crosses one of these boundaries in the pool (and by a timer when idle), not per draw.
const CHECKPOINT_BYTES = 4096;
const MIN_POOL_BYTES = 256;
const MAX_POOL_BYTES = 16 * 1024 * 1024;
const MAX_POOL_AGE_MS = 3_600_000;
const EMPTY = new Uint8Array(0);
const EMPTY_WORDS = new Uint32Array(0);

// Set by the class's static block: the only way to read the private pool state (for tests), and
// the one-pass session draw that fillSessionKeys uses (internal, not a method, so it is not public).
let inspectPoolState: (random: PooledSecureRandom) => PoolState;
let fillFourFromPool: (
  random: SecureRandom,
  a: Uint8Array,
  b: Uint8Array,
  c: Uint8Array,
  d: Uint8Array,
) => boolean;

/**
 * The default generator: a per-thread pool filled by `crypto.randomFillSync`, served by copy.
 *
 * Node's CSPRNG costs about 2 µs per call whatever the size, for small draws, so one 16 KiB refill
 * serves about a thousand keys for the price of a few calls. Each served byte is copied into the
 * caller's memory and erased from the pool at once; the caller never gets a view into the pool.
 * Buffered bytes expire after `maxPoolAgeMs`; large draws bypass the pool. State lives in private
 * fields of this instance (an `ArrayBuffer`, never a `SharedArrayBuffer`), so worker threads never
 * share a pool: each thread loads its own module copy and its own default instance. While a V8
 * startup snapshot is being built nothing is buffered, and the pool is wiped before serialization.
 *
 * @example
 * ```ts
 * const random = new PooledSecureRandom(); // or use generateSecureRandom()
 * const key = random.bytes(16);
 * const iv = random.fill(Buffer.alloc(16));
 * ```
 */
export class PooledSecureRandom implements SecureRandom {
  readonly impl = 'pooled' as const;
  readonly #poolBytes: number;
  readonly #maxPoolAgeMs: number;
  readonly #directMinBytes: number;
  readonly #loopMaxBytes: number;
  readonly #clock: Clock;
  // Unserved bytes are #pool[#pos, #end). Draws are served without any check while they end at or
  // before #limit (the next checkpoint or #end); #limit = 0 sends every draw to the slow path.
  #pool: Uint8Array = EMPTY;
  #words: Uint32Array = EMPTY_WORDS;
  #pos = 0;
  #end = 0;
  #limit = 0;
  #filledAtMs = 0;
  #filledInPid = 0;
  #refills = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;
  #buildingSnapshot = false;

  constructor(options: PooledSecureRandomOptions = {}) {
    const defaults = DEFAULT_POOLED_SECURE_RANDOM_OPTIONS;
    this.#poolBytes = checkInteger(
      'poolBytes',
      options.poolBytes ?? defaults.poolBytes,
      MIN_POOL_BYTES,
      MAX_POOL_BYTES,
    );
    if (this.#poolBytes % 16 !== 0) {
      throw new InvalidOptionError('poolBytes', `expected a multiple of 16, got ${this.#poolBytes}`);
    }
    this.#maxPoolAgeMs = checkNumber(
      'maxPoolAgeMs',
      options.maxPoolAgeMs ?? defaults.maxPoolAgeMs,
      1,
      MAX_POOL_AGE_MS,
    );
    this.#directMinBytes = checkInteger(
      'directMinBytes',
      options.directMinBytes ?? Math.min(defaults.directMinBytes, this.#poolBytes),
      1,
      this.#poolBytes,
    );
    const clock = options.clock ?? defaults.clock;
    if (typeof clock?.monotonicMs !== 'function') {
      throw new InvalidOptionError('clock', 'expected an object with a monotonicMs() method');
    }
    this.#clock = clock;
    this.#loopMaxBytes = Math.min(LOOP_MAX_BYTES, this.#directMinBytes - 1);
    if (startupSnapshot.isBuildingSnapshot()) this.#watchSnapshot();
  }

  fill<T extends ArrayBufferView>(target: T): T {
    if (target instanceof Uint8Array) {
      const size = target.length;
      const pos = this.#pos;
      if (size <= this.#loopMaxBytes && pos + size <= this.#limit) {
        this.#pos = copyWords(this.#words, pos, target, size);
        return target;
      }
    }
    this.#fillView(byteView(target));
    return target;
  }

  bytes(size: number): Buffer {
    if ((size | 0) === size && size > 0 && size <= this.#loopMaxBytes) {
      const pos = this.#pos;
      if (pos + size <= this.#limit) {
        const out = ownedBuffer(size);
        this.#pos = copyWords(this.#words, pos, out, size);
        return out;
      }
    }
    checkDrawSize(size);
    if (this.#closed) throw new SecureRandomClosedError(this.impl);
    return this.#fillView(ownedBuffer(size));
  }

  close(): void {
    this.#closed = true;
    this.#discard();
  }

  /** Same as `close()`, for `using`: wipes the pool and stops its expiry timer; idempotent. */
  [Symbol.dispose](): void {
    this.close();
  }

  /** Every draw the fast paths in fill() and bytes() do not take. */
  #fillView<V extends Uint8Array>(view: V): V {
    const size = view.length;
    if (this.#closed) {
      view.fill(0);
      throw new SecureRandomClosedError(this.impl);
    }
    if (size === 0) return view;
    if (size >= this.#directMinBytes || this.#buildingSnapshot) {
      systemRandomFill(view);
      return view;
    }
    let pos = this.#pos;
    if (pos + size > this.#limit) pos = this.#checkpoint(size);
    if (size <= LOOP_MAX_BYTES) {
      this.#pos = copyWords(this.#words, pos, view, size);
    } else {
      const pool = this.#pool;
      const next = alignUp(pos + size);
      view.set(pool.subarray(pos, pos + size));
      pool.fill(0, pos, next);
      this.#pos = next;
    }
    return view;
  }

  /**
   * Fills four small views (one connection's keys and IVs) in one pass over the pool: one bounds
   * check, no clock read, no allocation. Anything unusual (a checkpoint or refill due, a closed
   * pool, parts that must bypass the pool) takes the careful path, which zeroes all four on error.
   */
  #fillFour(a: Uint8Array, b: Uint8Array, c: Uint8Array, d: Uint8Array): void {
    const sa = a.length;
    const sb = b.length;
    const sc = c.length;
    const sd = d.length;
    let pos = this.#pos;
    // Each part consumes whole words (see copyWords).
    const total = ((sa + 3) & ~3) + ((sb + 3) & ~3) + ((sc + 3) & ~3) + ((sd + 3) & ~3);
    // (sa | sb | sc | sd) is at least the largest size: too large sends the set down the careful path,
    // which checks each part on its own.
    if (pos + total > this.#limit || (sa | sb | sc | sd) > this.#loopMaxBytes) {
      this.#fillFourCarefully(a, b, c, d, total);
      return;
    }
    const words = this.#words;
    pos = copyWords(words, pos, a, sa);
    pos = copyWords(words, pos, b, sb);
    pos = copyWords(words, pos, c, sc);
    this.#pos = copyWords(words, pos, d, sd);
  }

  #fillFourCarefully(a: Uint8Array, b: Uint8Array, c: Uint8Array, d: Uint8Array, total: number): void {
    try {
      const bypass =
        this.#closed ||
        this.#buildingSnapshot ||
        Math.max(a.length, b.length, c.length, d.length) > this.#loopMaxBytes ||
        total > this.#poolBytes;
      if (bypass) {
        this.#fillView(a);
        this.#fillView(b);
        this.#fillView(c);
        this.#fillView(d);
        return;
      }
      // Check age and pid once for the whole set, then serve all four from the same pool.
      let pos = this.#pos + total > this.#limit ? this.#checkpoint(total) : this.#pos;
      const words = this.#words;
      pos = copyWords(words, pos, a, a.length);
      pos = copyWords(words, pos, b, b.length);
      pos = copyWords(words, pos, c, c.length);
      this.#pos = copyWords(words, pos, d, d.length);
    } catch (err) {
      // A half-filled key set must not look usable: zero every part, filled or not.
      a.fill(0);
      b.fill(0);
      c.fill(0);
      d.fill(0);
      throw err;
    }
  }

  /**
   * Called when a draw of `size` bytes would cross #limit: checks age and pid, then either moves
   * the limit on or refills. Returns the position to serve from.
   */
  #checkpoint(size: number): number {
    const now = this.#clock.monotonicMs();
    const pos = this.#pos;
    const fresh = now - this.#filledAtMs < this.#maxPoolAgeMs && process.pid === this.#filledInPid;
    if (fresh && pos + size <= this.#end) {
      this.#limit = Math.min(this.#end, pos + Math.max(size, CHECKPOINT_BYTES));
      return pos;
    }
    this.#refill(size, now);
    return 0;
  }

  #refill(size: number, now: number): void {
    if (this.#pool.length !== this.#poolBytes) {
      const memory = new ArrayBuffer(this.#poolBytes);
      this.#pool = new Uint8Array(memory);
      this.#words = new Uint32Array(memory);
    }
    const pool = this.#pool;
    // A failed refill leaves the pool empty (systemRandomFill zeroes it), so the next draw retries.
    this.#pos = this.#end = this.#limit = 0;
    systemRandomFill(pool);
    this.#refills++;
    this.#filledAtMs = now;
    this.#filledInPid = process.pid;
    this.#end = pool.length;
    this.#limit = Math.min(this.#end, Math.max(size, CHECKPOINT_BYTES));
    this.#armExpiry(this.#maxPoolAgeMs);
  }

  /** Wipes the unserved bytes and gives the pool memory back; the next draw refills. */
  #discard(): void {
    this.#pool.fill(0);
    this.#pool = EMPTY;
    this.#words = EMPTY_WORDS;
    this.#pos = this.#end = this.#limit = 0;
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
  }

  // Draws check the age only at checkpoints, so a pool left idle would keep its bytes: a timer
  // wipes it once they are too old. One timer per instance at most; it holds the instance weakly
  // so a dropped generator can still be collected, and it never keeps the process alive.
  #armExpiry(delayMs: number): void {
    if (this.#timer !== undefined) return;
    const ref = new WeakRef(this);
    this.#timer = setTimeout(() => {
      const random = ref.deref();
      if (random !== undefined) random.#expire();
    }, delayMs);
    this.#timer.unref?.();
  }

  #expire(): void {
    this.#timer = undefined;
    if (this.#pos >= this.#end) return;
    const ageMs = this.#clock.monotonicMs() - this.#filledAtMs;
    if (ageMs >= this.#maxPoolAgeMs) this.#discard();
    else this.#armExpiry(this.#maxPoolAgeMs - ageMs);
  }

  // A startup snapshot would copy a filled pool into every process started from it, and they
  // would all serve the same bytes. So: no buffering until the snapshot has been deserialized,
  // and a wipe right before serialization in case anything was buffered.
  #watchSnapshot(): void {
    this.#buildingSnapshot = true;
    startupSnapshot.addSerializeCallback(() => this.#discard());
    startupSnapshot.addDeserializeCallback(() => {
      this.#discard();
      this.#buildingSnapshot = false;
    });
  }

  static {
    // A brand check rather than instanceof: it cannot be fooled by prototypes and costs less.
    fillFourFromPool = (random, a, b, c, d) => {
      if (!(#fillFour in random)) return false;
      random.#fillFour(a, b, c, d);
      return true;
    };
    inspectPoolState = (random) => ({
      pool: random.#pool,
      pos: random.#pos,
      end: random.#end,
      refills: random.#refills,
      expiryArmed: random.#timer !== undefined,
      buildingSnapshot: random.#buildingSnapshot,
    });
  }
}

/**
 * Copies `size` bytes from the words starting at byte `pos` into `out`, zeroing every word it
 * reads, and returns the next (word-aligned) position. Byte order does not matter: any
 * arrangement of random bytes is equally random.
 */
function copyWords(words: Uint32Array, pos: number, out: Uint8Array, size: number): number {
  let w = pos >>> 2;
  let i = 0;
  for (; i + 4 <= size; i += 4, w++) {
    const v = words[w]!;
    words[w] = 0;
    out[i] = v;
    out[i + 1] = v >>> 8;
    out[i + 2] = v >>> 16;
    out[i + 3] = v >>> 24;
  }
  if (i < size) {
    let v = words[w]!;
    words[w++] = 0;
    for (; i < size; i++, v >>>= 8) out[i] = v;
  }
  return w << 2;
}

function alignUp(pos: number): number {
  return (pos + 3) & ~3;
}

/**
 * When `random` is a {@link PooledSecureRandom}, fills `a`, `b`, `c` and `d` (in that order) from
 * its pool in one pass and returns true; on error all four are zeroed and the error thrown. Returns
 * false, touching nothing, for any other generator. Used by `fillSessionKeys`; not exported from
 * the package front door. The caller checks that the four are distinct Uint8Arrays.
 * @internal
 */
export function fillFourIfPooled(
  random: SecureRandom,
  a: Uint8Array,
  b: Uint8Array,
  c: Uint8Array,
  d: Uint8Array,
): boolean {
  return fillFourFromPool(random, a, b, c, d);
}

/** What {@link inspectPool} shows of a pool. */
export interface PoolState {
  /** The pool memory itself (not a copy). */
  readonly pool: Uint8Array;
  /** Next unserved index. */
  readonly pos: number;
  /** End of the unserved bytes. */
  readonly end: number;
  /** How many times the pool has been filled. */
  readonly refills: number;
  /** Whether the idle-expiry timer is pending. */
  readonly expiryArmed: boolean;
  /** Whether the pool is bypassed because a startup snapshot is being built. */
  readonly buildingSnapshot: boolean;
}

/**
 * Test hook: the live pool state of `random`. Not exported from the package front door.
 * @internal
 */
export function inspectPool(random: PooledSecureRandom): PoolState {
  return inspectPoolState(random);
}
