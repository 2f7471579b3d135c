import { checkInteger, checkNonEmptyString, InvalidOptionError, type MetricsRegistry } from '@fastpath/core';
import type { GrpcTlsOptions } from './grpc-framing.js';
import { uuidToBytes } from './raft-ids.js';

/** One member of a Raft group: its id (Ratis's `RaftPeerId`, a string) and its client address. */
export interface RaftPeer {
  /** The peer id, e.g. a datanode's UUID string; on the wire as its UTF-8 bytes. */
  id: string;
  /** `host:port` of the peer's client (gRPC) service. */
  address: string;
  /**
   * `host:port` of the peer's DataStream server (an Ozone datanode's `RATIS_DATASTREAM` port), for
   * {@link RaftClient.stream}. Default: none (the peer cannot be a stream's primary).
   */
  dataStreamAddress?: string;
}

/**
 * TLS to the group's members (Ratis's client `GrpcTlsConfig` without a key: a member proves who it
 * is with its certificate, the client with what it sends, as Ozone's datanodes ask of clients):
 * `ca`, the PEM certificates the members' certificates must chain to, and `serverNameOverride`,
 * the name each member's certificate is checked against when it is not the host of its address.
 * The TLS options of every gRPC session of the package's own.
 */
export type RaftClientTlsOptions = GrpcTlsOptions;

/** The levels a write can wait for and a watch can ask for (Ratis's `ReplicationLevel`). */
export type ReplicationLevel = 'MAJORITY' | 'ALL' | 'MAJORITY_COMMITTED' | 'ALL_COMMITTED';

/** Options of {@link createRaftClient}. Defaults are Ozone's settings where Ozone has one. */
export interface RaftClientOptions {
  /** The group's id, a UUID (for an Ozone pipeline: the pipeline id). Required. */
  groupId: string;
  /** The group's members. Required, at least one. */
  peers: readonly RaftPeer[];
  /** The member to send to first. Default: the first of `peers`. */
  leaderId?: string;
  /** This client's id, a UUID other than all zeros, fixed for the client's life. Default: a random UUID. */
  clientId?: string;
  /**
   * Writes and reads in flight at once; more wait in order. Watches are not counted: Ratis sends
   * them outside this limit, and a pending watch would otherwise hold back the writes after it.
   * Default: 32 (Ozone's `hdds.ratis.raft.client.async.outstanding-requests.max`).
   */
  maxOutstandingRequests?: number;
  /**
   * How long one attempt of a write or read waits for its reply before the member is left for the
   * next one and every outstanding request re-sent on a new stream, in ms. Default: 60 000 (Ozone's
   * `hdds.ratis.raft.client.rpc.request.timeout`).
   */
  rpcRequestTimeoutMs?: number;
  /**
   * How long one attempt of a watch waits for its reply, in ms. Default: 180 000 (Ozone's
   * `hdds.ratis.raft.client.rpc.watch.request.timeout`).
   */
  rpcWatchRequestTimeoutMs?: number;
  /**
   * How long a write may take through every re-send and leader change, in ms. Default: 300 000
   * (Ozone's `hdds.ratis.client.request.write.timeout`).
   */
  writeTimeoutMs?: number;
  /** The same bound for a read-only query, in ms. Default: 300 000 (the write timeout). */
  readTimeoutMs?: number;
  /**
   * How long a watch may take through every re-send, in ms. Default: 180 000 (Ozone's
   * `hdds.ratis.client.request.watch.timeout`).
   */
  watchTimeoutMs?: number;
  /**
   * Pause before re-sending after `LeaderNotReady`, a leader stepping down, a failed stream, or a
   * round through every member without an answer, in ms. Default: 100.
   */
  retryPauseMs?: number;
  /** Largest message sent or received, in bytes. Default: 33 554 432 (32 MiB, Ratis's server limit in Ozone). */
  maxMessageBytes?: number;
  /** Where metrics go. Default: a private registry, readable as `client.metrics`. */
  metrics?: MetricsRegistry;
  /** This client's name in metric labels. Default: `'ratis-client'`. */
  name?: string;
  /** TLS to every member, on its gRPC and its DataStream ports. Default: none (plaintext, Ratis's default). */
  tls?: RaftClientTlsOptions;
  /**
   * Packets of {@link RaftClient.stream} in flight at once, across every stream of the client; a
   * write beyond waits for room. Default: 100 (Ratis's `raft.client.data-stream.outstanding-requests.max`);
   * at least 2, as Ratis asks.
   */
  dataStreamOutstandingRequests?: number;
  /**
   * How long one packet of a stream waits for its reply once written, in ms; twice as long for the
   * packet that closes the stream. The stream fails with `ERR_RATIS_DATASTREAM` when it passes.
   * Default: 10 000 (Ratis's `raft.client.data-stream.request.timeout`).
   */
  dataStreamRequestTimeoutMs?: number;
  /**
   * Whose HTTP/2 session carries the gRPC streams to the members: Node's `http2` module
   * (`'http2'`) or `@fastpath/grpc-http2`'s, HTTP/2 spoken by fastpath on a socket (`'socket'`).
   * Both send a message's pieces without copying them. Default: `'http2'`.
   */
  transport?: RaftGrpcTransport;
}

