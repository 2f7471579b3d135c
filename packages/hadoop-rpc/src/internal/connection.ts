// One TCP connection to one server for one protocol and user (Hadoop's `Client.Connection`): the
// handshake (preamble, SASL, connection context), the table of calls in flight matched by call
// id, pings while calls wait in silence, and closing when idle. Any failure of the connection
// fails every call on it with the same typed error and takes the connection out of the pool.
import { connect, type Socket } from 'node:net';
import { DeadlineSet, TurnWriter, writeChunks, type TurnWriterSocket } from '@fastpath/core';
import {
  type ConnectFailure,
  HadoopRpcCallTimeoutError,
  HadoopRpcConnectError,
  HadoopRpcConnectionLostError,
  HadoopRpcConnectTimeoutError,
  HadoopRpcInvalidArgumentError,
  HadoopRpcProtocolError,
  HadoopRpcResponseTooLargeError,
  RemoteException,
} from '../hadoop-rpc-errors.js';
import type { SaslMechanism, SaslSecurityLayer } from '../sasl-mechanism.js';
import { splitDelimited } from './delimited.js';
import { FrameLengthRefused, FrameReader } from './frame-reader.js';
import { CallIds, callFrame, contextFrame, type MethodId, pingFrame, preamble, saslFrame } from './frames.js';
import { rpc, type hadoop } from './proto/wire.js';
import { negotiateSasl, type SaslChannel } from './sasl/sasl-negotiation.js';

const Status = rpc.RpcResponseHeaderProto.RpcStatusProto;
const SASL_WRAP = rpc.RpcSaslProto.SaslState.WRAP;
/** Bytes a connection's socket reads at once into its one read buffer. */
const READ_BUFFER_BYTES = 64 * 1024;

/** What a connection needs to know; fixed for its life. */
export interface ConnectionConfig {
  address: string;
  host: string;
  port: number;
  protocol: string;
  clientId: Buffer;
  user: string;
  realUser: string | undefined;
  authProtocol: 'none' | 'sasl';
  saslMechanisms: readonly SaslMechanism[];
  serviceClass: number;
  connectTimeoutMs: number;
  pingIntervalMs: number;
  pingEnabled: boolean;
  maxIdleTimeMs: number;
  maxResponseBytes: number;
  /** Called once when the connection is closed for any reason. */
  onClosed: (connection: Connection) => void;
  /** Called for each ping sent. */
  onPing: () => void;
}

interface PendingCall {
  method: string;
  resolve: (response: Uint8Array) => void;
  reject: (error: Error) => void;
  callId: number;
  timeoutMs: number;
}

type SaslWaiter = { resolve: (m: hadoop.common.RpcSaslProto) => void; reject: (e: Error) => void };

const CONNECT_FAILURES: Readonly<Record<string, ConnectFailure>> = {
  ECONNREFUSED: 'refused',
  EHOSTUNREACH: 'unreachable',
  ENETUNREACH: 'unreachable',
  EHOSTDOWN: 'unreachable',
  ENOTFOUND: 'unknown-host',
  EAI_AGAIN: 'unknown-host',
};

export class Connection {
  readonly #c: ConnectionConfig;
  readonly #socket: Socket;
  readonly #reader: FrameReader;
  readonly #calls = new Map<number, PendingCall>();
  // Calls that timed out here: a late answer to one is dropped, not taken for a protocol error.
  readonly #abandoned = new Set<number>();
  readonly #ready: Promise<void>;
  #connected = false;
  #handshakeDone = false;
  #closed = false;
  #closeError: Error | undefined;
  #saslInbox: hadoop.common.RpcSaslProto[] = [];
  #saslWaiter: SaslWaiter | undefined;
  #layer: SaslSecurityLayer | undefined;
  #plainReader: FrameReader | undefined;
  /** Every frame after the handshake's: the turn's frames leave in one write (see #write). */
  readonly #out: TurnWriter;
  #quietSince = performance.now();
  #pingTimer: NodeJS.Timeout | undefined;
  #idleTimer: NodeJS.Timeout | undefined;
  // Rejects the wait for TCP connect when the connection fails first (a timeout, close()).
  #connectAbort: ((error: Error) => void) | undefined;

