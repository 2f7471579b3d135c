// A fault-injecting proxy in front of every member of a Raft group, real or embedded: a grpc-js
// server per member that forwards each `ordered`/`unordered` stream to the member, byte for byte,
// and on request drops a reply (the member served it, the client never hears), replaces one (a
// bad answer) or fails the client's streams. The client is given the proxies' addresses under the
// members' ids; a NotLeader reply names the member by id, so the client stays behind the proxy.
import * as grpc from '@grpc/grpc-js';
import { RAFT_CLIENT_PROTOCOL_SERVICE } from '@fastpath/ratis-client/testing';

type Call = grpc.ServerDuplexStream<Buffer, Buffer>;
const METHODS = ['ordered', 'unordered'] as const;

/** What to do with the next reply that passes on a stream of `method`. */
interface ReplyRule {
  method: 'ordered' | 'unordered';
  /** `undefined` drops the reply; a function replaces its bytes. */
  replace: ((reply: Buffer) => Buffer) | undefined;
}

export interface RaftFaultProxy {
  /** The proxies, one per member, under the members' ids. */
  readonly peers: ReadonlyArray<{ id: string; address: string }>;
  /** Drops the next reply on an `ordered` (default) or `unordered` stream. */
  dropNextReply(method?: 'ordered' | 'unordered'): void;
  /** Replaces the bytes of the next reply on a stream of `method`. */
  replaceNextReply(replace: (reply: Buffer) => Buffer, method?: 'ordered' | 'unordered'): void;
  /**
   * Holds every reply until `release()`: the members serve what the client sends, the client hears
   * nothing, so that its requests stay outstanding while a test changes the group. On release the
   * held replies go on, in order, to the streams that are still open.
   */
  holdReplies(): { release(): void };
  /** Fails every open client stream with INTERNAL (and cancels its upstream); returns how many. */
  failStreams(): number;
  /** Resolves once `count` requests have passed towards the members since the call. */
  requestsPassed(count: number): Promise<void>;
  close(): Promise<void>;
}

export async function startRaftFaultProxy(
  members: ReadonlyArray<{ id: string; address: string }>,
): Promise<RaftFaultProxy> {
  const rules: ReplyRule[] = [];
  const open = new Set<{ call: Call; upstream: grpc.ClientDuplexStream<Buffer, Buffer> }>();
  const servers: grpc.Server[] = [];
  const clients: grpc.Client[] = [];
  const peers: Array<{ id: string; address: string }> = [];
  let held: Array<() => void> | undefined;
  let passed = 0;
  const passWaiters = new Set<() => void>();

  for (const member of members) {
    const upstreamClient = new grpc.Client(member.address, grpc.credentials.createInsecure(), {
      'grpc.max_receive_message_length': 64 * 1024 * 1024,
      'grpc.max_send_message_length': 64 * 1024 * 1024,
      'grpc.initial_reconnect_backoff_ms': 100,
      'grpc.max_reconnect_backoff_ms': 500,
    });
    clients.push(upstreamClient);
    const server = new grpc.Server({ 'grpc.max_receive_message_length': 64 * 1024 * 1024 });
    const handlers: grpc.UntypedServiceImplementation = {};
    for (const method of METHODS) {
      handlers[method] = (call: Call) => {
        const definition = RAFT_CLIENT_PROTOCOL_SERVICE[method];
        const upstream = upstreamClient.makeBidiStreamRequest(
          definition.path,
          definition.requestSerialize,
          definition.responseDeserialize,
          call.metadata,
        );
        const entry = { call, upstream };
        open.add(entry);
        call.on('data', (bytes: Buffer) => {
          upstream.write(bytes);
          passed++;
          for (const w of passWaiters) w();
        });
        call.on('end', () => upstream.end());
        call.on('error', () => upstream.cancel());
        call.on('cancelled', () => upstream.cancel());
        const forward = (bytes: Buffer): void => {
          const i = rules.findIndex((r) => r.method === method);
          const rule = i < 0 ? undefined : rules.splice(i, 1)[0];
          if (rule && !rule.replace) return;
          if (open.has(entry) && !call.cancelled && !call.writableEnded) {
            call.write(rule?.replace ? rule.replace(bytes) : bytes);
          }
        };
        upstream.on('data', (bytes: Buffer) => {
          if (held) held.push(() => forward(bytes));
          else forward(bytes);
        });
        upstream.on('error', (error: grpc.ServiceError) => {
          if (!open.delete(entry)) return;
          if (!call.cancelled)
            call.emit('error', { code: error.code, details: error.details, metadata: error.metadata });
        });
        upstream.on('status', (status: grpc.StatusObject) => {
          if (status.code !== grpc.status.OK || !open.delete(entry)) return;
          if (!call.writableEnded) call.end();
        });
      };
    }
    server.addService(RAFT_CLIENT_PROTOCOL_SERVICE, handlers);
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) =>
        e ? reject(e) : resolve(p),
      ),
    );
    servers.push(server);
    peers.push({ id: member.id, address: `127.0.0.1:${port}` });
  }

  return {
    peers,
    dropNextReply: (method = 'ordered') => rules.push({ method, replace: undefined }),
    replaceNextReply: (replace, method = 'ordered') => rules.push({ method, replace }),
    holdReplies: () => {
      const queue: Array<() => void> = [];
      held = queue;
      return {
        release: () => {
          if (held === queue) held = undefined;
          for (const send of queue) send();
        },
      };
    },
    failStreams: () => {
      const entries = [...open];
      open.clear();
      for (const { call, upstream } of entries) {
        upstream.cancel();
        const metadata = new grpc.Metadata();
        metadata.set('exception-type', 'java.io.IOException');
        call.emit('error', {
          code: grpc.status.INTERNAL,
          details: 'stream failed by the fault proxy',
          metadata,
        });
      }
      return entries.length;
    },
    requestsPassed: (count) => {
      const target = passed + count;
      return new Promise<void>((resolve) => {
        const check = (): void => {
          if (passed >= target) {
            passWaiters.delete(check);
            resolve();
          }
        };
        passWaiters.add(check);
      });
    },
    close: async () => {
      for (const { upstream } of open) upstream.cancel();
      open.clear();
      for (const server of servers) server.forceShutdown();
      for (const client of clients) client.close();
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}
