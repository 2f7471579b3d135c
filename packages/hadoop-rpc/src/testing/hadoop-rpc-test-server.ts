// A Hadoop IPC server in Node for tests (the server's half of the Hadoop RPC spec, §1.4, §1.7):
// SIMPLE auth with or without SASL, protobuf-engine protocols registered by name and version, and
// ERROR/FATAL replies as Hadoop's Server sends them. Fault hooks make it misbehave on purpose.
import { createServer, type Server, type Socket } from 'node:net';
import { checkInteger, FastpathError, InvalidOptionError } from '@fastpath/core';
import { splitDelimited } from '../internal/delimited.js';
import { FrameReader } from '../internal/frame-reader.js';
import { CallIds, frame, IPC_VERSION } from '../internal/frames.js';
import { rpc, type hadoop } from '../internal/proto/wire.js';
import type { SaslSecurityLayer } from '../sasl-mechanism.js';

/** What a method handler sees of the call (enough to implement a retry cache). */
export interface HadoopRpcCallContext {
  /** The connection's user: the context's `effectiveUser`. */
  readonly user: string | undefined;
  /**
   * The real user behind a proxy user: the connection context's `realUser`; `undefined` unless the
   * client impersonates.
   */
  readonly realUser: string | undefined;
  /** The caller's 16-byte client id. */
  readonly clientId: Buffer;
  /**
   * The request header's call id, 0 to 2^31−1; with `clientId` it keys a retry cache, since a
   * re-sent call keeps its id.
   */
  readonly callId: number;
  /** The request header's retry count: 0 on the first attempt, n on the n-th re-send of the call. */
  readonly retryCount: number;
  /** The protocol name the call was routed by (`declaringClassProtocolName` of the request header). */
  readonly protocol: string;
  /** The method name the call was routed by (`methodName` of the request header), e.g. `echo`. */
  readonly method: string;
  /** A number for the connection the call came on, counting from 1. */
  readonly connectionId: number;
  /** How the connection authenticated: `SIMPLE`, or the SASL method (`TOKEN`, `KERBEROS`). */
  readonly authMethod: string;
}

/** A method: request message bytes in, response message bytes out. */
export type HadoopRpcMethod = (request: Uint8Array, context: HadoopRpcCallContext) => Promise<Uint8Array>;

/** A protobuf-engine protocol the server answers. */
export interface HadoopRpcTestProtocol {
  /** `@ProtocolInfo.protocolName`, e.g. `org.apache.hadoop.ozone.om.protocol.OzoneManagerProtocol`. */
  readonly name: string;
  /**
   * `@ProtocolInfo.protocolVersion`: a call naming another version is answered ERROR
   * `RPC$VersionMismatch` (ERROR_RPC_VERSION_MISMATCH).
   */
  readonly version: number;
  /**
   * The handlers by method name; a call to a name not here is answered ERROR
   * `RpcNoSuchMethodException` (ERROR_NO_SUCH_METHOD).
   */
  readonly methods: Readonly<Record<string, HadoopRpcMethod>>;
}

/**
 * Thrown by a method to answer an ERROR reply naming a Java exception class, as a Java server's
 * method throwing that exception would (`errorDetail` ERROR_APPLICATION unless given).
 */
export class JavaExceptionReply extends Error {
  /**
   * The Java exception class the reply names (`exceptionClassName`), e.g.
   * `org.apache.hadoop.ipc.RetriableException`.
   */
  readonly className: string;
  /**
   * The reply's `errorDetail`, a name of `RpcErrorCodeProto` such as `ERROR_APPLICATION` or
   * `ERROR_RPC_SERVER`.
   */
  readonly errorDetail: string;
  constructor(className: string, message: string, errorDetail = 'ERROR_APPLICATION') {
    super(message);
    this.className = className;
    this.errorDetail = errorDetail;
  }
}

/** How the server misbehaves for the next call(s) (or, for `silent-handshake`, connection). */
export type HadoopRpcFault =
  /** Answers a frame whose header does not decode. */
  | 'garbage'
  /** Sends the first bytes of a 100-byte frame, then closes the connection. */
  | 'truncated-frame'
  /** Sends a length prefix of 2^31−1 bytes (2 GiB) and nothing after it. */
  | 'huge-length'
  /** Answers with a call id the client never sent. */
  | 'unknown-call-id'
  /** Answers FATAL (IpcException) and closes the connection, as Hadoop's server does. */
  | 'fatal'
  /** Never answers the call. */
  | 'silent'
  /** Accepts the next connection and never answers anything on it. */
  | 'silent-handshake'
  /** Alters one byte of the next wrapped message it sends (on a security layer), as a man in the middle would. */
  | 'corrupt-wrap';

