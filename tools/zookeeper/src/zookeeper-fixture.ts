import type { ZooKeeperMode } from './four-letter-word.js';
import type { ZooKeeperInstallation } from './locate-zookeeper.js';

/** `running`, `paused` (SIGSTOP) or `stopped` (no process). */
export type ZooKeeperNodeState = 'running' | 'paused' | 'stopped';

/** One server of a fixture. The fields reflect the current state (`pid` changes on restart). */
export interface ZooKeeperNodeInfo {
  /** 0-based position in `fixture.nodes`; the argument of `stop(i)`, `kill(i)`, ... */
  readonly index: number;
  /** The server id (`myid`, `server.N`): `index + 1`. */
  readonly myid: number;
  /** Client port on 127.0.0.1. */
  readonly clientPort: number;
  /** Quorum (follower-to-leader) port; `undefined` for a standalone server. */
  readonly peerPort: number | undefined;
  /** Leader-election port; `undefined` for a standalone server. */
  readonly electionPort: number | undefined;
  /** `127.0.0.1:<clientPort>`: a connect string naming this server only. */
  readonly connectString: string;
  /** Process id of the running (or paused) JVM; `undefined` when stopped. */
  readonly pid: number | undefined;
  readonly state: ZooKeeperNodeState;
  /** ZooKeeper's `dataDir` (holds `myid`, `version-2/`). Deleted by `close()`. */
  readonly dataDir: string;
  /** This server's `zoo.cfg`. */
  readonly configFile: string;
  /** The server's stdout and stderr (its log), appended across restarts. */
  readonly logFile: string;
}

/** Options of {@link ZooKeeperFixture.restart}. */
export interface RestartOptions {
  /** Wait until the server reports a `Mode:` (it serves, or rejoined its ensemble). Default `true`. */
  waitForMode?: boolean;
}

/** Options of {@link ZooKeeperFixture.leader}. */
export interface LeaderOptions {
  /** Bound for a live server to report `Mode: leader` (or `standalone`), in milliseconds. Default: `startTimeoutMs`. */
  timeoutMs?: number;
}

/**
 * A running ZooKeeper (standalone or ensemble) on loopback ports with fresh data dirs. Dispose of
 * it with `close()` or `await using`: that kills every server and deletes the data dirs.
 *
 * @example
 * ```ts
 * await using zk = await startZooKeeper({ nodes: 3 });
 * const client = await connectZooKeeper(zk.connectString);
 * await zk.kill(await zk.leader()); // the ensemble elects a new leader
 * ```
 */
export interface ZooKeeperFixture extends AsyncDisposable {
  /** Comma-separated `127.0.0.1:<port>` of every server, for a client. */
  readonly connectString: string;
  /** The servers, in `myid` order. */
  readonly nodes: readonly ZooKeeperNodeInfo[];
  /** The temporary directory holding every server's data dir, config and log. */
  readonly rootDir: string;
  /** The ZooKeeper and Java that run the servers. */
  readonly installation: ZooKeeperInstallation;
  /** Whether `close()` was called. */
  readonly closed: boolean;
  /** Sends a four-letter word (`ruok`, `srvr`, `stat`, `mntr`, `conf`, `cons`) to node `node` (default 0). */
  fourLetter(word: string, node?: number): Promise<string>;
  /** `mntr` of node `node` (default 0), parsed: numeric values are numbers. */
  mntr(node?: number): Promise<Record<string, number | string>>;
  /** The `Mode:` node `node` (default 0) reports, or `undefined` while it does not serve. */
  mode(node?: number): Promise<ZooKeeperMode | undefined>;
  /**
   * Index of the node that reports `Mode: leader` (0 for a standalone server), waiting (bounded)
   * for an election to finish. Stopped and paused nodes are not asked.
   */
  leader(options?: LeaderOptions): Promise<number>;
  /** SIGTERM, then wait for the exit (SIGKILL after `stopTimeoutMs`). A paused node is continued first. */
  stop(node: number): Promise<void>;
  /** SIGKILL, and wait for the exit. */
  kill(node: number): Promise<void>;
  /** SIGSTOP: the server keeps its sockets but answers nothing. */
  pause(node: number): Promise<void>;
  /** SIGCONT after `pause`. */
  resume(node: number): Promise<void>;
  /**
   * Starts the node again on the same ports and data dir (stopping it first if it runs), and waits
   * for it to report a `Mode:` (for an ensemble member: to rejoin).
   */
  restart(node: number, options?: RestartOptions): Promise<void>;
  /** Kills every server and deletes `rootDir`. Idempotent. */
  close(): Promise<void>;
}