/** The HTTP/2 sessions {@link RaftClientOptions.transport} names. */
export const RAFT_GRPC_TRANSPORTS = ['http2', 'socket'] as const;
/** One of {@link RAFT_GRPC_TRANSPORTS}: Node's `http2` module, or `@fastpath/grpc-http2`'s socket session. */
export type RaftGrpcTransport = (typeof RAFT_GRPC_TRANSPORTS)[number];

/** The defaults of every optional field of {@link RaftClientOptions}. */
export const DEFAULT_RAFT_CLIENT_OPTIONS = Object.freeze({
  /** 32 requests in flight, as Ozone's `hdds.ratis.raft.client.async.outstanding-requests.max`. */
  maxOutstandingRequests: 32,
  /** 60 000 ms per write or read attempt, as Ozone's `hdds.ratis.raft.client.rpc.request.timeout`. */
  rpcRequestTimeoutMs: 60_000,
  /** 180 000 ms per watch attempt, as Ozone's `hdds.ratis.raft.client.rpc.watch.request.timeout`. */
  rpcWatchRequestTimeoutMs: 180_000,
  /** 300 000 ms for a whole write, as Ozone's `hdds.ratis.client.request.write.timeout`. */
  writeTimeoutMs: 300_000,
  /** 300 000 ms for a whole read, the same as the write timeout. */
  readTimeoutMs: 300_000,
  /** 180 000 ms for a whole watch, as Ozone's `hdds.ratis.client.request.watch.timeout`. */
  watchTimeoutMs: 180_000,
  /** 100 ms pause before a re-send after `LeaderNotReady`, a failed stream or an unanswered round. */
  retryPauseMs: 100,
  /** 33 554 432 bytes (32 MiB), the message limit of Ozone's Ratis servers. */
  maxMessageBytes: 32 * 1024 * 1024,
  /** `'ratis-client'`, the client's `client` label in metrics. */
  name: 'ratis-client',
  /** 100 DataStream packets in flight, as Ratis's `raft.client.data-stream.outstanding-requests.max`. */
  dataStreamOutstandingRequests: 100,
  /** 10 000 ms for a DataStream packet's reply, as Ratis's `raft.client.data-stream.request.timeout`. */
  dataStreamRequestTimeoutMs: 10_000,
  /** Node's `http2` module. */
  transport: 'http2',
});

/** Options with every default filled in and every value checked. */
export type ResolvedRaftClientOptions = Required<
  Omit<RaftClientOptions, 'metrics' | 'leaderId' | 'clientId' | 'tls'>
> & {
  leaderId: string;
  clientId: string;
  metrics: MetricsRegistry | undefined;
  tls: RaftClientTlsOptions | undefined;
};

const ALL_ZERO_UUID = '00000000-0000-0000-0000-000000000000';

