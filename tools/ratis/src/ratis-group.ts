import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidOptionError } from '@fastpath/core';
import { delay, pickFreePorts } from '@fastpath/jvm-fixture';
import { spawnLineProtocolJvm, type JvmAnswer, type LineProtocolJvm } from './internal/line-protocol-jvm.js';
import {
  RatisFixtureStateError,
  RatisFixtureTimeoutError,
  RatisPeerCommandError,
  RatisJvmExitedError,
} from './ratis-fixture-errors.js';
import {
  resolveRatisGroupOptions,
  type RatisGroupOptions,
  type ResolvedRatisGroupOptions,
} from './ratis-group-options.js';
import { prepareRatisJars, type RatisJars } from './ratis-jars.js';

/** A member of the group: its Ratis peer id and its gRPC address (server, client and admin services). */
export interface RatisPeer {
  readonly id: string;
  /** `127.0.0.1:<port>`; the same across restarts. */
  readonly address: string;
}

/** `running`, `paused` (SIGSTOP: alive, answers nothing) or `stopped` (killed; its storage stays). */
export type RatisPeerState = 'running' | 'paused' | 'stopped';

/** What the fixture knows of one peer's JVM. */
export interface RatisPeerStatus {
  readonly id: string;
  readonly state: RatisPeerState;
  /** The JVM's pid, `undefined` while stopped. */
  readonly pid: number | undefined;
  /** The peer's Ratis logging (warnings and errors), kept across restarts. */
  readonly logFile: string;
}

/** A running Ratis group: one JVM per peer, each with the fixture's append-only log state machine. */
export interface RatisGroup extends AsyncDisposable {
  /** The Raft group id, a UUID string (its 16 bytes are the `raftGroupId` of client requests). */
  readonly groupId: string;
  readonly peers: readonly RatisPeer[];
  /** Apache Ratis's version, as the peers report it. */
  readonly ratisVersion: string;
  /** The fixture's temporary folder (every peer's storage and log); deleted by `stop()`. */
  readonly rootDir: string;
  /**
   * The id of the peer that is leader and ready to serve (the highest term among the running
   * peers that say so), waiting up to `leaderTimeoutMs` for an election to finish.
   */
  leaderId(): Promise<string>;
  /** Kills the peer's JVM (SIGKILL, a crash: nothing is flushed that was not); its storage stays. */
  stopPeer(id: string): Promise<void>;
  /** Starts a stopped peer again (killing it first if it runs) on the same storage and port. */
  restartPeer(id: string): Promise<void>;
  /** Freezes the peer's JVM (SIGSTOP): connections stay open, nothing is answered. */
  pausePeer(id: string): Promise<void>;
  /** Lets a paused peer run again (SIGCONT). */
  resumePeer(id: string): Promise<void>;
  /** Asks Ratis to hand the leadership to this peer; resolves once it is the ready leader. */
  transferLeadership(id: string): Promise<void>;
  /** Where one peer stands now. */
  peerStatus(id: string): RatisPeerStatus;
  /** Kills every peer and deletes `rootDir`. Idempotent. */
  stop(): Promise<void>;
  readonly stopped: boolean;
}

interface PeerSlot {
  readonly peer: RatisPeer;
  readonly storageDir: string;
  readonly logFile: string;
  state: RatisPeerState;
  process: LineProtocolJvm | undefined;
}

interface InfoAnswer extends JvmAnswer {
  readonly role: string;
  readonly term: number;
  readonly leaderId: string | null;
  readonly leaderReady: boolean;
}

/** Bound of one `info` answer from a running peer; a slow one is skipped for that poll. */
const INFO_TIMEOUT_MS = 5_000;

/**
 * Starts a Ratis group of real Apache Ratis peers (one JVM each, gRPC on free loopback ports),
 * resolving the jars and compiling the launcher on first use, and resolves once a leader is ready.
 * No JVM outlives this process (an exit hook plus jvm-fixture's watchdog).
 *
 * @example
 * ```ts
 * await using group = await startRatisGroup();
 * const leader = await group.leaderId();
 * await group.stopPeer(leader); // a crash: another peer is elected
 * await group.restartPeer(leader);
 * ```
 */
export async function startRatisGroup(options: RatisGroupOptions = {}): Promise<RatisGroup> {
  const resolved = resolveRatisGroupOptions(options);
  const jars = await prepareRatisJars(
    options.onProgress === undefined ? {} : { onProgress: options.onProgress },
  );
  for (let attempt = 0; ; attempt++) {
    try {
      return await launchGroup(resolved, jars);
    } catch (err) {
      // A port is free when picked and taken by another process before the peer binds it.
      const clash =
        err instanceof RatisJvmExitedError && /BindException|Address already in use/.test(err.message);
      if (!clash || attempt >= resolved.portRetries) throw err;
    }
  }
}

