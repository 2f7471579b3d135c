/**
 * `@fastpath/grpc-http2`: gRPC calls on an HTTP/2 client of fastpath's own, over a plain or TLS
 * socket that reads into one reused buffer. Each received message is copied once, from the
 * socket's buffer straight into a buffer of its size (the caller's pool, when given); a sent
 * message goes to the socket as given. For bulk answers (Ozone datanode reads) it costs a
 * fraction of the CPU of Node's `http2` module or grpc-js.
 *
 * @example
 * ```ts
 * import { GrpcHttp2Session } from '@fastpath/grpc-http2';
 * const session = new GrpcHttp2Session({ address: 'dn1.example.com:9859', maxFrameBytes: 1 << 20 });
 * const call = session.openCall('/pkg.Service/Method');
 * call.on('data', (message) => console.log(message.length));
 * call.on('end', () => session.close());
 * call.write(request);
 * call.end();
 * ```
 *
 * @module @fastpath/grpc-http2
 */
export { GrpcHttp2Session } from './grpc-http2-session.js';
export type { GrpcHttp2SessionEvents } from './grpc-http2-session.js';
export { GrpcHttp2Channel } from './grpc-http2-channel.js';
export type { GrpcHttp2ChannelEvents } from './grpc-http2-channel.js';
export { GrpcHttp2Call } from './grpc-http2-call.js';
export type { UnaryCallOptions } from './grpc-http2-call.js';
export type { GrpcHttp2SessionOptions, GrpcHttp2TlsOptions } from './grpc-http2-options.js';
export { GRPC_STATUS, GrpcCallError, HTTP2_ERROR, Http2ProtocolError } from './grpc-http2-errors.js';
