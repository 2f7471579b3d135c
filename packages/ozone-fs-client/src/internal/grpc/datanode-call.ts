// What a datanode stream needs of its transport: a bidi `send` call carrying raw messages, and
// word of a connection that goes. grpc-js' duplex calls and fastpath's own HTTP/2 calls both fit.

/**
 * How fastpath's own HTTP/2 calls fail: grpc-js shaped (a gRPC status `code` and its `details`),
 * with the HTTP/2 code of the RST_STREAM the server ended the call with before any status, where
 * one did (a server going down resets the calls it holds: the status is then gRPC's mapping of
 * the reset, not an answer).
 */
export interface CallFailure {
  code: number;
  details: string;
  http2ResetCode?: number;
}

/** One bidi call; messages in both directions are whole encoded protobuf messages. */
export interface DatanodeCall {
  on(event: 'data', listener: (message: Buffer) => void): this;
  /** The error is grpc-js shaped: a gRPC status `code` and its `details` ({@link CallFailure} from fastpath's own sessions). */
  on(event: 'error', listener: (err: unknown) => void): this;
  on(event: 'end', listener: () => void): this;
  write(message: Buffer): void;
  /** Half-closes the request side. */
  end(): void;
  /** Ends the call at once; no event follows but a CANCELLED error where none came yet. */
  cancel(): void;
  /**
   * Hands back a message this call delivered, once nothing will read it or any view of it again:
   * the transport may assemble a later message in its memory. A no-op where messages are not
   * reused (grpc-js), and for a message not handed back (it is collected as any buffer).
   */
  release?(message: Buffer): void;
}

/** Where a datanode channel's calls come from. */
export interface DatanodeConnection {
  /** Opens a `send` call (no deadline: the stream keeps its requests' deadlines itself). */
  openCall(): DatanodeCall;
  /**
   * Calls `onLost` when a connection that was up goes (a GOAWAY, a lost socket), for as long as
   * `keepWatching()` says so; watching twice at once is one watch.
   */
  watchLoss(onLost: () => void, keepWatching: () => boolean): void;
  close(): void;
}

/** A connection that also makes unary calls of its path: the OM's small calls ({@link Http2OmTransport}). */
export interface UnaryConnection extends DatanodeConnection {
  /** The one answer, or a {@link CallFailure} (DEADLINE_EXCEEDED after `timeoutMs`; INTERNAL for two answers or none). */
  unary(message: Buffer, timeoutMs: number): Promise<Buffer>;
}