function peerArgs(
  resolved: ResolvedRatisGroupOptions,
  jars: RatisJars,
  groupId: string,
  slots: readonly PeerSlot[],
  slot: PeerSlot,
  startup: '--format' | '--recover',
): string[] {
  return [
    `-Xmx${resolved.heapMb}m`,
    '-XX:+UseSerialGC',
    // Ratis logs through slf4j-simple to stderr, which goes to the peer's log file.
    '-Dorg.slf4j.simpleLogger.defaultLogLevel=warn',
    '-Dorg.slf4j.simpleLogger.showDateTime=true',
    '-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS',
    '-cp',
    jars.classpath,
    'fastpath.ratisfixture.RatisPeerLauncher',
    '--id',
    slot.peer.id,
    '--group',
    groupId,
    ...slots.flatMap((s) => ['--peer', `${s.peer.id}=${s.peer.address}`]),
    '--storage',
    slot.storageDir,
    startup,
    '--election-min-ms',
    String(resolved.electionTimeoutMinMs),
    '--election-max-ms',
    String(resolved.electionTimeoutMaxMs),
    ...Object.entries(resolved.properties).flatMap(([key, value]) => ['--prop', `${key}=${value}`]),
  ];
}

/** Resolves with `promise`, or rejects with a timeout error once `timeoutMs` passed. */
async function bounded<T>(promise: Promise<T>, timeoutMs: number, waitedFor: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new RatisFixtureTimeoutError(waitedFor, timeoutMs)), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