/**
 * A server-side SASL mechanism for tests of the client's mechanism seam: offered first in NEGOTIATE,
 * it answers each client token (INITIATE's, then each RESPONSE's) with a CHALLENGE until `done`,
 * then SUCCESS; with a `securityLayer`, every later frame both ways travels wrapped in WRAP messages.
 */
export interface HadoopRpcTestSaslMechanism {
  /**
   * The auth method offered and matched against the client's INITIATE (`SaslAuth.method`), e.g.
   * `TOKEN`.
   */
  readonly method: string;
  /** The SASL mechanism name offered (`SaslAuth.mechanism`), e.g. `DIGEST-MD5`. */
  readonly mechanism: string;
  /** The SASL protocol (service) name offered, e.g. `''` for TOKEN; left out of the offer when absent. */
  readonly protocol?: string;
  /** The SASL server name offered, e.g. `default` for TOKEN; left out of the offer when absent. */
  readonly serverId?: string;
  /** A first challenge sent with the NEGOTIATE offer (DIGEST-MD5 piggy-backs one). */
  readonly challenge?: Uint8Array;
  /**
   * Throws (or rejects) to refuse the client: the server answers FATAL `FATAL_UNAUTHORIZED` with
   * the error's message. May answer later (GSSAPI's acceptor works off the event loop).
   */
  evaluate(token: Uint8Array): HadoopRpcTestSaslStep | Promise<HadoopRpcTestSaslStep>;
  /** Read once the exchange is done. */
  readonly securityLayer?: SaslSecurityLayer | undefined;
  /**
   * Read once the exchange is done: the user the exchange authenticated (KERBEROS: the ticket's
   * principal). The connection context may then name only this user as its effective user, as
   * Hadoop's server without proxy-user rules; calls see it as their `user`. Absent: the context's.
   */
  readonly authenticatedUser?: string | undefined;
}

/** One answer of a {@link HadoopRpcTestSaslMechanism}. */
export interface HadoopRpcTestSaslStep {
  /** `true` ends the exchange with SUCCESS; `false` sends `token` as a CHALLENGE and awaits a RESPONSE. */
  done: boolean;
  /**
   * The CHALLENGE's token (empty when absent), or the token SUCCESS carries, if any (DIGEST-MD5's
   * `rspauth`).
   */
  token?: Uint8Array;
}

/** Options of {@link startHadoopRpcTestServer}. */
export interface HadoopRpcTestServerOptions {
  /** The protocols served. Required, at least one. */
  protocols: readonly HadoopRpcTestProtocol[];
  /** Host to bind. Default: `127.0.0.1`. */
  host?: string;
  /** Port to bind. Default: 0 (any free port). */
  port?: number;
  /**
   * The methods the server offers, in order (Hadoop's `getAuthMethods`). Default: `['SIMPLE']`.
   * A list without SIMPLE makes a server that refuses SIMPLE clients (FATAL, as a secure one does);
   * an empty one, with a `saslMechanism`, offers that mechanism alone.
   */
  authMethods?: ReadonlyArray<'SIMPLE' | 'TOKEN' | 'KERBEROS'>;
  /**
   * The Java package of the IPC exception classes the server names: Hadoop's `org.apache.hadoop.ipc`
   * or Ozone's fork `org.apache.hadoop.ipc_`. Default: `org.apache.hadoop.ipc`.
   */
  ipcPackage?: 'org.apache.hadoop.ipc' | 'org.apache.hadoop.ipc_';
  /**
   * A mechanism offered before `authMethods`: one object shared by every connection, or a function
   * making one per connection (a mechanism with per-connection state, e.g. {@link tokenTestSaslMechanism}).
   * Default: none.
   */
  saslMechanism?: HadoopRpcTestSaslMechanism | (() => HadoopRpcTestSaslMechanism);
  /**
   * Several mechanisms, offered in this order before `authMethods` (as a secure Hadoop server
   * offers `[TOKEN, KERBEROS]`); the one the client's INITIATE names runs. Each is an object or a
   * per-connection factory, as `saslMechanism`. Not together with `saslMechanism`. Default: none.
   */
  saslMechanisms?: ReadonlyArray<HadoopRpcTestSaslMechanism | (() => HadoopRpcTestSaslMechanism)>;
  /** Largest request frame accepted, in bytes; above it the connection is closed. Default: 134 217 728 (`ipc.maximum.data.length`). */
  maxDataBytes?: number;
}

