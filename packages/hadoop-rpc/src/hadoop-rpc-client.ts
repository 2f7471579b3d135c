import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { MetricsRegistry } from '@fastpath/core';
import {
  HadoopRpcClientClosedError,
  HadoopRpcInvalidArgumentError,
  RemoteException,
} from './hadoop-rpc-errors.js';
import {
  type HadoopRpcClientOptions,
  resolveHadoopRpcClientOptions,
  type ResolvedHadoopRpcClientOptions,
} from './hadoop-rpc-client-options.js';
import { ClientMetrics } from './internal/client-metrics.js';
import { Connection } from './internal/connection.js';

/** One protobuf-engine call. */
export interface HadoopRpcCall {
  /** The server, `host:port` (`[v6]:port` for an IPv6 literal). */
  address: string;
  /** The protocol name (`@ProtocolInfo.protocolName`), e.g. `org.apache.hadoop.ozone.om.protocol.OzoneManagerProtocol`. */
  protocol: string;
  /** The protocol version (`@ProtocolInfo.protocolVersion`), e.g. 1. */
  protocolVersion: number;
  /** The method name, e.g. `submitRequest`. */
  method: string;
  /** The request message, already encoded by the caller. */
  request: Uint8Array;
  /**
   * The call id, 0 to 2^31−1. Default: a fresh {@link HadoopRpcClient.nextCallId}. A layer that
   * re-sends a call (after a failover, say) takes one id with `nextCallId()` and passes it on every
   * attempt, so that the server's retry cache recognises the re-send.
   */
  callId?: number;
  /** 0 on the first attempt, n on the n-th re-send. Default: 0. */
  retryCount?: number;
  /** This call's deadline once the connection is ready, in ms; 0 for none. Default: the client's `callTimeoutMs`. */
  timeoutMs?: number;
}

// Hadoop's call ids come from one process-wide counter (Client.java#nextCallId, a static field):
// 0, 1, … up to 2^31−1, then 0 again, never negative.
let callIdCounter = 0;
function takeCallId(): number {
  const id = callIdCounter;
  callIdCounter = (callIdCounter + 1) & 0x7fffffff;
  return id;
}

/** A random version-4 UUID's 16 bytes, as Hadoop's `ClientId.getClientId()` makes one. */
function randomClientId(): Buffer {
  const bytes = randomBytes(16);
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  return bytes;
}

const MAX_CALL_ID = 0x7fffffff;

/**
 * A Hadoop IPC (version 9) client for protobuf-engine RPCs: one connection per server, protocol
 * and user, opened on demand, with any number of calls in flight on it, matched by call id. One
 * random 16-byte client id per client, shared by all its connections.
 *
 * @example
 * ```ts
 * const client = createHadoopRpcClient({ user: 'alice' });
 * const response = await client.call({
 *   address: 'om1.example.com:9862',
 *   protocol: 'org.apache.hadoop.ozone.om.protocol.OzoneManagerProtocol',
 *   protocolVersion: 1,
 *   method: 'submitRequest',
 *   request: omRequestBytes,
 * });
 * await client.close();
 * ```
 */
export class HadoopRpcClient {
  /** The registry the client's metrics are in (the one given, else a private one). */
  readonly metrics: MetricsRegistry;
  readonly #options: ResolvedHadoopRpcClientOptions;
  /**
   * Address → protocol → connection: Hadoop keys a connection by its ConnectionId (address,
   * protocol, user, how it authenticates); the user and the authentication are this client's own,
   * and two map lookups cost a call less than building a key.
   */
  readonly #connections = new Map<string, Map<string, Connection>>();
  readonly #metrics: ClientMetrics;
  #closed = false;

  constructor(options: HadoopRpcClientOptions = {}) {
    this.#options = resolveHadoopRpcClientOptions(options, randomClientId);
    this.metrics = this.#options.metrics ?? new MetricsRegistry();
    this.#metrics = new ClientMetrics(this.metrics, this.#options.name, () => this.connectionsOpen);
  }

