// One socket write per turn of the event loop. A client with many calls in flight is woken by a
// read that answers several of them; each caller sends its next call at once, and a write per
// call costs a system call each (on loopback the write also carries the receiver's wake-up, on a
// VM often tens of µs). Node's own cork/uncork gathers them too, but pays a buffered-request
// object per write, a writev with one entry per chunk and a WriteWrap with its own bookkeeping;
// small frames are cheaper copied into one buffer. Large writes (bulk data) are not copied.

/** What a {@link TurnWriter} writes to: a `net.Socket` or `tls.TLSSocket`. */
export interface TurnWriterSocket {
  /** Queues bytes on the socket. */
  write(chunk: Uint8Array): boolean;
  /** Holds writes until {@link uncork}. */
  cork(): void;
  /** Hands the held writes to the socket together. */
  uncork(): void;
  /** Nothing more can be written. */
  readonly destroyed: boolean;
}

/** Options of a {@link TurnWriter}. */
export interface TurnWriterOptions {
  /**
   * When the turn's writes leave: `tick` as soon as the current callbacks and the promise reactions
   * they set off are done (`process.nextTick`), `immediate` after the I/O callbacks of the event
   * loop's current pass (`setImmediate`), which gathers what the answers of several reads send.
   */
  flushAt: 'tick' | 'immediate';
  /**
   * Sends what the turn wrote, in order (e.g. wrapped by a security layer first). By default
   * {@link writeChunks}.
   */
  send?: (socket: TurnWriterSocket, chunks: readonly Buffer[], bytes: number) => void;
}

/** Up to this many bytes a turn's chunks are copied into one buffer; beyond, written as they are. */
export const JOIN_LIMIT_BYTES = 64 * 1024;

/**
 * Writes a turn's `chunks` (`bytes` long in all) in one socket write: one buffer as it is, small
 * ones joined, larger ones corked so that Node hands them to one writev.
 */
export function writeChunks(socket: TurnWriterSocket, chunks: readonly Buffer[], bytes: number): void {
  if (chunks.length === 1) {
    socket.write(chunks[0]!);
  } else if (bytes <= JOIN_LIMIT_BYTES) {
    socket.write(Buffer.concat(chunks, bytes));
  } else {
    socket.cork();
    for (const chunk of chunks) socket.write(chunk);
    socket.uncork();
  }
}

/**
 * Holds a connection's writes until the current turn of the event loop ends and then sends them in
 * one write. Every write of the connection must go through it, so that the order holds; `flush()`
 * before ending the socket.
 */
export class TurnWriter {
  readonly #socket: TurnWriterSocket;
  readonly #send: (socket: TurnWriterSocket, chunks: readonly Buffer[], bytes: number) => void;
  readonly #immediate: boolean;
  #chunks: Buffer[] = [];
  #bytes = 0;
  #scheduled = false;

  constructor(socket: TurnWriterSocket, options: TurnWriterOptions) {
    this.#socket = socket;
    this.#send = options.send ?? writeChunks;
    this.#immediate = options.flushAt === 'immediate';
  }

  /** Bytes written this turn and not yet sent. */
  get pendingBytes(): number {
    return this.#bytes;
  }

  /** Queues `chunk` (not copied: leave it unchanged) for the end of this turn. */
  write(chunk: Buffer): void {
    this.#chunks.push(chunk);
    this.#bytes += chunk.length;
    if (this.#scheduled) return;
    this.#scheduled = true;
    if (this.#immediate) setImmediate(this.#flushScheduled);
    else process.nextTick(this.#flushScheduled);
  }

  /** Sends what is queued now (before `socket.end()`, or when the caller cannot wait). */
  flush(): void {
    if (this.#chunks.length === 0) return;
    const chunks = this.#chunks;
    const bytes = this.#bytes;
    this.#chunks = [];
    this.#bytes = 0;
    if (!this.#socket.destroyed) this.#send(this.#socket, chunks, bytes);
  }

  /** Drops what is queued (the connection failed: nothing more goes out). */
  clear(): void {
    this.#chunks = [];
    this.#bytes = 0;
  }

  readonly #flushScheduled = (): void => {
    this.#scheduled = false;
    this.flush();
  };
}
