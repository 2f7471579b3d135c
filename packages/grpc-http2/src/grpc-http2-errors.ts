import { FastpathError } from '@fastpath/core';

// The errors of @fastpath/grpc-http2, one class per code (docs/errors.md). A call ends with a
// gRPC status as every gRPC client reports it (`GrpcCallError`, its numeric `grpcCode` and
// `details`); the session's own failures say what HTTP/2 or the socket did.

/** HTTP/2's error codes (RFC 9113 §7), as RST_STREAM and GOAWAY carry them. */
export const HTTP2_ERROR = {
  /** HTTP/2 error code NO_ERROR (0x0). */
  NO_ERROR: 0x0,
  /** HTTP/2 error code PROTOCOL_ERROR (0x1). */
  PROTOCOL_ERROR: 0x1,
  /** HTTP/2 error code INTERNAL_ERROR (0x2). */
  INTERNAL_ERROR: 0x2,
  /** HTTP/2 error code FLOW_CONTROL_ERROR (0x3). */
  FLOW_CONTROL_ERROR: 0x3,
  /** HTTP/2 error code SETTINGS_TIMEOUT (0x4). */
  SETTINGS_TIMEOUT: 0x4,
  /** HTTP/2 error code STREAM_CLOSED (0x5). */
  STREAM_CLOSED: 0x5,
  /** HTTP/2 error code FRAME_SIZE_ERROR (0x6). */
  FRAME_SIZE_ERROR: 0x6,
  /** HTTP/2 error code REFUSED_STREAM (0x7). */
  REFUSED_STREAM: 0x7,
  /** HTTP/2 error code CANCEL (0x8). */
  CANCEL: 0x8,
  /** HTTP/2 error code COMPRESSION_ERROR (0x9). */
  COMPRESSION_ERROR: 0x9,
  /** HTTP/2 error code CONNECT_ERROR (0xa). */
  CONNECT_ERROR: 0xa,
  /** HTTP/2 error code ENHANCE_YOUR_CALM (0xb). */
  ENHANCE_YOUR_CALM: 0xb,
  /** HTTP/2 error code INADEQUATE_SECURITY (0xc). */
  INADEQUATE_SECURITY: 0xc,
  /** HTTP/2 error code HTTP_1_1_REQUIRED (0xd). */
  HTTP_1_1_REQUIRED: 0xd,
} as const;

/**
 * The peer broke HTTP/2 (a frame of the wrong size or on the wrong stream, a header block that
 * does not decode, a window overflowed): the session ends with a GOAWAY carrying `http2Code`,
 * and every call on it fails (UNAVAILABLE, this error as `cause`).
 */
export class Http2ProtocolError extends FastpathError {
  /** The HTTP/2 error code the session sends in its GOAWAY ({@link HTTP2_ERROR}). */
  readonly http2Code: number;
  constructor(http2Code: number, message: string) {
    super('ERR_HTTP2_PROTOCOL', message);
    this.http2Code = http2Code;
  }
}

/**
 * A call ended with a gRPC status other than OK: the server's (`grpc-status`, `grpc-message`), or
 * the one gRPC's rules give a transport failure (a lost or refused connection: UNAVAILABLE; a
 * stream reset: the code's mapping; a message over the bound: RESOURCE_EXHAUSTED).
 */
export class GrpcCallError extends FastpathError {
  /** The gRPC status code (grpc-js's `status`). */
  readonly grpcCode: number;
  /** The status message. */
  readonly details: string;
  /**
   * The server's trailers as received, name and value (names lowercase, values as sent: a `-bin`
   * name's value still base64), where the status was the server's; empty where it was the client's.
   */
  readonly trailers: ReadonlyArray<readonly [string, string]>;
  /**
   * The HTTP/2 error code (`HTTP2_ERROR`) of the RST_STREAM the server ended the call with before
   * any status; undefined where a status ended it. A server going down resets the calls it holds
   * (INTERNAL_ERROR from grpc-java's Netty server): the status is then gRPC's mapping of the
   * reset, not the application's answer.
   */
  readonly http2ResetCode: number | undefined;
  constructor(
    grpcCode: number,
    details: string,
    options: {
      cause?: unknown;
      trailers?: ReadonlyArray<readonly [string, string]>;
      http2ResetCode?: number;
    } = {},
  ) {
    super('ERR_GRPC_CALL', `gRPC status ${grpcCode}: ${details}`, {
      ...(options.cause === undefined ? {} : { cause: options.cause }),
      retriable: grpcCode === GRPC_STATUS.UNAVAILABLE,
    });
    this.grpcCode = grpcCode;
    this.details = details;
    this.trailers = options.trailers ?? [];
    this.http2ResetCode = options.http2ResetCode;
  }

  /** The first value of trailer `name` (lowercase), or undefined. */
  trailer(name: string): string | undefined {
    for (const [n, v] of this.trailers) if (n === name) return v;
    return undefined;
  }
}

/** The gRPC status codes this package reports itself. */
export const GRPC_STATUS = {
  /** gRPC status OK (0). */
  OK: 0,
  /** gRPC status CANCELLED (1). */
  CANCELLED: 1,
  /** gRPC status UNKNOWN (2). */
  UNKNOWN: 2,
  /** gRPC status DEADLINE_EXCEEDED (4). */
  DEADLINE_EXCEEDED: 4,
  /** gRPC status RESOURCE_EXHAUSTED (8). */
  RESOURCE_EXHAUSTED: 8,
  /** gRPC status INTERNAL (13). */
  INTERNAL: 13,
  /** gRPC status UNAVAILABLE (14). */
  UNAVAILABLE: 14,
  /** gRPC status PERMISSION_DENIED (7). */
  PERMISSION_DENIED: 7,
  /** gRPC status UNIMPLEMENTED (12). */
  UNIMPLEMENTED: 12,
  /** gRPC status UNAUTHENTICATED (16). */
  UNAUTHENTICATED: 16,
} as const;