  /** This client's 16-byte id (a copy). */
  get clientId(): Uint8Array {
    return Buffer.from(this.#options.clientId);
  }

  /** The user calls run as. */
  get user(): string {
    return this.#options.user;
  }

  /** Connections open (connecting or ready). */
  get connectionsOpen(): number {
    let open = 0;
    for (const byProtocol of this.#connections.values()) open += byProtocol.size;
    return open;
  }

  /**
   * A fresh call id from the process-wide counter (as Hadoop's), for a caller that sends one
   * logical call several times: pass it as `callId` on every attempt, with `retryCount` 0, 1, ….
   */
  nextCallId(): number {
    return takeCallId();
  }

  /**
   * Sends one call and resolves with the response message's bytes.
   *
   * @throws RemoteException when the server answers an exception (`className`, `firstLine`)
   * @throws HadoopRpcConnectError when the connection cannot be made (`reason`: refused, …)
   * @throws HadoopRpcConnectTimeoutError, HadoopRpcConnectionLostError, HadoopRpcCallTimeoutError
   * @throws HadoopRpcProtocolError, HadoopRpcResponseTooLargeError, HadoopRpcSaslError
   * @throws HadoopRpcInvalidArgumentError before anything is sent, for a bad argument
   */
  async call(call: HadoopRpcCall): Promise<Uint8Array> {
    const existing = this.#connections.get(call.address)?.get(call.protocol);
    // An address is checked when a connection to it is opened: one with a connection passed.
    const open = existing === undefined || existing.closed;
    const target = open ? parseAddress(call.address) : undefined;
    checkName('protocol', call.protocol);
    checkName('method', call.method);
    checkCount('protocolVersion', call.protocolVersion, Number.MAX_SAFE_INTEGER);
    if (!(call.request instanceof Uint8Array)) {
      throw new HadoopRpcInvalidArgumentError('request', 'expected the encoded request message as bytes');
    }
    if (call.callId !== undefined) checkCount('callId', call.callId, MAX_CALL_ID);
    if (call.retryCount !== undefined) checkCount('retryCount', call.retryCount, MAX_CALL_ID);
    if (call.timeoutMs !== undefined) checkCount('timeoutMs', call.timeoutMs, MAX_CALL_ID);
    if (this.#closed) throw new HadoopRpcClientClosedError();

    const startedAt = performance.now();
    const connection = target ? this.#open(call.address, target, call.protocol) : (existing as Connection);
    try {
      const response = await connection.call(
        { method: call.method, protocol: call.protocol, protocolVersion: call.protocolVersion },
        call.callId ?? takeCallId(),
        call.retryCount ?? 0,
        call.request,
        call.timeoutMs ?? this.#options.callTimeoutMs,
      );
      this.#metrics.settled(call.method, startedAt, undefined);
      return response;
    } catch (error) {
      const label =
        error instanceof RemoteException ? error.className : ((error as { code?: string }).code ?? 'error');
      this.#metrics.settled(call.method, startedAt, label);
      throw error;
    }
  }

  /**
   * Closes every connection (sockets destroyed, timers cleared); calls in flight fail with
   * `ERR_HADOOP_RPC_CLIENT_CLOSED`. Nothing of the client keeps the process alive afterwards.
   */
  close(): Promise<void> {
    this.#closed = true;
    const error = new HadoopRpcClientClosedError();
    for (const connection of [...this.#connections.values()].flatMap((c) => [...c.values()]))
      connection.close(error);
    this.#connections.clear();
    return Promise.resolve();
  }

  /**
   * {@link HadoopRpcClient.close}, for `await using client = createHadoopRpcClient()`. Safe after
   * `close()`.
   */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #open(address: string, { host, port }: { host: string; port: number }, protocol: string): Connection {
    const o = this.#options;
    const connection: Connection = new Connection({
      address,
      host,
      port,
      protocol,
      clientId: o.clientId,
      user: o.user,
      realUser: o.realUser,
      authProtocol: o.authProtocol,
      saslMechanisms: o.saslMechanisms,
      serviceClass: o.serviceClass,
      connectTimeoutMs: o.connectTimeoutMs,
      pingIntervalMs: o.pingIntervalMs,
      pingEnabled: o.pingEnabled,
      maxIdleTimeMs: o.maxIdleTimeMs,
      maxResponseBytes: o.maxResponseBytes,
      onPing: () => this.#metrics.pingSent(),
      onClosed: (closed) => {
        const byProtocol = this.#connections.get(address);
        if (byProtocol?.get(protocol) !== closed) return;
        byProtocol.delete(protocol);
        if (byProtocol.size === 0) this.#connections.delete(address);
      },
    });
    let byProtocol = this.#connections.get(address);
    if (byProtocol === undefined)
      this.#connections.set(address, (byProtocol = new Map<string, Connection>()));
    byProtocol.set(protocol, connection);
    return connection;
  }
}

/**
 * Creates a {@link HadoopRpcClient}.
 *
 * @throws InvalidOptionError naming the option that is wrong
 */
export function createHadoopRpcClient(options: HadoopRpcClientOptions = {}): HadoopRpcClient {
  return new HadoopRpcClient(options);
}

function parseAddress(address: unknown): { host: string; port: number } {
  if (typeof address !== 'string') throw new HadoopRpcInvalidArgumentError('address', 'expected "host:port"');
  const m = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(address);
  const host = m?.[1] ?? m?.[2];
  const port = Number(m?.[3]);
  if (host === undefined || !(port >= 1 && port <= 65535) || (m?.[1] !== undefined && isIP(host) !== 6)) {
    throw new HadoopRpcInvalidArgumentError(
      'address',
      `expected "host:port", got ${JSON.stringify(address)}`,
    );
  }
  return { host, port };
}

function checkName(argument: string, value: unknown): void {
  if (typeof value !== 'string' || value.length === 0) {
    throw new HadoopRpcInvalidArgumentError(argument, 'expected a non-empty string');
  }
}

function checkCount(argument: string, value: unknown, max: number): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > max) {
    throw new HadoopRpcInvalidArgumentError(
      argument,
      `expected an integer from 0 to ${max}, got ${String(value)}`,
    );
  }
}
