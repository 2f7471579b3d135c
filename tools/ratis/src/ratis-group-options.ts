import { checkInteger, checkNonEmptyString, InvalidOptionError } from '@fastpath/core';

/** Options of {@link startRatisGroup}; every field has a default. */
export interface RatisGroupOptions {
  /** Peers in the group, one JVM each (1-7). */
  peers?: number;
  /** Java heap of each peer's JVM, MiB. */
  heapMb?: number;
  /**
   * Ratis's election timeout range (`raft.server.rpc.timeout.min`/`.max`), ms: a follower that
   * hears nothing from a leader for a random time in this range starts an election. Ratis's own
   * defaults are 150-300 ms; the fixture's are longer so that JVMs sharing a busy machine do not
   * elect for nothing, and short enough that a test sees a new leader within a couple of seconds.
   */
  electionTimeoutMinMs?: number;
  electionTimeoutMaxMs?: number;
  /** Bound on the peers' start (JVM start, port bound) until a leader is ready, ms. */
  startTimeoutMs?: number;
  /** Bound of `leaderId()`, `transferLeadership()` and a peer's restart, ms. */
  leaderTimeoutMs?: number;
  /** Fresh groups (new ports) tried when a port picked for a peer was taken before it bound it. */
  portRetries?: number;
  /**
   * Ratis configuration keys (`raft.*`) set on every peer, over {@link DEFAULT_RATIS_PROPERTIES};
   * e.g. `{ 'raft.server.write.byte-limit': '128MB' }`. The storage folder, the gRPC host and port
   * and the election timeouts are the fixture's own and cannot be set here.
   */
  properties?: Readonly<Record<string, string>>;
  /** Progress of a first jar resolution. Default: stderr. */
  onProgress?: (line: string) => void;
}

/**
 * Ratis settings for writes of up to a few MiB (Ozone's chunks are 4 MiB) in a 256 MiB heap:
 * room for one entry of up to 32 MiB in what a leader sends a follower (Ratis's default of 4 MB
 * would not hold a 4 MiB write with its header), log segments and their in-memory cache kept
 * small, and a log whose last entry was torn by a kill (`stopPeer` is SIGKILL) recovered by
 * dropping that entry, never acknowledged, instead of refusing to start.
 */
export const DEFAULT_RATIS_PROPERTIES: Readonly<Record<string, string>> = Object.freeze({
  'raft.server.log.appender.buffer.byte-limit': '33MB',
  // Ratis wants the log's write buffer at least 8 bytes larger than the appender's limit.
  'raft.server.log.write.buffer.size': '34MB',
  'raft.server.log.segment.size.max': '16MB',
  'raft.server.log.segment.cache.size.max': '64MB',
  'raft.server.log.queue.byte-limit': '32MB',
  'raft.server.log.corruption.policy': 'WARN_AND_RETURN',
});

export const DEFAULT_RATIS_GROUP_OPTIONS: Readonly<Required<Omit<RatisGroupOptions, 'onProgress'>>> =
  Object.freeze({
    peers: 3,
    heapMb: 256,
    electionTimeoutMinMs: 500,
    electionTimeoutMaxMs: 1_000,
    startTimeoutMs: 120_000,
    leaderTimeoutMs: 30_000,
    portRetries: 3,
    properties: DEFAULT_RATIS_PROPERTIES,
  });

export type ResolvedRatisGroupOptions = Readonly<Required<Omit<RatisGroupOptions, 'onProgress'>>>;

// Set by the launcher from the fixture's own options; a second value would contradict them.
const FIXTURE_KEYS = new Set([
  'raft.server.storage.dir',
  'raft.grpc.server.host',
  'raft.grpc.server.port',
  'raft.server.rpc.timeout.min',
  'raft.server.rpc.timeout.max',
]);

/** Checks every option before anything starts; throws `InvalidOptionError` naming the field. */
export function resolveRatisGroupOptions(options: RatisGroupOptions): ResolvedRatisGroupOptions {
  const d = DEFAULT_RATIS_GROUP_OPTIONS;
  const properties: Record<string, string> = { ...DEFAULT_RATIS_PROPERTIES };
  for (const [key, value] of Object.entries(options.properties ?? {})) {
    checkNonEmptyString('properties', key);
    if (typeof value !== 'string')
      throw new InvalidOptionError(`properties.${key}`, 'expected a string value');
    if (!key.startsWith('raft.'))
      throw new InvalidOptionError(`properties.${key}`, 'Ratis keys start with "raft."');
    if (FIXTURE_KEYS.has(key)) {
      throw new InvalidOptionError(`properties.${key}`, 'the fixture sets this key itself (see its options)');
    }
    if (/[\s=]/.test(key) || /[\r\n]/.test(value)) {
      throw new InvalidOptionError(
        `properties.${key}`,
        'keys cannot contain spaces or "=", values no line breaks',
      );
    }
    properties[key] = value;
  }
  const electionTimeoutMinMs = checkInteger(
    'electionTimeoutMinMs',
    options.electionTimeoutMinMs ?? d.electionTimeoutMinMs,
    50,
    60_000,
  );
  const electionTimeoutMaxMs = checkInteger(
    'electionTimeoutMaxMs',
    options.electionTimeoutMaxMs ?? Math.max(d.electionTimeoutMaxMs, electionTimeoutMinMs),
    electionTimeoutMinMs,
    120_000,
  );
  return Object.freeze({
    peers: checkInteger('peers', options.peers ?? d.peers, 1, 7),
    heapMb: checkInteger('heapMb', options.heapMb ?? d.heapMb, 64, 65_536),
    electionTimeoutMinMs,
    electionTimeoutMaxMs,
    startTimeoutMs: checkInteger('startTimeoutMs', options.startTimeoutMs ?? d.startTimeoutMs, 1),
    leaderTimeoutMs: checkInteger('leaderTimeoutMs', options.leaderTimeoutMs ?? d.leaderTimeoutMs, 1),
    portRetries: checkInteger('portRetries', options.portRetries ?? d.portRetries, 0, 10),
    properties: Object.freeze(properties),
  });
}
