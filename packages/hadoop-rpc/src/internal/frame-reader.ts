// Splits a byte stream into frames (4-byte big-endian length, then that many bytes), each copied
// once out of the bytes pushed into a buffer of its own: the socket reads into one reused buffer.
// A length prefix is checked against the maximum the moment its 4 bytes are in, so a 2 GiB prefix
// costs nothing (Hadoop RPC spec §1.2), and a large frame takes memory only as its bytes arrive.

/** Why a length prefix is refused. */
export type FrameLengthProblem =
  | { kind: 'pre-v9' }
  | { kind: 'invalid'; length: number }
  | { kind: 'too-large'; length: number; max: number };

/** Thrown by {@link FrameReader.push} for a length prefix it refuses. */
export class FrameLengthRefused extends Error {
  readonly problem: FrameLengthProblem;
  constructor(problem: FrameLengthProblem) {
    super(`frame length refused: ${problem.kind}`);
    this.problem = problem;
  }
}

/**
 * A frame up to this size gets its buffer when its length arrives and is filled in place, one
 * copy per byte; a larger one is gathered in copied pieces and joined once whole, so a peer that
 * announces a large frame and stops holds no more memory than it has sent.
 */
const FILL_IN_PLACE_BYTES = 1 << 20;

export class FrameReader {
  readonly #maxBytes: number;
  /** A length prefix cut across pushes, gathered (made only when one is). */
  #prefix: Buffer | undefined;
  #prefixHave = 0;
  /** The frame being received: its length, and its buffer (small) or its pieces (large). */
  #length = 0;
  #frame: Buffer | undefined;
  #pieces: Buffer[] | undefined;
  #have = 0;
  #first = true;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** Bytes received that are not yet part of a complete frame. */
  get pendingBytes(): number {
    return this.#prefixHave + (this.#frame || this.#pieces ? 4 + this.#have : 0);
  }

  /**
   * Adds received bytes, which are read during this call only (the caller may reuse their memory
   * once it returns: a socket reading into one buffer); returns the bodies of the frames now
   * complete, in order, each a buffer of its own.
   */
  push(chunk: Buffer): Buffer[] {
    const frames: Buffer[] = [];
    const n = chunk.length;
    let at = 0;
    while (at < n) {
      if (this.#frame || this.#pieces) {
        const take = Math.min(this.#length - this.#have, n - at);
        if (this.#frame) chunk.copy(this.#frame, this.#have, at, at + take);
        else this.#pieces!.push(Buffer.from(chunk.subarray(at, at + take)));
        this.#have += take;
        at += take;
        if (this.#have === this.#length) frames.push(this.#take());
        continue;
      }
      let length: number;
      if (this.#prefixHave === 0 && n - at >= 4) {
        length = chunk.readInt32BE(at);
        at += 4;
      } else {
        // The prefix spans pushes: gather its 4 bytes only.
        const prefix = (this.#prefix ??= Buffer.alloc(4));
        const take = Math.min(4 - this.#prefixHave, n - at);
        chunk.copy(prefix, this.#prefixHave, at, at + take);
        this.#prefixHave += take;
        at += take;
        if (this.#prefixHave < 4) return frames;
        this.#prefixHave = 0;
        length = prefix.readInt32BE(0);
      }
      this.#check(length);
      this.#length = length;
      this.#have = 0;
      if (length <= FILL_IN_PLACE_BYTES) this.#frame = Buffer.allocUnsafe(length);
      else this.#pieces = [];
    }
    return frames;
  }

  #check(length: number): void {
    if (this.#first && length === -1) throw new FrameLengthRefused({ kind: 'pre-v9' });
    if (length <= 0) throw new FrameLengthRefused({ kind: 'invalid', length });
    if (length > this.#maxBytes)
      throw new FrameLengthRefused({ kind: 'too-large', length, max: this.#maxBytes });
    this.#first = false;
  }

  /** The frame now whole. */
  #take(): Buffer {
    const frame = this.#frame ?? Buffer.concat(this.#pieces!, this.#length);
    this.#frame = undefined;
    this.#pieces = undefined;
    return frame;
  }
}
