// The session's socket: TCP, or TLS with ALPN h2 (gRPC over TLS must agree on HTTP/2 there). The
// socket reads into the one buffer given and hands each read to `onRead` synchronously (Node's
// `onread`): no Buffer is created per read, and the bytes must be used before `onRead` returns.
import { isIP, connect as netConnect, type Socket } from 'node:net';
import { checkServerIdentity, type ConnectionOptions, connect as tlsConnect, type TLSSocket } from 'node:tls';
import type { GrpcHttp2TlsOptions } from '../grpc-http2-options.js';

export interface SocketTarget {
  host: string;
  port: number;
  tls: GrpcHttp2TlsOptions | undefined;
  readBuffer: Buffer;
  onRead: (bytes: Buffer) => void;
}

/**
 * Opens the socket; bytes written before it connects (and, over TLS, before the handshake) wait
 * for it. A TLS peer whose certificate fails the checks, or that does not agree to h2, ends the
 * socket with an error saying so.
 */
export function connectSocket(target: SocketTarget): Socket {
  const onread = {
    buffer: target.readBuffer,
    callback: (nread: number, buffer: Uint8Array): boolean => {
      target.onRead(Buffer.from(buffer.buffer, buffer.byteOffset, nread));
      return true;
    },
  };
  const tls = target.tls;
  if (!tls) {
    const socket = netConnect({ host: target.host, port: target.port, onread });
    socket.setNoDelay(true);
    return socket;
  }
  const name = tls.serverNameOverride ?? target.host;
  // Node's TLS socket takes `onread` as its TCP socket does (the types leave it out).
  const options: ConnectionOptions & { onread: typeof onread } = {
    host: target.host,
    port: target.port,
    ca: typeof tls.ca === 'string' || Buffer.isBuffer(tls.ca) ? tls.ca : [...tls.ca],
    ALPNProtocols: ['h2'],
    // SNI carries a name only (RFC 6066 allows no address there).
    ...(isIP(name) === 0 ? { servername: name } : {}),
    // With an override the certificate is checked against it, not against the address dialled.
    checkServerIdentity: (_host, cert) => checkServerIdentity(name, cert),
    onread,
  };
  const socket: TLSSocket = tlsConnect(options);
  socket.setNoDelay(true);
  socket.once('secureConnect', () => {
    if (socket.alpnProtocol !== 'h2') {
      socket.destroy(
        new Error(`the server did not agree to HTTP/2 over TLS (ALPN: ${String(socket.alpnProtocol)})`),
      );
    }
  });
  return socket;
}