/** A running test server. */
export interface HadoopRpcTestServer {
  /** `127.0.0.1:<port>`. */
  readonly address: string;
  /** The TCP port the server listens on (the one picked when the `port` option was 0). */
  readonly port: number;
  /** Connections open now. */
  readonly connectionsOpen: number;
  /** Connections accepted so far. */
  readonly connectionsAccepted: number;
  /** Pings (call id −4) received so far. */
  readonly pingsReceived: number;
  /** Calls (call id ≥ 0) received so far, faulted ones included. */
  readonly callsReceived: number;
  /** WRAP messages received (after a `saslMechanism` with a security layer). */
  readonly wrapsReceived: number;
  /** The longest WRAP message's token received so far, in bytes (0 before any). */
  readonly largestWrapReceived: number;
  /** Makes the server misbehave `times` times (default once); see {@link HadoopRpcFault}. */
  injectFault(fault: HadoopRpcFault, times?: number): void;
  /** Closes every connection and stops listening. */
  close(): Promise<void>;
  /** {@link HadoopRpcTestServer.close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** A bad registration or option of the test server. */
export class HadoopRpcTestServerError extends FastpathError {
  constructor(message: string) {
    super('ERR_HADOOP_RPC_TEST_SERVER', message);
  }
}

const Status = rpc.RpcResponseHeaderProto.RpcStatusProto;
const Sasl = rpc.RpcSaslProto.SaslState;
const ErrorCode = rpc.RpcResponseHeaderProto.RpcErrorCodeProto;
const ACCESS_CONTROL = 'org.apache.hadoop.security.AccessControlException';
const AUTH_OFFER: Record<string, hadoop.common.RpcSaslProto.ISaslAuth> = {
  SIMPLE: { method: 'SIMPLE', mechanism: '' },
  TOKEN: { method: 'TOKEN', mechanism: 'DIGEST-MD5', protocol: '', serverId: 'default' },
  KERBEROS: { method: 'KERBEROS', mechanism: 'GSSAPI', protocol: 'test', serverId: '127.0.0.1' },
};

/**
 * Starts a Hadoop IPC server on `127.0.0.1:0` serving `protocols`.
 *
 * @example
 * ```ts
 * await using server = await startHadoopRpcTestServer({ protocols: [testRpcProtocol()] });
 * const client = createHadoopRpcClient({ user: 'alice' });
 * await client.call({ address: server.address, ...TEST_RPC_PROTOCOL, method: 'echo', request });
 * ```
 */
export async function startHadoopRpcTestServer(
  options: HadoopRpcTestServerOptions,
): Promise<HadoopRpcTestServer> {
  const protocols = new Map<string, HadoopRpcTestProtocol>();
  if (!Array.isArray(options.protocols) || options.protocols.length === 0) {
    throw new InvalidOptionError('protocols', 'expected at least one protocol');
  }
  for (const p of options.protocols as readonly HadoopRpcTestProtocol[]) {
    if (protocols.has(p.name)) throw new HadoopRpcTestServerError(`protocol ${p.name} registered twice`);
    protocols.set(p.name, p);
  }
  const authMethods = options.authMethods ?? ['SIMPLE'];
  if (options.saslMechanism !== undefined && options.saslMechanisms !== undefined) {
    throw new InvalidOptionError('saslMechanisms', 'not together with saslMechanism');
  }
  const saslMechanisms =
    options.saslMechanisms ?? (options.saslMechanism === undefined ? [] : [options.saslMechanism]);
  if (authMethods.length === 0 && saslMechanisms.length === 0) {
    throw new InvalidOptionError('authMethods', 'expected at least one method (or a saslMechanism)');
  }
  const maxDataBytes = options.maxDataBytes ?? 134_217_728;
  checkInteger('maxDataBytes', maxDataBytes, 64, 2 ** 31 - 1);
  const state: ServerState = {
    protocols,
    authMethods,
    ipc: options.ipcPackage ?? 'org.apache.hadoop.ipc',
    maxDataBytes,
    faults: [],
    sockets: new Set(),
    timers: new Set(),
    accepted: 0,
    pings: 0,
    calls: 0,
    wraps: 0,
    largestWrap: 0,
    saslMechanisms,
  };
  const server = createServer((socket) => {
    state.accepted++;
    state.sockets.add(socket);
    socket.on('close', () => state.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    new ServerConnection(state, socket, state.accepted);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  return new RunningTestServer(server, state, `${options.host ?? '127.0.0.1'}:${port}`, port);
}

interface ServerState {
  protocols: Map<string, HadoopRpcTestProtocol>;
  authMethods: ReadonlyArray<string>;
  ipc: string;
  maxDataBytes: number;
  faults: HadoopRpcFault[];
  sockets: Set<Socket>;
  timers: Set<NodeJS.Timeout>;
  accepted: number;
  pings: number;
  calls: number;
  wraps: number;
  largestWrap: number;
  saslMechanisms: ReadonlyArray<HadoopRpcTestSaslMechanism | (() => HadoopRpcTestSaslMechanism)>;
}

class RunningTestServer implements HadoopRpcTestServer {
  readonly address: string;
  readonly port: number;
  readonly #server: Server;
  readonly #state: ServerState;

  constructor(server: Server, state: ServerState, address: string, port: number) {
    this.#server = server;
    this.#state = state;
    this.address = address;
    this.port = port;
  }

  get connectionsOpen(): number {
    return this.#state.sockets.size;
  }

  get connectionsAccepted(): number {
    return this.#state.accepted;
  }

  get pingsReceived(): number {
    return this.#state.pings;
  }

  get callsReceived(): number {
    return this.#state.calls;
  }

  get wrapsReceived(): number {
    return this.#state.wraps;
  }

  get largestWrapReceived(): number {
    return this.#state.largestWrap;
  }

  injectFault(fault: HadoopRpcFault, times = 1): void {
    checkInteger('times', times, 1, 1_000_000);
    for (let i = 0; i < times; i++) this.#state.faults.push(fault);
  }

  async close(): Promise<void> {
    for (const socket of this.#state.sockets) socket.destroy();
    for (const timer of this.#state.timers) clearTimeout(timer);
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

function takeFault(state: ServerState, kinds: readonly HadoopRpcFault[]): HadoopRpcFault | undefined {
  const i = state.faults.findIndex((f) => kinds.includes(f));
  if (i < 0) return undefined;
  return state.faults.splice(i, 1)[0];
}

const CALL_FAULTS: readonly HadoopRpcFault[] = [
  'garbage',
  'truncated-frame',
  'huge-length',
  'unknown-call-id',
  'fatal',
  'silent',
];

class ServerConnection {
  readonly #s: ServerState;
  readonly #socket: Socket;
  readonly #id: number;
  #reader: FrameReader;
  #preamble: Buffer | undefined = Buffer.alloc(0);
  #sasl = false;
  #saslDone = false;
  #context: { user: string | undefined; realUser: string | undefined } | undefined;
  #silent = false;
  #closing = false;
  #saslInProgress = false;
  #layer: SaslSecurityLayer | undefined;
  // The mechanisms offered on this connection, and the one the client chose (at INITIATE).
  readonly #mechs: readonly HadoopRpcTestSaslMechanism[];
  #mech: HadoopRpcTestSaslMechanism | undefined;
  #authenticatedUser: string | undefined;
  #authMethod: string | undefined;
  #plainReader: FrameReader | undefined;

  constructor(state: ServerState, socket: Socket, id: number) {
    this.#s = state;
    this.#socket = socket;
    this.#id = id;
    this.#reader = new FrameReader(state.maxDataBytes);
    this.#mechs = state.saslMechanisms.map((m) => (typeof m === 'function' ? m() : m));
    this.#silent = takeFault(state, ['silent-handshake']) !== undefined;
    socket.on('data', (chunk: Buffer) => this.#onData(chunk));
  }

  #onData(chunk: Buffer): void {
    if (this.#silent || this.#closing) return;
    let data = chunk;
    if (this.#preamble !== undefined) {
      const have = Buffer.concat([this.#preamble, data]);
      if (have.length >= 4 && have.subarray(0, 4).toString('latin1') === 'GET ') {
        this.#closing = true;
        this.#socket.end(
          'HTTP/1.1 404 Not Found\r\nContent-type: text/plain\r\n\r\nIt looks like you are making an HTTP request to a Hadoop IPC port.\r\n',
        );
        return;
      }
      if (have.length < 7) {
        this.#preamble = have;
        return;
      }
      this.#preamble = undefined;
      if (!this.#onPreamble(have.subarray(0, 7))) return;
      data = have.subarray(7);
    }
    this.#readFrames(this.#reader, data);
  }

  /** Frames from `reader` (the socket's, or the unwrapped stream's) handled in order. */
  #readFrames(reader: FrameReader, data: Buffer): void {
    let frames: Buffer[];
    try {
      frames = reader.push(data);
    } catch {
      // Hadoop's server logs a bad length and closes without a reply (Server.java#checkDataLength).
      this.#socket.destroy();
      return;
    }
    for (const body of frames) {
      if (this.#closing) return;
      this.#onFrame(body);
    }
  }

  #onPreamble(p: Buffer): boolean {
    if (p.subarray(0, 4).toString('latin1') !== 'hrpc') {
      this.#socket.destroy();
      return false;
    }
    const version = p[4] as number;
    if (version !== IPC_VERSION) {
      this.#fatal(
        CallIds.AUTHORIZATION_FAILED,
        `${this.#s.ipc}.RPC$VersionMismatch`,
        `Server IPC version ${IPC_VERSION} cannot communicate with client version ${version}`,
        'FATAL_VERSION_MISMATCH',
      );
      return false;
    }
    const auth = p[6] as number;
    if (auth === 0x00) {
      if (!this.#s.authMethods.includes('SIMPLE')) {
        this.#fatal(
          CallIds.AUTHORIZATION_FAILED,
          ACCESS_CONTROL,
          `SIMPLE authentication is not enabled.  Available:[${this.#s.authMethods.join(', ')}]`,
          'FATAL_UNAUTHORIZED',
        );
        return false;
      }
      this.#saslDone = true;
      this.#authMethod = 'SIMPLE';
      return true;
    }
    if (auth === 0xdf) {
      this.#sasl = true;
      return true;
    }
    this.#fatal(
      CallIds.AUTHORIZATION_FAILED,
      `${this.#s.ipc}.IpcException`,
      `Unknown auth protocol:${(auth << 24) >> 24}`,
      'FATAL_UNKNOWN',
    );
    return false;
  }

  #onFrame(body: Buffer): void {
    let parts: Uint8Array[];
    let header: hadoop.common.RpcRequestHeaderProto;
    try {
      parts = splitDelimited(body, 3);
      header = rpc.RpcRequestHeaderProto.decode(parts[0] ?? new Uint8Array(0));
    } catch (error) {
      this.#fatal(
        CallIds.AUTHORIZATION_FAILED,
        `${this.#s.ipc}.RpcServerException`,
        `Error decoding request header: ${(error as Error).message}`,
        'FATAL_DESERIALIZING_REQUEST',
      );
      return;
    }
    const has = (k: string): boolean => Object.prototype.hasOwnProperty.call(header, k);
    if (
      !has('rpcKind') ||
      !has('rpcOp') ||
      header.rpcOp !== rpc.RpcRequestHeaderProto.OperationProto.RPC_FINAL_PACKET
    ) {
      this.#fatal(
        header.callId,
        `${this.#s.ipc}.RpcServerException`,
        'IPC Server: invalid RPC header (rpcKind or rpcOp missing or not a final packet)',
        'FATAL_INVALID_RPC_HEADER',
      );
      return;
    }
    const callId = header.callId;
    if (callId === CallIds.SASL) return this.#onSasl(parts[1]);
    if (callId === CallIds.CONNECTION_CONTEXT) return this.#onContext(parts[1]);
    if (callId === CallIds.PING) {
      this.#s.pings++;
      return;
    }
    if (callId < 0) {
      this.#fatal(
        callId,
        `${this.#s.ipc}.RpcServerException`,
        `Unknown out of band call #${callId}`,
        'FATAL_INVALID_RPC_HEADER',
      );
      return;
    }
    if (this.#context === undefined) {
      this.#fatal(
        callId,
        `${this.#s.ipc}.RpcServerException`,
        'Connection context not established',
        'FATAL_INVALID_RPC_HEADER',
      );
      return;
    }
    this.#s.calls++;
    void this.#onCall(header, parts);
  }

  #onSasl(payload: Uint8Array | undefined): void {
    if (!this.#sasl) {
      this.#fatal(
        CallIds.SASL,
        `${this.#s.ipc}.RpcServerException`,
        'SASL protocol not requested by client',
        'FATAL_INVALID_RPC_HEADER',
      );
      return;
    }
    let message: hadoop.common.RpcSaslProto;
    try {
      message = rpc.RpcSaslProto.decode(payload ?? new Uint8Array(0));
    } catch (error) {
      this.#fatal(
        CallIds.SASL,
        `${this.#s.ipc}.RpcServerException`,
        `Error decoding SASL message: ${(error as Error).message}`,
        'FATAL_DESERIALIZING_REQUEST',
      );
      return;
    }
    if (message.state === Sasl.INITIATE && !this.#saslDone && this.#mech === undefined) {
      this.#mech = this.#mechs.find((m) => m.method === message.auths[0]?.method);
    }
    const mech = this.#mech;
    if (message.state === Sasl.WRAP && this.#layer !== undefined && this.#plainReader !== undefined) {
      this.#s.wraps++;
      this.#s.largestWrap = Math.max(this.#s.largestWrap, message.token.length);
      let plain: Buffer;
      try {
        plain = Buffer.from(this.#layer.unwrap(message.token));
      } catch {
        this.#socket.destroy();
        return;
      }
      this.#readFrames(this.#plainReader, plain);
      return;
    }
    if (mech !== undefined && !this.#saslDone) {
      const started = message.state === Sasl.INITIATE && message.auths[0]?.method === mech.method;
      if (started || (message.state === Sasl.RESPONSE && this.#saslInProgress)) {
        this.#saslInProgress = true;
        const refuse = (error: unknown): void =>
          this.#fatal(
            CallIds.SASL,
            'javax.security.sasl.SaslException',
            (error as Error).message,
            'FATAL_UNAUTHORIZED',
          );
        let step: HadoopRpcTestSaslStep | Promise<HadoopRpcTestSaslStep>;
        try {
          step = mech.evaluate(message.token);
        } catch (error) {
          refuse(error);
          return;
        }
        if (step instanceof Promise) step.then((s) => this.#afterSaslStep(mech, s), refuse);
        else this.#afterSaslStep(mech, step);
        return;
      }
    }
    const offered = this.#mechs;
    const methods = [...offered.map((m) => m.method), ...this.#s.authMethods];
    const available = `[${methods.join(', ')}]`;
    if (message.state === Sasl.NEGOTIATE && !this.#saslDone) {
      // A SIMPLE-only server answers SUCCESS at once (Server.java#buildNegotiateResponse).
      if (offered.length === 0 && this.#s.authMethods.length === 1 && this.#s.authMethods[0] === 'SIMPLE') {
        this.#saslDone = true;
        this.#authMethod = 'SIMPLE';
        this.#saslReply({ state: Sasl.SUCCESS });
        return;
      }
      this.#saslReply({
        state: Sasl.NEGOTIATE,
        auths: [
          ...offered.map((m) => ({
            method: m.method,
            mechanism: m.mechanism,
            ...(m.protocol === undefined ? {} : { protocol: m.protocol }),
            ...(m.serverId === undefined ? {} : { serverId: m.serverId }),
            ...(m.challenge === undefined ? {} : { challenge: m.challenge }),
          })),
          ...this.#s.authMethods.map((m) => AUTH_OFFER[m] as hadoop.common.RpcSaslProto.ISaslAuth),
        ],
      });
      return;
    }
    if (message.state === Sasl.INITIATE && !this.#saslDone) {
      const method = message.auths[0]?.method ?? '';
      if (method === 'SIMPLE' && this.#s.authMethods.includes('SIMPLE')) {
        this.#saslDone = true;
        this.#authMethod = 'SIMPLE';
        return;
      }
      this.#fatal(
        CallIds.SASL,
        ACCESS_CONTROL,
        `${method} authentication is not enabled.  Available:${available}`,
        'FATAL_UNAUTHORIZED',
      );
      return;
    }
    this.#fatal(
      CallIds.SASL,
      `${this.#s.ipc}.RpcServerException`,
      `unexpected SASL state ${message.state}`,
      'FATAL_INVALID_RPC_HEADER',
    );
  }

  #afterSaslStep(mech: HadoopRpcTestSaslMechanism, step: HadoopRpcTestSaslStep): void {
    if (this.#socket.destroyed) return;
    if (!step.done) {
      this.#saslReply({ state: Sasl.CHALLENGE, token: step.token ?? new Uint8Array(0) });
      return;
    }
    this.#saslReply({ state: Sasl.SUCCESS, ...(step.token ? { token: step.token } : {}) });
    this.#saslDone = true;
    this.#authMethod = mech.method;
    this.#authenticatedUser = mech.authenticatedUser;
    // Wrapping starts right after the final SASL message (Server.java#saslProcess).
    if (mech.securityLayer) {
      this.#layer = mech.securityLayer;
      this.#plainReader = new FrameReader(this.#s.maxDataBytes);
    }
  }

  #onContext(payload: Uint8Array | undefined): void {
    if (!this.#saslDone) {
      this.#fatal(
        CallIds.CONNECTION_CONTEXT,
        `${this.#s.ipc}.RpcServerException`,
        'Connection header sent during SASL negotiation',
        'FATAL_INVALID_RPC_HEADER',
      );
      return;
    }
    if (this.#context !== undefined) {
      this.#fatal(
        CallIds.CONNECTION_CONTEXT,
        `${this.#s.ipc}.RpcServerException`,
        'Connection context already processed',
        'FATAL_INVALID_RPC_HEADER',
      );
      return;
    }
    try {
      const context = rpc.IpcConnectionContextProto.decode(payload ?? new Uint8Array(0));
      const info = context.userInfo;
      const has = (k: string): boolean => info != null && Object.prototype.hasOwnProperty.call(info, k);
      const claimed = has('effectiveUser') ? (info?.effectiveUser ?? undefined) : undefined;
      const authenticated = this.#authenticatedUser;
      if (authenticated !== undefined && claimed !== undefined && claimed !== authenticated) {
        // Hadoop's words (Server.java#authorizeConnection without a proxy-user rule for it).
        this.#fatal(
          CallIds.CONNECTION_CONTEXT,
          ACCESS_CONTROL,
          `Authenticated user (${authenticated}) doesn't match what the client claims to be (${claimed})`,
          'FATAL_UNAUTHORIZED',
        );
        return;
      }
      this.#context = {
        user: authenticated ?? claimed,
        realUser: has('realUser') ? (info?.realUser ?? undefined) : undefined,
      };
    } catch (error) {
      this.#fatal(
        CallIds.CONNECTION_CONTEXT,
        `${this.#s.ipc}.RpcServerException`,
        `Error decoding connection context: ${(error as Error).message}`,
        'FATAL_DESERIALIZING_REQUEST',
      );
    }
  }

  async #onCall(header: hadoop.common.RpcRequestHeaderProto, parts: Uint8Array[]): Promise<void> {
    const callId = header.callId;
    const fault = takeFault(this.#s, CALL_FAULTS);
    if (fault !== undefined) return this.#applyFault(fault, header);
    let engine: hadoop.common.RequestHeaderProto;
    try {
      engine = rpc.RequestHeaderProto.decode(parts[1] ?? new Uint8Array(0));
    } catch (error) {
      this.#fatal(
        callId,
        `${this.#s.ipc}.RpcServerException`,
        `Error decoding RequestHeaderProto: ${(error as Error).message}`,
        'FATAL_DESERIALIZING_REQUEST',
      );
      return;
    }
    const protocolName = engine.declaringClassProtocolName;
    const version = Number(engine.clientProtocolVersion);
    const protocol = this.#s.protocols.get(protocolName);
    if (protocol === undefined) {
      return this.#error(
        header,
        `${this.#s.ipc}.RpcNoSuchProtocolException`,
        `Unknown protocol: ${protocolName}`,
        'ERROR_NO_SUCH_PROTOCOL',
      );
    }
    if (protocol.version !== version) {
      return this.#error(
        header,
        `${this.#s.ipc}.RPC$VersionMismatch`,
        `Protocol ${protocolName} version mismatch. (client = ${version}, server = ${protocol.version})`,
        'ERROR_RPC_VERSION_MISMATCH',
      );
    }
    const method = Object.prototype.hasOwnProperty.call(protocol.methods, engine.methodName)
      ? protocol.methods[engine.methodName]
      : undefined;
    if (method === undefined) {
      return this.#error(
        header,
        `${this.#s.ipc}.RpcNoSuchMethodException`,
        `Unknown method ${engine.methodName} called on ${protocolName} protocol.`,
        'ERROR_NO_SUCH_METHOD',
      );
    }
    const context: HadoopRpcCallContext = {
      user: this.#context?.user,
      realUser: this.#context?.realUser,
      clientId: Buffer.from(header.clientId),
      callId,
      retryCount: header.retryCount,
      protocol: protocolName,
      method: engine.methodName,
      connectionId: this.#id,
      authMethod: this.#authMethod ?? 'SIMPLE',
    };
    let response: Uint8Array;
    try {
      response = await method(parts[2] ?? new Uint8Array(0), context);
    } catch (error) {
      const e = error as Error;
      const className = error instanceof JavaExceptionReply ? error.className : 'java.io.IOException';
      const detail = error instanceof JavaExceptionReply ? error.errorDetail : 'ERROR_APPLICATION';
      // A Java server sends the message, then the stack trace (Server.java, the "Class: " prefix removed).
      return this.#error(
        header,
        className,
        `${e.message}\n\tat ${protocolName}.${engine.methodName}(hadoop-rpc test server)`,
        detail,
      );
    }
    this.#send(frame(this.#responseHeader(header, Status.SUCCESS), response));
  }

  #applyFault(fault: HadoopRpcFault, header: hadoop.common.RpcRequestHeaderProto): void {
    switch (fault) {
      case 'garbage':
        this.#send(Buffer.from('00000008ffffffffffffffff', 'hex'));
        return;
      case 'truncated-frame':
        this.#closing = true;
        this.#socket.end(Buffer.concat([Buffer.from('00000064', 'hex'), Buffer.alloc(10, 0x41)]));
        return;
      case 'huge-length':
        this.#send(Buffer.from('7fffffff', 'hex'));
        return;
      case 'unknown-call-id':
        this.#send(
          frame(
            this.#responseHeader(
              { ...header, callId: (header.callId + 1_000_000) & 0x7fffffff },
              Status.SUCCESS,
            ),
            new Uint8Array(0),
          ),
        );
        return;
      case 'fatal':
        this.#fatal(header.callId, `${this.#s.ipc}.IpcException`, 'injected FATAL reply', 'FATAL_UNKNOWN');
        return;
      default:
        return; // silent: the call is never answered
    }
  }

  #responseHeader(
    header: hadoop.common.RpcRequestHeaderProto,
    status: number,
    error?: { className: string; message: string; detail: string },
  ): Uint8Array {
    return rpc.RpcResponseHeaderProto.encode({
      callId: header.callId,
      status,
      serverIpcVersionNum: IPC_VERSION,
      clientId: header.clientId,
      retryCount: header.retryCount,
      ...(error
        ? {
            exceptionClassName: error.className,
            errorMsg: error.message,
            errorDetail: ErrorCode[error.detail as keyof typeof ErrorCode],
          }
        : {}),
    }).finish();
  }

  #error(
    header: hadoop.common.RpcRequestHeaderProto,
    className: string,
    message: string,
    detail: string,
  ): void {
    this.#send(frame(this.#responseHeader(header, Status.ERROR, { className, message, detail })));
  }

  /** A FATAL reply, then the connection closed (Server.java#setupResponse, setShouldClose). */
  #fatal(callId: number, className: string, message: string, detail: string): void {
    const header = rpc.RpcResponseHeaderProto.encode({
      callId,
      status: Status.FATAL,
      serverIpcVersionNum: IPC_VERSION,
      exceptionClassName: className,
      errorMsg: message,
      errorDetail: ErrorCode[detail as keyof typeof ErrorCode],
    }).finish();
    const bytes = this.#wrapped(frame(header));
    this.#closing = true;
    this.#socket.end(bytes);
  }

  /** A SASL reply: call id −33, an empty client id, retry count −1 (Server.java#doSaslReply). */
  #saslReply(message: hadoop.common.IRpcSaslProto): void {
    if (!this.#closing && !this.#socket.destroyed) this.#socket.write(this.#saslPacket(message));
  }

  #saslPacket(message: hadoop.common.IRpcSaslProto): Buffer {
    const header = rpc.RpcResponseHeaderProto.encode({
      callId: CallIds.SASL,
      status: Status.SUCCESS,
      serverIpcVersionNum: IPC_VERSION,
      clientId: new Uint8Array(0),
      retryCount: -1,
    }).finish();
    return frame(header, rpc.RpcSaslProto.encode(message).finish());
  }

  /** Bytes as they go on the wire: inside a WRAP message once a security layer is on (spec §3.6). */
  #wrapped(bytes: Uint8Array): Uint8Array {
    if (this.#layer === undefined) return bytes;
    const token = this.#layer.wrap(bytes);
    if (takeFault(this.#s, ['corrupt-wrap']) !== undefined) {
      token[token.length - 1] = (token[token.length - 1] as number) ^ 0x01;
    }
    return this.#saslPacket({ state: Sasl.WRAP, token });
  }

  #send(bytes: Uint8Array): void {
    if (!this.#closing && !this.#socket.destroyed) this.#socket.write(this.#wrapped(bytes));
  }
}
