// How gRPC reports what HTTP/2 says: a call's status from its headers or trailers, and the status
// of a call that got none (an HTTP error status, a stream reset), by gRPC's own mapping
// (doc/http-grpc-status-mapping.md and PROTOCOL-HTTP2.md in gRPC's repository).
import { GRPC_STATUS, HTTP2_ERROR } from '../grpc-http2-errors.js';
import { fieldPairs } from './hpack/index.js';

export interface CallStatus {
  code: number;
  details: string;
  /** The header block the status came in (trailers, or a trailers-only answer's headers); absent for a status of the client's own. */
  trailers?: ReadonlyArray<readonly [string, string]>;
  /** The HTTP/2 error code of the RST_STREAM that ended the call before a status did. */
  http2ResetCode?: number;
}

/**
 * The status a response's headers (or trailers) carry, or undefined where they carry none; the
 * block (name, value, name, value…) is read, not kept: a failed call's status keeps a copy of it
 * as its trailers, an OK one keeps none.
 */
export function statusOfHeaders(headers: readonly string[]): CallStatus | undefined {
  let raw: string | undefined;
  let message = '';
  for (let i = 0; i < headers.length; i += 2) {
    const name = headers[i];
    if (name === 'grpc-status') raw = headers[i + 1];
    else if (name === 'grpc-message') message = decodeGrpcMessage(headers[i + 1]!);
  }
  if (raw === undefined) return undefined;
  const number = Number(raw);
  const code = Number.isInteger(number) && number >= 0 ? number : GRPC_STATUS.UNKNOWN;
  if (code === GRPC_STATUS.OK) return { code, details: message };
  return { code, details: message, trailers: fieldPairs(headers) };
}

/** The `:status` of a response's first header block (name, value, …; NaN where it has none). */
export function httpStatusOf(headers: readonly string[]): number {
  for (let i = 0; i < headers.length; i += 2) if (headers[i] === ':status') return Number(headers[i + 1]);
  return NaN;
}

/** gRPC's mapping of an HTTP status that comes without a gRPC status. */
export function statusOfHttp(status: number): CallStatus {
  const details = `HTTP status ${status}`;
  switch (status) {
    case 400:
      return { code: GRPC_STATUS.INTERNAL, details };
    case 401:
      return { code: GRPC_STATUS.UNAUTHENTICATED, details };
    case 403:
      return { code: GRPC_STATUS.PERMISSION_DENIED, details };
    case 404:
      return { code: GRPC_STATUS.UNIMPLEMENTED, details };
    case 429:
    case 502:
    case 503:
    case 504:
      return { code: GRPC_STATUS.UNAVAILABLE, details };
    default:
      return { code: GRPC_STATUS.UNKNOWN, details };
  }
}

/** gRPC's mapping of a RST_STREAM that ends a call before its status. */
export function statusOfReset(http2Code: number): CallStatus {
  return { ...mappedReset(http2Code), http2ResetCode: http2Code };
}

function mappedReset(http2Code: number): CallStatus {
  switch (http2Code) {
    case HTTP2_ERROR.REFUSED_STREAM:
      return { code: GRPC_STATUS.UNAVAILABLE, details: 'stream refused by the server' };
    case HTTP2_ERROR.CANCEL:
      return { code: GRPC_STATUS.CANCELLED, details: 'stream cancelled by the server' };
    case HTTP2_ERROR.ENHANCE_YOUR_CALM:
      return { code: GRPC_STATUS.RESOURCE_EXHAUSTED, details: 'the server says enhance your calm' };
    case HTTP2_ERROR.INADEQUATE_SECURITY:
      return { code: GRPC_STATUS.PERMISSION_DENIED, details: 'protocol not secure enough' };
    default:
      return { code: GRPC_STATUS.INTERNAL, details: `stream reset with HTTP/2 code ${http2Code}` };
  }
}

/** grpc-message is percent-encoded UTF-8. */
function decodeGrpcMessage(message: string): string {
  try {
    return decodeURIComponent(message);
  } catch {
    return message;
  }
}
