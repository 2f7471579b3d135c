// A mini datanode's RATIS port: one gRPC server speaking Ratis's RaftClientProtocolService for
// every pipeline the datanode is a member of, as a real datanode's Ratis server serves all its
// Raft groups on one port. Each stream is handed to this datanode's member of the group its first
// request names (an embedded Raft peer of @fastpath/ratis-client/testing) and relayed both ways,
// failures and their trailers included.
import { Client, credentials, Metadata, type Server, ServerCredentials, status } from '@grpc/grpc-js';
import type { ClientDuplexStream, ServerDuplexStream, ServiceError } from '@grpc/grpc-js';
import protobuf from 'protobufjs/minimal.js';
import { rawBytes, rawMethod } from '../internal/grpc/raw-bytes.js';
import { serveRawGrpc } from './serve-raw-grpc.js';

const SERVICE = '/ratis.grpc.RaftClientProtocolService/';
const GROUP_MISMATCH = 'org.apache.ratis.protocol.exceptions.GroupMismatchException';

type Call = ServerDuplexStream<Buffer, Buffer>;

/** The group id (16 bytes, hex) a RaftClientRequestProto names: rpcRequest (1) → raftGroupId (3) → id (1). */
export function requestGroupId(request: Uint8Array): string | undefined {
  const field = (bytes: Uint8Array, wanted: number): Uint8Array | undefined => {
    const r = protobuf.Reader.create(bytes);
    while (r.pos < r.len) {
      const tag = r.uint32();
      if (tag >>> 3 === wanted && (tag & 7) === 2) return r.bytes();
      r.skipType(tag & 7);
    }
    return undefined;
  };
  try {
    const rpc = field(request, 1);
    const group = rpc && field(rpc, 3);
    const id = group && field(group, 1);
    return id ? Buffer.from(id).toString('hex') : undefined;
  } catch {
    return undefined;
  }
}

/** Where this datanode's member of a group listens (`host:port`), or undefined for a group it is not in. */
export type GroupRoute = (groupIdHex: string) => string | undefined;

export class MiniRatisPort {
  readonly #route: GroupRoute;
  readonly #clients = new Map<string, Client>();
  readonly #calls = new Set<Call>();
  #server: Server | undefined;
  #port = 0;

  readonly #credentials: ServerCredentials;

  /** `credentials`: what the port serves with (TLS or not); the relay to the groups is plaintext. */
  constructor(route: GroupRoute, credentials: ServerCredentials = ServerCredentials.createInsecure()) {
    this.#route = route;
    this.#credentials = credentials;
  }

  get port(): number {
    return this.#port;
  }

  get running(): boolean {
    return this.#server !== undefined;
  }

  /** Serves on `port` (0: a free one; a restart passes the old one, which the OM's pipelines name). */
  async start(port = this.#port): Promise<void> {
    if (this.#server) return;
    const { server, port: bound } = await serveRawGrpc(
      {
        ordered: rawMethod(`${SERVICE}ordered`, true, true),
        unordered: rawMethod(`${SERVICE}unordered`, true, true),
      },
      {
        ordered: (call: Call) => this.#relay(call, 'ordered'),
        unordered: (call: Call) => this.#relay(call, 'unordered'),
      },
      port,
      this.#credentials,
    );
    this.#port = bound;
    this.#server = server;
  }

  /** Stops at once: every stream is cut, as when a datanode dies. */
  stop(): void {
    const server = this.#server;
    this.#server = undefined;
    for (const call of this.#calls) call.destroy();
    this.#calls.clear();
    server?.forceShutdown();
    for (const c of this.#clients.values()) c.close();
    this.#clients.clear();
  }

  #relay(call: Call, method: 'ordered' | 'unordered'): void {
    this.#calls.add(call);
    call.on('close', () => this.#calls.delete(call));
    call.on('error', () => undefined);
    let upstream: ClientDuplexStream<Buffer, Buffer> | undefined;
    let ended = false;
    call.on('data', (request: Buffer) => {
      if (upstream) {
        upstream.write(request);
        return;
      }
      const group = requestGroupId(request);
      const target = group === undefined ? undefined : this.#route(group);
      if (target === undefined) {
        const trailers = new Metadata();
        trailers.set('exception-type', GROUP_MISMATCH);
        call.emit('error', {
          code: status.INTERNAL,
          details: `${GROUP_MISMATCH}: this datanode is in no group ${group ?? '(none named)'}`,
          metadata: trailers,
        });
        return;
      }
      let client = this.#clients.get(target);
      if (!client) {
        client = new Client(target, credentials.createInsecure(), {
          'grpc.max_receive_message_length': 64 * 1024 * 1024,
          'grpc.max_send_message_length': 64 * 1024 * 1024,
        });
        this.#clients.set(target, client);
      }
      const up = client.makeBidiStreamRequest(`${SERVICE}${method}`, rawBytes, rawBytes);
      upstream = up;
      up.on('data', (reply: Buffer) => {
        if (!call.destroyed) call.write(reply);
      });
      up.on('end', () => {
        if (!call.destroyed) call.end();
      });
      up.on('error', (err: ServiceError) => {
        if (call.destroyed) return;
        const failure = err.code === status.CANCELLED ? status.UNAVAILABLE : err.code;
        call.emit('error', { code: failure, details: err.details, metadata: err.metadata });
      });
      up.write(request);
      if (ended) up.end();
    });
    call.on('end', () => {
      ended = true;
      upstream?.end();
    });
    call.on('cancelled', () => upstream?.cancel());
  }
}
