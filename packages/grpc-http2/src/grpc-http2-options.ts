import { checkInteger, checkNonEmptyString, InvalidOptionError } from '@fastpath/core';

/**
 * TLS of a session: the server proves who it is with a certificate that chains to `ca`; the
 * client shows none (as Ozone's datanodes and OMs ask of clients).
 */
export interface GrpcHttp2TlsOptions {
  /** PEM certificates of the CA(s) the server's certificate must chain to. */
  ca: string | Buffer | ReadonlyArray<string | Buffer>;
  /** The name the server's certificate must carry. Default: the host dialled. */
  serverNameOverride?: string;
}

/** Options of {@link GrpcHttp2Session}. */
export interface GrpcHttp2SessionOptions {
  /** `host:port` of the gRPC server (an IPv6 address in brackets). Required. */
  address: string;
  /** TLS; without it the session speaks HTTP/2 in plain text (h2c with prior knowledge, as gRPC does). */
  tls?: GrpcHttp2TlsOptions | undefined;
  /**
   * SETTINGS_MAX_FRAME_SIZE sent to the server: the largest frame it may send, 16 KiB to 16 MiB - 1.
   * Large frames mean fewer frames per bulk answer. Default: 16 384 (HTTP/2's default).
   */
  maxFrameBytes?: number;
  /** Each stream's receive window (SETTINGS_INITIAL_WINDOW_SIZE). Default: 1 MiB. */
  streamWindowBytes?: number;
  /** The connection's receive window, widened by a WINDOW_UPDATE right after the preface. Default: 4 MiB. */
  connectionWindowBytes?: number;
  /** The largest message a call accepts; a larger one fails the call with RESOURCE_EXHAUSTED. Default: 4 MiB (gRPC's). */
  maxReceiveMessageBytes?: number;
  /** The buffer the socket reads into, reused for every read. Default: 256 KiB. */
  readBufferBytes?: number;
  /** How long the socket, TLS and the server's SETTINGS may take before the session fails, in ms. Default: 20 000 (grpc-js's). */
  connectTimeoutMs?: number;
  /**
   * Where each received message is copied to: a Buffer of exactly `length` bytes. A caller that
   * hands its messages' buffers back once read passes its pool. Default: `Buffer.allocUnsafe`.
   */
  allocateMessage?: (length: number) => Buffer;
  /** What errors call the server, e.g. `the datanode`. Default: `the server at <address>`. */
  peer?: string;
}

/** The options with every default filled in and every value checked. */
export interface ResolvedSessionOptions {
  host: string;
  port: number;
  address: string;
  tls: GrpcHttp2TlsOptions | undefined;
  maxFrameBytes: number;
  streamWindowBytes: number;
  connectionWindowBytes: number;
  maxReceiveMessageBytes: number;
  readBufferBytes: number;
  connectTimeoutMs: number;
  allocateMessage: (length: number) => Buffer;
  peer: string;
}

const MAX_WINDOW = 2_147_483_647;

export function resolveSessionOptions(options: GrpcHttp2SessionOptions): ResolvedSessionOptions {
  const address = checkNonEmptyString('address', options.address);
  const at = address.lastIndexOf(':');
  const host = at > 0 ? address.slice(0, at).replace(/^\[(.*)\]$/, '$1') : '';
  const port = at > 0 ? Number(address.slice(at + 1)) : NaN;
  if (host === '' || !Number.isInteger(port) || port < 1 || port > 65535)
    throw new InvalidOptionError('address', `expected host:port, got ${JSON.stringify(address)}`);
  const tls = options.tls;
  if (tls !== undefined && (tls.ca === undefined || tls.ca === null))
    throw new InvalidOptionError('tls', 'tls.ca is required');
  return {
    host,
    port,
    address,
    tls,
    maxFrameBytes: checkInteger('maxFrameBytes', options.maxFrameBytes ?? 16_384, 16_384, 16_777_215),
    streamWindowBytes: checkInteger(
      'streamWindowBytes',
      options.streamWindowBytes ?? 1 << 20,
      65_535,
      MAX_WINDOW,
    ),
    connectionWindowBytes: checkInteger(
      'connectionWindowBytes',
      options.connectionWindowBytes ?? 4 << 20,
      65_535,
      MAX_WINDOW,
    ),
    maxReceiveMessageBytes: checkInteger(
      'maxReceiveMessageBytes',
      options.maxReceiveMessageBytes ?? 4 << 20,
      0,
      MAX_WINDOW,
    ),
    readBufferBytes: checkInteger(
      'readBufferBytes',
      options.readBufferBytes ?? 256 << 10,
      16 << 10,
      64 << 20,
    ),
    connectTimeoutMs: checkInteger('connectTimeoutMs', options.connectTimeoutMs ?? 20_000, 1),
    allocateMessage: options.allocateMessage ?? ((length) => Buffer.allocUnsafe(length)),
    peer: options.peer ?? `the server at ${address}`,
  };
}
