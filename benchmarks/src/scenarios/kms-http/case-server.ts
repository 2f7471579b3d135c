import type { connectZooKeeper } from '@fastpath/zookeeper-fixture';
import type { EventLoopWindow } from './event-loop-probe.js';

/** An admin connection to the case's ZooKeeper. */
export type ZooKeeperAdmin = Awaited<ReturnType<typeof connectZooKeeper>>;

/** Server-side figures of one measured window; null where the server does not report one. */
export interface ServerFigures {
  /** The busiest server process's event-loop delay p99 beyond the probe's 1 ms resolution. */
  eventLoopDelayP99Ms: number | null;
  /** The event-loop probe's figures over the measured window; null for a server without one (a JVM). */
  eventLoop: EventLoopWindow | null;
  gcSeconds: number | null;
  stageMeansMs: Record<string, number | null>;
  persistBatchMean: number | null;
  zookeeperOpMeanMs: number | null;
}

/** The server of one case, started on the case's fresh ZooKeeper: fastpath-kms or Hadoop's KMS. */
export interface CaseServer extends AsyncDisposable {
  /** `http://127.0.0.1:<port>`; the REST API is under `/kms/v1`. */
  readonly origin: string;
  /** The process whose CPU the case reads (with its descendants). */
  readonly pid: number;
  /** Where the server's event-loop probe writes (a Node server); null for a JVM, which has none. */
  readonly eventLoopProbeDir: string | null;
  /** Where the server's profile probe writes (a fastpath-kms started with it); else null. */
  readonly profileProbeDir: string | null;
  /**
   * Load at the case's mix before the case's own warm-up and measured window, for a server that
   * compiles its hot paths while it runs (a JVM); 0 for none.
   */
  readonly serverWarmupMs: number;
  /** What the case JSON records about the server (versions, start time, settings). */
  readonly details: Record<string, unknown>;
  /** Checks that the server is the version the case measures; resolves with the checks passed. */
  identify(admin: ZooKeeperAdmin): Promise<string[]>;
  /** Starts reading server-side figures; `finish` (after the window) returns those of the window. */
  measure(): Promise<{ finish(): Promise<ServerFigures> }>;
  /** Checks after the measured window; resolves with the checks passed. */
  afterwards(admin: ZooKeeperAdmin): Promise<string[]>;
}

/**
 * The figures of a fleet's window from its members': the busiest event loop, GC summed (null if
 * any member has none), and the stage means, batch and ZooKeeper figures of the first member that
 * reports them (every fastpath member runs the same version). One member's figures unchanged.
 */
export function combineServerFigures(members: readonly ServerFigures[]): ServerFigures {
  if (members.length === 1) return members[0] as ServerFigures;
  const first = <T>(pick: (f: ServerFigures) => T | null): T | null =>
    members.map(pick).find((x) => x !== null) ?? null;
  const delays = members.map((f) => f.eventLoopDelayP99Ms).filter((x): x is number => x !== null);
  const gc = members.map((f) => f.gcSeconds);
  const stages = members.find((f) => Object.values(f.stageMeansMs).some((x) => x !== null));
  return {
    eventLoopDelayP99Ms: delays.length > 0 ? Math.max(...delays) : null,
    eventLoop: first((f) => f.eventLoop),
    gcSeconds: gc.every((x): x is number => x !== null) ? gc.reduce((a, b) => a + b, 0) : null,
    stageMeansMs: (stages ?? members[0])?.stageMeansMs ?? {},
    persistBatchMean: first((f) => f.persistBatchMean),
    zookeeperOpMeanMs: first((f) => f.zookeeperOpMeanMs),
  };
}
