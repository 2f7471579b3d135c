/**
 * gRPC's message framing over HTTP/2 DATA, for fastpath's own HTTP/2 gRPC calls (the Ratis
 * client's streams, Ozone's datanode transport): each message is a 1-byte compressed flag, a
 * 4-byte big-endian length and the message. HTTP/2 cuts the byte stream anywhere, so a message
 * comes in pieces or several come in one piece. And the TLS options of such a session
 * ({@link grpcTlsSessionOptions}).
 *
 * @example
 * ```ts
 * import { GrpcMessageReader, grpcMessagePrefix } from '@fastpath/ratis-client/grpc-framing';
 * const reader = new GrpcMessageReader(64 << 20, (message) => handle(message));
 * stream.on('data', (piece: Buffer) => reader.push(piece));
 * stream.write(grpcMessagePrefix(body.length));
 * stream.write(body);
 * ```
 *
 * @module @fastpath/ratis-client/grpc-framing
 */
import type { SecureClientSessionOptions } from 'node:http2';
import { isIP } from 'node:net';
import { checkServerIdentity } from 'node:tls';

/** The 5-byte prefix of an uncompressed message of `length` bytes. */
export function grpcMessagePrefix(length: number): Buffer {
  const prefix = Buffer.allocUnsafe(5);
  prefix[0] = 0;
  prefix.writeUInt32BE(length, 1);
  return prefix;
}

/** Why the byte stream cannot be read as messages. */
export class GrpcFramingError extends Error {
  constructor(
    message: string,
    /** The gRPC status the call ends with (RESOURCE_EXHAUSTED for a message over the bound, else INTERNAL). */
    readonly grpcCode: number,
  ) {
    super(message);
  }
}

const RESOURCE_EXHAUSTED = 8;
const INTERNAL = 13;

/**
 * Assembles messages from the pieces of a stream's DATA. A message that lies whole in one piece
 * is handed on as a view of it (no copy); one cut across pieces is copied once, piece by piece,
 * into a buffer of exactly its length (no growing buffer, no concatenation of the pieces).
 */
export class GrpcMessageReader {
  readonly #prefix = Buffer.alloc(5);
  #prefixHave = 0;
  /** The message being assembled, and how much of it is filled. */
  #message: Buffer | undefined;
  #have = 0;

  /**
   * @param allocate Where a message cut across pieces is assembled: a Buffer of exactly `length`
   *   bytes (default `Buffer.allocUnsafe`). A transport that takes its messages' buffers back
   *   once read (a pool) passes its own; a message whole in one piece is a view of the piece
   *   whatever this is.
   */
  constructor(
    private readonly maxMessageBytes: number,
    private readonly onMessage: (message: Buffer) => void,
    private readonly allocate: (length: number) => Buffer = (length) => Buffer.allocUnsafe(length),
  ) {}

  /** Whether no message is half read (the stream may end here). */
  get atBoundary(): boolean {
    return this.#prefixHave === 0 && this.#message === undefined;
  }

  /** Takes the next piece; throws a {@link GrpcFramingError} when the stream is not gRPC's framing. */
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
          this.onMessage(message);
        }
        continue;
      }
      let length: number;
      if (this.#prefixHave === 0 && n - at >= 5) {
        length = this.#length(piece[at]!, piece.readUInt32BE(at + 1));
        at += 5;
      } else {
        const take = Math.min(5 - this.#prefixHave, n - at);
        piece.copy(this.#prefix, this.#prefixHave, at, at + take);
        this.#prefixHave += take;
        at += take;
        if (this.#prefixHave < 5) return;
        this.#prefixHave = 0;
        length = this.#length(this.#prefix[0]!, this.#prefix.readUInt32BE(1));
      }
      if (n - at >= length) {
        // Whole in this piece: a view.
        this.onMessage(piece.subarray(at, at + length));
        at += length;
      } else {
        this.#message = this.allocate(length);
        this.#have = 0;
      }
    }
  }

  #length(flag: number, length: number): number {
    if (flag !== 0)
      throw new GrpcFramingError(
        flag === 1 ? 'a compressed message (no compression was offered)' : `message flag ${flag}`,
        INTERNAL,
      );
    if (length > this.maxMessageBytes)
      throw new GrpcFramingError(
        `a message of ${length} bytes, more than the ${this.maxMessageBytes} allowed`,
        RESOURCE_EXHAUSTED,
      );
    return length;
  }
}

/** TLS of a gRPC session: the server proves who it is; the client shows no certificate. */
export interface GrpcTlsOptions {
  /** PEM certificates of the CA(s) the server's certificate must chain to. */
  ca: string | Buffer | ReadonlyArray<string | Buffer>;
  /** The name the server's certificate must carry. Default: the host dialled. */
  serverNameOverride?: string;
}

/**
 * Node's options for an HTTP/2 session over TLS to a gRPC server at `host` (a name, an IPv4
 * address, or an IPv6 address with or without brackets). The certificate is checked against the
 * override, else the host; SNI carries that name only when it is a name (RFC 6066 allows no
 * address there).
 */
export function grpcTlsSessionOptions(tls: GrpcTlsOptions, host: string): SecureClientSessionOptions {
  const name = tls.serverNameOverride ?? host.replace(/^\[(.*)\]$/, '$1');
  return {
    ca: typeof tls.ca === 'string' || Buffer.isBuffer(tls.ca) ? tls.ca : [...tls.ca],
    ALPNProtocols: ['h2'],
    ...(isIP(name) === 0 ? { servername: name } : {}),
    // With an override the certificate is checked against it, not against the address dialled.
    checkServerIdentity: (_host, cert) => checkServerIdentity(name, cert),
  };
}