  constructor(config: ConnectionConfig) {
    this.#c = config;
    this.#reader = new FrameReader(config.maxResponseBytes);
    this.#socket = connect({
      host: config.host,
      port: config.port,
      noDelay: true,
      // Reads land in one buffer per connection, each frame copied out once by the reader: a
      // 'data' event makes a Buffer (and a 64 KiB allocation) per read, which cost a 1,000-key
      // listing's answer more CPU than decoding it.
      onread: {
        buffer: Buffer.allocUnsafeSlow(READ_BUFFER_BYTES),
        callback: (nread: number, buffer: Uint8Array): boolean => {
          this.#onData(Buffer.from(buffer.buffer, buffer.byteOffset, nread));
          return true;
        },
      },
    });
    this.#out = new TurnWriter(this.#socket, {
      flushAt: 'tick',
      send: (socket, frames, bytes) => this.#sendFrames(socket, frames, bytes),
    });
    this.#ready = this.#open();
    // A caller that never calls (the pool opens on demand, so there is always one) still must
    // not see an unhandled rejection.
    this.#ready.catch(() => {});
  }

  get closed(): boolean {
    return this.#closed;
  }

  get callsInFlight(): number {
    return this.#calls.size;
  }

  /** Sends one call and resolves with the response message's bytes. */
  call(
    id: MethodId,
    callId: number,
    retryCount: number,
    request: Uint8Array,
    timeoutMs: number,
  ): Promise<Uint8Array> {
    this.#holdOpen();
    // Until the handshake is done a call waits for it; after, it is sent at once: no await, one
    // promise per call.
    if (!this.#handshakeDone)
      return this.#ready.then(() => this.call(id, callId, retryCount, request, timeoutMs));
    if (this.#closed) return Promise.reject(this.#closeReason());
    if (this.#calls.has(callId)) {
      return Promise.reject(
        new HadoopRpcInvalidArgumentError('callId', `call ${callId} is already in flight on this connection`),
      );
    }
    return new Promise<Uint8Array>((resolve, reject) => {
      const pending: PendingCall = { method: id.method, resolve, reject, callId, timeoutMs };
      this.#calls.set(callId, pending);
      if (timeoutMs > 0) this.#deadlines.add(pending, timeoutMs);
      this.#armPing();
      this.#write(callFrame(callId, this.#c.clientId, retryCount, id, request));
    });
  }

  // The calls' deadlines, on one timer for the connection (core's DeadlineSet).
  readonly #deadlines = new DeadlineSet<PendingCall>((call) => {
    if (this.#calls.get(call.callId) !== call) return;
    this.#calls.delete(call.callId);
    this.#abandoned.add(call.callId);
    call.reject(new HadoopRpcCallTimeoutError(this.#c.address, call.method, call.callId, call.timeoutMs));
    this.#afterCall();
  });

  /** Closes the connection; calls still in flight fail with `error`. */
  close(error: Error): void {
    this.#fail(error);
  }

  // --- handshake ---------------------------------------------------------------------------

  async #open(): Promise<void> {
    const socket = this.#socket;
    const deadline = setTimeout(
      () => this.#fail(new HadoopRpcConnectTimeoutError(this.#c.address, this.#c.connectTimeoutMs)),
      this.#c.connectTimeoutMs,
    );
    deadline.unref();
    socket.on('error', (error: NodeJS.ErrnoException) => this.#onSocketError(error));
    socket.on('close', () => this.#onSocketClosed());
    try {
      await new Promise<void>((resolve, reject) => {
        if (this.#closed) {
          reject(this.#closeReason());
          return;
        }
        socket.once('connect', resolve);
        this.#connectAbort = reject;
      });
      this.#connected = true;
      this.#connectAbort = undefined;
      socket.write(preamble(this.#c.authProtocol, this.#c.serviceClass));
      let contextUser: { effectiveUser?: string; realUser?: string } | 'default' = 'default';
      if (this.#c.authProtocol === 'sasl') {
        const outcome = await negotiateSasl(this.#saslChannel(), this.#c.saslMechanisms, {
          address: this.#c.address,
          host: this.#c.host,
          port: this.#c.port,
          remoteIp: socket.remoteAddress ?? this.#c.host,
          protocol: this.#c.protocol,
        });
        contextUser = outcome.contextUser;
        if (outcome.securityLayer) {
          this.#layer = outcome.securityLayer;
          this.#plainReader = new FrameReader(this.#c.maxResponseBytes);
        }
      }
      if (this.#closed) throw this.#closeReason();
      const userInfo =
        contextUser === 'default'
          ? {
              effectiveUser: this.#c.user,
              ...(this.#c.realUser === undefined ? {} : { realUser: this.#c.realUser }),
            }
          : contextUser;
      this.#handshakeDone = true;
      this.#write(contextFrame(this.#c.clientId, this.#c.protocol, userInfo));
    } catch (error) {
      this.#fail(error as Error);
      throw this.#closeReason();
    } finally {
      clearTimeout(deadline);
    }
  }

  #saslChannel(): SaslChannel {
    return {
      send: (message) => this.#socket.write(saslFrame(message)),
      receive: () => {
        if (this.#closed) return Promise.reject(this.#closeReason());
        const next = this.#saslInbox.shift();
        if (next) return Promise.resolve(next);
        return new Promise((resolve, reject) => (this.#saslWaiter = { resolve, reject }));
      },
    };
  }

  // --- reading -------------------------------------------------------------------------------

  #onData(chunk: Buffer): void {
    if (this.#closed) return;
    this.#quietSince = performance.now();
    this.#readFrames(this.#reader, chunk);
  }

  #readFrames(reader: FrameReader, chunk: Buffer): void {
    let frames: Buffer[];
    try {
      frames = reader.push(chunk);
    } catch (error) {
      this.#fail(this.#frameError(error));
      return;
    }
    for (const body of frames) {
      this.#onFrame(body);
      if (this.#closed) return;
    }
  }

  #frameError(error: unknown): Error {
    if (!(error instanceof FrameLengthRefused))
      return new HadoopRpcProtocolError(this.#c.address, String(error), error);
    const p = error.problem;
    if (p.kind === 'too-large') return new HadoopRpcResponseTooLargeError(this.#c.address, p.length, p.max);
    if (p.kind === 'pre-v9') {
      return new HadoopRpcProtocolError(
        this.#c.address,
        'the server speaks a Hadoop IPC version older than 9 (its first frame length is -1)',
      );
    }
    return new HadoopRpcProtocolError(this.#c.address, `RPC response has invalid length of ${p.length}`);
  }

  #onFrame(body: Buffer): void {
    let header: hadoop.common.RpcResponseHeaderProto;
    let parts: Uint8Array[];
    try {
      parts = splitDelimited(body, 2);
      header = rpc.RpcResponseHeaderProto.decode(parts[0] ?? new Uint8Array(0));
    } catch (error) {
      this.#fail(
        new HadoopRpcProtocolError(
          this.#c.address,
          `undecodable response (${body.length} bytes): ${(error as Error).message}`,
          error,
        ),
      );
      return;
    }
    // The response header's callId is uint32: −33 arrives as 4294967263 (spec §0.2 #2).
    const callId = header.callId | 0;
    if (callId === CallIds.SASL) {
      this.#onSaslFrame(header, parts[1]);
      return;
    }
    if (
      !this.#handshakeDone &&
      !(header.status === Status.FATAL && callId === CallIds.AUTHORIZATION_FAILED)
    ) {
      this.#fail(
        new HadoopRpcProtocolError(this.#c.address, `non-SASL response (call ${callId}) during negotiation`),
      );
      return;
    }
    if (header.status === Status.FATAL) {
      this.#fail(this.#remote(header, callId, 'FATAL'));
      return;
    }
    const pending = this.#calls.get(callId);
    if (pending === undefined) {
      if (this.#abandoned.delete(callId)) return;
      this.#fail(
        new HadoopRpcProtocolError(this.#c.address, `response to call ${callId}, which is not in flight`),
      );
      return;
    }
    const echoed = header.clientId;
    if (echoed.length > 0 && !this.#c.clientId.equals(echoed)) {
      this.#fail(
        new HadoopRpcProtocolError(this.#c.address, `response to call ${callId} carries another client id`),
      );
      return;
    }
    if (header.status === Status.SUCCESS && parts.length < 2) {
      this.#fail(
        new HadoopRpcProtocolError(this.#c.address, `SUCCESS response to call ${callId} has no message`),
      );
      return;
    }
    this.#calls.delete(callId);
    this.#deadlines.delete(pending);
    if (header.status === Status.SUCCESS) pending.resolve(parts[1] as Uint8Array);
    else pending.reject(this.#remote(header, callId, 'ERROR'));
    this.#afterCall();
  }

  #onSaslFrame(header: hadoop.common.RpcResponseHeaderProto, payload: Uint8Array | undefined): void {
    if (header.status !== Status.SUCCESS) {
      this.#fail(this.#remote(header, CallIds.SASL, header.status === Status.FATAL ? 'FATAL' : 'ERROR'));
      return;
    }
    let message: hadoop.common.RpcSaslProto;
    try {
      message = rpc.RpcSaslProto.decode(payload ?? new Uint8Array(0));
    } catch (error) {
      this.#fail(new HadoopRpcProtocolError(this.#c.address, 'undecodable SASL message', error));
      return;
    }
    if (this.#handshakeDone) {
      // After negotiation, only wrapped frames come on −33 (spec §3.6).
      if (this.#layer === undefined || message.state !== SASL_WRAP || this.#plainReader === undefined) {
        this.#fail(new HadoopRpcProtocolError(this.#c.address, 'SASL message after negotiation'));
        return;
      }
      let plain: Uint8Array;
      try {
        plain = this.#layer.unwrap(message.token);
      } catch (error) {
        this.#fail(new HadoopRpcProtocolError(this.#c.address, 'a wrapped response did not unwrap', error));
        return;
      }
      this.#readFrames(this.#plainReader, Buffer.from(plain));
      return;
    }
    const waiter = this.#saslWaiter;
    this.#saslWaiter = undefined;
    if (waiter) waiter.resolve(message);
    else this.#saslInbox.push(message);
  }

  #remote(
    header: hadoop.common.RpcResponseHeaderProto,
    callId: number,
    status: 'ERROR' | 'FATAL',
  ): RemoteException {
    const has = (k: string): boolean => Object.prototype.hasOwnProperty.call(header, k);
    return new RemoteException({
      // Hadoop's names for the fields a server left out (Client.java#receiveRpcResponse).
      className: has('exceptionClassName') ? header.exceptionClassName : 'ServerDidNotSetExceptionClassName',
      errorMessage: has('errorMsg') ? header.errorMsg : 'ServerDidNotSetErrorMsg',
      errorDetail: has('errorDetail')
        ? (rpc.RpcResponseHeaderProto.RpcErrorCodeProto[header.errorDetail] ?? String(header.errorDetail))
        : undefined,
      status,
      callId,
      address: this.#c.address,
    });
  }

  // --- writing, pings, idle ------------------------------------------------------------------

  #write(frameBytes: Buffer): void {
    if (this.#closed) return;
    this.#out.write(frameBytes);
  }

  /**
   * Sends a turn's frames. Calls made in one turn of the event loop (callers woken by the answers
   * of one read) leave in one write: on loopback and in VMs a socket write costs tens to hundreds
   * of µs of kernel time, more than a small call's encoding. They leave as soon as the turn's
   * callbacks and promise reactions are done, so a call is never held back.
   *
   * With integrity or privacy the turn's frames go in one wrapped message, not one each: a wrap
   * (and the SASL frame around it) costs as much for a small call as the call's own encoding, and
   * Hadoop's server reads every frame a message holds, even one cut across messages
   * (Server.Connection#unwrapPacketAndProcessRpcs). They are wrapped in order, as one message or
   * several where they exceed what the server said it takes in one (its receive buffer, less the
   * wrap's own bytes).
   */
  #sendFrames(socket: TurnWriterSocket, frames: readonly Buffer[], bytes: number): void {
    const layer = this.#layer;
    if (layer === undefined) {
      writeChunks(socket, frames, bytes);
      return;
    }
    const plain = frames.length === 1 ? (frames[0] as Buffer) : Buffer.concat(frames, bytes);
    const most =
      layer.maxWrapBytes !== undefined && layer.maxWrapBytes > 0 ? layer.maxWrapBytes : plain.length;
    try {
      for (let at = 0; at < plain.length; at += most)
        socket.write(saslFrame({ state: SASL_WRAP, token: layer.wrap(plain.subarray(at, at + most)) }));
    } catch (error) {
      this.#fail(new HadoopRpcProtocolError(this.#c.address, 'a call could not be wrapped', error));
    }
  }

  /** Hadoop pings after `ipc.ping.interval` of read silence while a call waits (spec §1.6). */
  #armPing(): void {
    if (!this.#c.pingEnabled || this.#closed || this.#pingTimer !== undefined) return;
    const due = this.#quietSince + this.#c.pingIntervalMs - performance.now();
    this.#pingTimer = setTimeout(
      () => {
        this.#pingTimer = undefined;
        if (this.#closed || this.#calls.size === 0) return;
        if (performance.now() - this.#quietSince >= this.#c.pingIntervalMs) {
          this.#write(pingFrame(this.#c.clientId));
          this.#c.onPing();
          this.#quietSince = performance.now();
        }
        this.#armPing();
      },
      Math.max(1, Math.ceil(due)),
    );
    this.#pingTimer.unref();
  }

  /** A call is starting: the socket keeps the process alive (the idle timer finds it busy). */
  #holdOpen(): void {
    this.#socket.ref();
  }

  /**
   * A call ended: with none left, the socket no longer holds the process and the idle clock
   * starts again. One timer for the connection's life, restarted (not made anew) each time.
   */
  #afterCall(): void {
    if (this.#closed || this.#calls.size > 0) return;
    this.#socket.unref();
    if (this.#idleTimer === undefined) {
      this.#idleTimer = setTimeout(this.#closeIfIdle, this.#c.maxIdleTimeMs);
      this.#idleTimer.unref();
    } else this.#idleTimer.refresh();
  }

  // A call that started since leaves the connection open; when it ends, the clock restarts.
  readonly #closeIfIdle = (): void => {
    if (this.#calls.size === 0)
      this.#fail(new HadoopRpcConnectionLostError(this.#c.address, 'closed when idle'));
  };

  // --- failure -------------------------------------------------------------------------------

  #onSocketError(error: NodeJS.ErrnoException): void {
    if (this.#closed) return;
    if (!this.#connected) {
      this.#fail(
        new HadoopRpcConnectError(
          this.#c.address,
          CONNECT_FAILURES[error.code ?? ''] ?? 'other',
          error.code,
          error,
        ),
      );
      return;
    }
    this.#fail(new HadoopRpcConnectionLostError(this.#c.address, error.code ?? error.message, error));
  }

  #onSocketClosed(): void {
    if (this.#closed) return;
    const pending = this.#reader.pendingBytes;
    this.#fail(
      new HadoopRpcConnectionLostError(
        this.#c.address,
        pending > 0
          ? `the server closed the connection in the middle of a frame (${pending} bytes of it received)`
          : 'the server closed the connection',
      ),
    );
  }

  #closeReason(): Error {
    return this.#closeError ?? new HadoopRpcConnectionLostError(this.#c.address, 'closed');
  }

  #fail(error: Error): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#closeError = error;
    if (this.#pingTimer !== undefined) clearTimeout(this.#pingTimer);
    if (this.#idleTimer !== undefined) clearTimeout(this.#idleTimer);
    this.#deadlines.clear();
    this.#out.clear();
    this.#socket.destroy();
    this.#connectAbort?.(error);
    this.#connectAbort = undefined;
    const waiter = this.#saslWaiter;
    this.#saslWaiter = undefined;
    waiter?.reject(error);
    const calls = [...this.#calls.values()];
    this.#calls.clear();
    this.#abandoned.clear();
    for (const call of calls) call.reject(error);
    this.#c.onClosed(this);
  }
}