async function launchGroup(resolved: ResolvedRatisGroupOptions, jars: RatisJars): Promise<RatisGroup> {
  const rootDir = await mkdtemp(join(tmpdir(), 'fastpath-ratis-'));
  const groupId = randomUUID();
  const ports = await pickFreePorts(resolved.peers);
  const slots: PeerSlot[] = ports.map((port, i) => {
    const id = `peer-${i + 1}`;
    return {
      peer: Object.freeze({ id, address: `127.0.0.1:${port}` }),
      storageDir: join(rootDir, id),
      logFile: join(rootDir, `${id}.log`),
      state: 'stopped',
      process: undefined,
    };
  });
  const byId = new Map(slots.map((s) => [s.peer.id, s]));
  let stopped = false;
  let stopping: Promise<void> | undefined;
  let ratisVersion = 'unknown';

  const startPeer = async (slot: PeerSlot, startup: '--format' | '--recover'): Promise<void> => {
    await mkdir(slot.storageDir, { recursive: true });
    const process = spawnLineProtocolJvm(
      `Ratis peer ${slot.peer.id}`,
      jars.javaPath,
      peerArgs(resolved, jars, groupId, slots, slot, startup),
      {
        cwd: rootDir,
        logFile: slot.logFile,
        cleanupDir: rootDir,
      },
    );
    slot.process = process;
    slot.state = 'running';
    try {
      const ready = await bounded(process.ready, resolved.startTimeoutMs, `peer ${slot.peer.id} to serve`);
      ratisVersion = String(ready['ratisVersion']);
    } catch (err) {
      await killPeer(slot);
      throw err;
    }
  };

  const killPeer = async (slot: PeerSlot): Promise<void> => {
    const process = slot.process;
    slot.state = 'stopped';
    slot.process = undefined;
    await process?.kill();
  };

  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      stopped = true;
      try {
        await Promise.all(slots.map((slot) => killPeer(slot)));
      } finally {
        await rm(rootDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
      }
    })();
    return stopping;
  };

  const slotOf = (id: string, call: string): PeerSlot => {
    if (stopped) throw new RatisFixtureStateError(`${call} after stop()`);
    const slot = typeof id === 'string' ? byId.get(id) : undefined;
    if (slot === undefined) {
      throw new InvalidOptionError(
        'id',
        `no peer ${String(id)} in the group (${[...byId.keys()].join(', ')})`,
      );
    }
    return slot;
  };

  // Signals are delivered asynchronously: a pause or resume resolves once the kernel shows it.
  const untilProcessState = async (
    pid: number,
    wanted: (state: string) => boolean,
    what: string,
  ): Promise<void> => {
    const deadline = Date.now() + resolved.leaderTimeoutMs;
    for (;;) {
      const state = await processState(pid);
      if (state === undefined) throw new RatisFixtureStateError(`waiting for ${what}: the JVM exited`);
      if (wanted(state)) return;
      if (Date.now() >= deadline) throw new RatisFixtureTimeoutError(what, resolved.leaderTimeoutMs);
      await delay(10);
    }
  };

  /** One poll of the running peers: the ready leader with the highest term, if any. */
  const readyLeader = async (): Promise<string | undefined> => {
    const running = slots.filter((s) => s.state === 'running' && s.process !== undefined);
    const answers = await Promise.all(
      running.map((s) =>
        (s.process as LineProtocolJvm).command(INFO_TIMEOUT_MS, 'info').catch(() => undefined),
      ),
    );
    let best: { id: string; term: number } | undefined;
    answers.forEach((answer, i) => {
      const info = answer as InfoAnswer | undefined;
      if (info?.ok !== true || !info.leaderReady) return;
      if (best === undefined || info.term > best.term)
        best = { id: (running[i] as PeerSlot).peer.id, term: info.term };
    });
    return best?.id;
  };

  const waitForLeader = async (timeoutMs: number, wanted?: string): Promise<string> => {
    const deadline = Date.now() + timeoutMs;
    let last: string | undefined;
    for (;;) {
      if (stopped) throw new RatisFixtureStateError('leaderId after stop()');
      last = await readyLeader();
      if (last !== undefined && (wanted === undefined || last === wanted)) return last;
      if (Date.now() >= deadline) {
        const states = slots.map((s) => `${s.peer.id} ${s.state}`).join(', ');
        throw new RatisFixtureTimeoutError(
          wanted === undefined ? 'a ready leader' : `${wanted} to be the ready leader`,
          timeoutMs,
          `${last === undefined ? 'no ready leader' : `the leader is ${last}`} (${states})`,
        );
      }
      await delay(Math.min(100, Math.max(0, deadline - Date.now())));
    }
  };

  try {
    await Promise.all(slots.map((slot) => startPeer(slot, '--format')));
    await waitForLeader(resolved.startTimeoutMs);
  } catch (err) {
    await stop();
    throw err;
  }

  return {
    groupId,
    peers: Object.freeze(slots.map((s) => s.peer)),
    get ratisVersion() {
      return ratisVersion;
    },
    rootDir,
    get stopped() {
      return stopped;
    },
    leaderId() {
      if (stopped) return Promise.reject(new RatisFixtureStateError('leaderId after stop()'));
      return waitForLeader(resolved.leaderTimeoutMs);
    },
    async stopPeer(id) {
      await killPeer(slotOf(id, 'stopPeer'));
    },
    async restartPeer(id) {
      const slot = slotOf(id, 'restartPeer');
      await killPeer(slot);
      await startPeer(slot, '--recover');
    },
    async pausePeer(id) {
      const slot = slotOf(id, 'pausePeer');
      if (slot.state === 'paused') return;
      if (slot.process === undefined)
        throw new RatisFixtureStateError(`pausePeer(${id}): the peer is stopped`);
      slot.process.signal('SIGSTOP');
      slot.state = 'paused';
      await untilProcessState(slot.process.pid, (s) => s === 'T', `peer ${id} to stop (SIGSTOP)`);
    },
    async resumePeer(id) {
      const slot = slotOf(id, 'resumePeer');
      if (slot.state === 'running') return;
      if (slot.process === undefined)
        throw new RatisFixtureStateError(`resumePeer(${id}): the peer is stopped`);
      slot.process.signal('SIGCONT');
      slot.state = 'running';
      await untilProcessState(slot.process.pid, (s) => s !== 'T', `peer ${id} to run again (SIGCONT)`);
    },
    async transferLeadership(id) {
      const slot = slotOf(id, 'transferLeadership');
      if (slot.state !== 'running' || slot.process === undefined) {
        throw new RatisFixtureStateError(`transferLeadership(${id}): the peer is ${slot.state}`);
      }
      const started = Date.now();
      // The target's own JVM sends Ratis's admin request; Ratis waits for the target's log to
      // catch up before the leader steps down.
      const answer = await slot.process.command(
        resolved.leaderTimeoutMs + INFO_TIMEOUT_MS,
        'transfer',
        id,
        String(resolved.leaderTimeoutMs),
      );
      if (!answer.ok) throw new RatisPeerCommandError(`transferLeadership(${id})`, String(answer.message));
      await waitForLeader(Math.max(1, resolved.leaderTimeoutMs - (Date.now() - started)), id);
    },
    peerStatus(id) {
      const slot = byId.get(id);
      if (slot === undefined) throw new InvalidOptionError('id', `no peer ${String(id)} in the group`);
      return { id, state: slot.state, pid: slot.process?.pid, logFile: slot.logFile };
    },
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

/** The state letter of /proc/<pid>/stat (`R`, `S`, `T` for stopped, `Z`, …), or `undefined` once gone. */
async function processState(pid: number): Promise<string | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: the state follows the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return undefined;
  }
}
