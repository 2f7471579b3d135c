// gRPC's message framing on the receive side: each message is a 1-byte compressed flag, a 4-byte
// big-endian length and the message, cut by HTTP/2 anywhere. The pieces handed in are views of
// the socket's reused read buffer, so every message is copied out, once, into a buffer of exactly
// its length that `allocate` gives (the caller's pool for bulk answers).
import { GRPC_STATUS } from '../grpc-http2-errors.js';

/** Why a stream's DATA cannot be read as messages; the call ends with `grpcCode`. */
export class MessageFramingError extends Error {
  constructor(
    message: string,
    readonly grpcCode: number,
  ) {
    super(message);
  }
}

const EMPTY = Buffer.alloc(0);

export class MessageAssembler {
  /** A prefix cut across pieces, gathered; made only when one is (most arrive whole). */
  #prefix: Buffer | undefined;
  #prefixHave = 0;
  #message: Buffer | undefined;
  #have = 0;

  constructor(
    private readonly maxMessageBytes: number,
    private readonly allocate: (length: number) => Buffer,
    /** Where each whole message goes (an object, so a stream makes no closure for it). */
    private readonly target: { assembled(message: Buffer): void },
  ) {}

  /** Whether no message is half read (the stream may end here). */
  get atBoundary(): boolean {
    return this.#prefixHave === 0 && this.#message === undefined;
  }

  /** Takes the next piece (read only during this call); throws {@link MessageFramingError}. */
  push(piece: Buffer): void {
    let at = 0;
    const n = piece.length;
    while (at < n) {
      const message = this.#message;
      if (message !== undefined) {
        const take = Math.min(message.length - this.#have, n - at);
        piece.copy(message, this.#have, at, at + take);
        this.#have += take;
        at += take;
        if (this.#have === message.length) {
          this.#message = undefined;
          this.target.assembled(message);
        }
        continue;
      }
      let length: number;
      if (this.#prefixHave === 0 && n - at >= 5) {
        length = this.#length(piece[at]!, piece.readUInt32BE(at + 1));
        at += 5;
      } else {
        const take = Math.min(5 - this.#prefixHave, n - at);
        const prefix = (this.#prefix ??= Buffer.allocUnsafe(5));
        piece.copy(prefix, this.#prefixHave, at, at + take);
        this.#prefixHave += take;
        at += take;
        if (this.#prefixHave < 5) return;
        this.#prefixHave = 0;
        length = this.#length(prefix[0]!, prefix.readUInt32BE(1));
      }
      if (length === 0) {
        this.target.assembled(EMPTY);
        continue;
      }
      this.#message = this.allocate(length);
      this.#have = 0;
    }
  }

  #length(flag: number, length: number): number {
    if (flag !== 0)
      throw new MessageFramingError(
        flag === 1 ? 'a compressed message (no compression was offered)' : `message flag ${flag}`,
        GRPC_STATUS.INTERNAL,
      );
    if (length > this.maxMessageBytes)
      throw new MessageFramingError(
        `a message of ${length} bytes, more than the ${this.maxMessageBytes} allowed`,
        GRPC_STATUS.RESOURCE_EXHAUSTED,
      );
    return length;
  }
}