/** Fills in the defaults and checks every field, naming the one that is wrong. */
export function resolveRaftClientOptions(
  options: RaftClientOptions,
  randomId: () => string,
): ResolvedRaftClientOptions {
  const o = { ...DEFAULT_RAFT_CLIENT_OPTIONS, ...withoutUndefined(options) };
  checkUuid('groupId', o.groupId);
  const peerList: unknown = o.peers;
  if (!Array.isArray(peerList) || peerList.length === 0) {
    throw new InvalidOptionError('peers', 'expected at least one peer');
  }
  const ids = new Set<string>();
  o.peers.forEach((p, i) => {
    checkNonEmptyString(`peers[${i}].id`, p?.id);
    checkNonEmptyString(`peers[${i}].address`, p.address);
    if (p.dataStreamAddress !== undefined)
      checkNonEmptyString(`peers[${i}].dataStreamAddress`, p.dataStreamAddress);
    if (ids.has(p.id)) throw new InvalidOptionError(`peers[${i}].id`, `peer "${p.id}" is listed twice`);
    ids.add(p.id);
  });
  const leaderId = o.leaderId ?? (o.peers[0] as RaftPeer).id;
  if (!ids.has(leaderId)) throw new InvalidOptionError('leaderId', `"${leaderId}" is not one of the peers`);
  const clientId = o.clientId ?? randomId();
  checkUuid('clientId', clientId);
  if (clientId === ALL_ZERO_UUID) throw new InvalidOptionError('clientId', 'the all-zero UUID is reserved');
  checkInteger('maxOutstandingRequests', o.maxOutstandingRequests, 1, 1_000_000);
  for (const f of [
    'rpcRequestTimeoutMs',
    'rpcWatchRequestTimeoutMs',
    'writeTimeoutMs',
    'readTimeoutMs',
    'watchTimeoutMs',
  ] as const) {
    checkInteger(f, o[f], 1, 2 ** 31 - 1);
  }
  checkInteger('retryPauseMs', o.retryPauseMs, 0, 2 ** 31 - 1);
  checkInteger('maxMessageBytes', o.maxMessageBytes, 1024, 2 ** 31 - 1);
  checkInteger('dataStreamOutstandingRequests', o.dataStreamOutstandingRequests, 2, 1_000_000);
  checkInteger('dataStreamRequestTimeoutMs', o.dataStreamRequestTimeoutMs, 1, 2 ** 30);
  checkNonEmptyString('name', o.name);
  if (!RAFT_GRPC_TRANSPORTS.includes(o.transport))
    throw new InvalidOptionError('transport', `expected one of ${RAFT_GRPC_TRANSPORTS.join(', ')}`);
  const tls = options.tls === undefined ? undefined : checkTls(options.tls);
  return {
    ...o,
    peers: o.peers.map((p) =>
      p.dataStreamAddress === undefined
        ? { id: p.id, address: p.address }
        : { id: p.id, address: p.address, dataStreamAddress: p.dataStreamAddress },
    ),
    leaderId,
    clientId: clientId.toLowerCase(),
    metrics: options.metrics,
    tls,
  };
}

function checkTls(tls: RaftClientTlsOptions): RaftClientTlsOptions {
  const cas: unknown[] = Array.isArray(tls?.ca) ? (tls.ca as unknown[]) : [tls?.ca];
  if (cas.length === 0 || !cas.every((c) => (typeof c === 'string' || Buffer.isBuffer(c)) && c.length > 0)) {
    throw new InvalidOptionError(
      'tls.ca',
      'expected PEM certificates (a string, a Buffer, or a list of them)',
    );
  }
  if (tls.serverNameOverride !== undefined)
    checkNonEmptyString('tls.serverNameOverride', tls.serverNameOverride);
  return {
    ca: typeof tls.ca === 'string' || Buffer.isBuffer(tls.ca) ? tls.ca : [...tls.ca],
    ...(tls.serverNameOverride === undefined ? {} : { serverNameOverride: tls.serverNameOverride }),
  };
}

function checkUuid(option: string, value: unknown): void {
  checkNonEmptyString(option, value);
  try {
    uuidToBytes(value as string);
  } catch {
    throw new InvalidOptionError(option, `expected a UUID, got ${JSON.stringify(value)}`);
  }
}

function withoutUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
