// Splits a byte stream into frames (4-byte big-endian length, then that many bytes) without
// allocating for a frame before all of it has arrived: a length prefix is checked against the
// maximum the moment its 4 bytes are in, so a 2 GiB prefix costs nothing (Hadoop RPC spec §1.2).

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

export class FrameReader {
  readonly #maxBytes: number;
  #chunks: Buffer[] = [];
  #buffered = 0;
  #first = true;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** Bytes received that are not yet part of a complete frame. */
  get pendingBytes(): number {
    return this.#buffered;
  }

  /** Adds received bytes; returns the bodies of the frames now complete, in order. */
  push(chunk: Buffer): Buffer[] {
    if (chunk.length > 0) {
      this.#chunks.push(chunk);
      this.#buffered += chunk.length;
    }
    const frames: Buffer[] = [];
    for (;;) {
      if (this.#buffered < 4) return frames;
      const length = this.#peekLength();
      if (this.#first && length === -1) throw new FrameLengthRefused({ kind: 'pre-v9' });
      if (length <= 0) throw new FrameLengthRefused({ kind: 'invalid', length });
      if (length > this.#maxBytes) {
        throw new FrameLengthRefused({ kind: 'too-large', length, max: this.#maxBytes });
      }
      if (this.#buffered < 4 + length) return frames;
      this.#first = false;
      const all = this.#chunks.length === 1 ? (this.#chunks[0] as Buffer) : Buffer.concat(this.#chunks);
      frames.push(all.subarray(4, 4 + length));
      const rest = all.subarray(4 + length);
      this.#chunks = rest.length > 0 ? [rest] : [];
      this.#buffered = rest.length;
    }
  }

  #peekLength(): number {
    const head = this.#chunks[0] as Buffer;
    if (head.length >= 4) return head.readInt32BE(0);
    // The prefix spans chunks: copy its 4 bytes only, never the chunks behind it.
    const four = Buffer.alloc(4);
    let filled = 0;
    for (const c of this.#chunks) {
      filled += c.copy(four, filled, 0, Math.min(c.length, 4 - filled));
      if (filled === 4) break;
    }
    return four.readInt32BE(0);
  }
}
