import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { delay, logTail, spawnServer, type ProcessExit, type ServerProcess } from '@fastpath/jvm-fixture';
import { fourLetterWord, parseMode, type ZooKeeperMode } from '../four-letter-word.js';
import type { ZooKeeperInstallation } from '../locate-zookeeper.js';
import type { ZooKeeperNodeInfo, ZooKeeperNodeState } from '../zookeeper-fixture.js';
import type { ResolvedFixtureOptions } from '../zookeeper-fixture-options.js';
import { ZooKeeperExitedError, ZooKeeperWaitTimeoutError } from '../zookeeper-errors.js';

const STANDALONE_MAIN = 'org.apache.zookeeper.server.ZooKeeperServerMain';
const QUORUM_MAIN = 'org.apache.zookeeper.server.quorum.QuorumPeerMain';
const POLL_INTERVAL_MS = 100;

/** The ports of one server; peer and election ports only in an ensemble. */
export interface NodePorts {
  readonly clientPort: number;
  readonly peerPort: number | undefined;
  readonly electionPort: number | undefined;
}

/** A server's process failed to bind one of its ports: another process took it. */
export class PortClash extends Error {
  constructor(readonly node: number) {
    super(`node ${node}: a port was taken by another process`);
  }
}

/** One ZooKeeper server: its files, ports and (when running) its JVM. */
export class ZooKeeperNode implements ZooKeeperNodeInfo {
  readonly index: number;
  readonly myid: number;
  readonly nodeDir: string;
  readonly dataDir: string;
  readonly configFile: string;
  readonly logFile: string;
  /** The JAAS file of a Kerberized server (its `Server` section). */
  readonly jaasFile: string;
  #ports: NodePorts = { clientPort: 0, peerPort: undefined, electionPort: undefined };
  #process: ServerProcess | undefined;
  #paused = false;
  // Operations on one node run one after another (stop during restart would be ambiguous).
  #queue: Promise<unknown> = Promise.resolve();

  constructor(index: number, rootDir: string) {
    this.index = index;
    this.myid = index + 1;
    this.nodeDir = join(rootDir, `node-${this.myid}`);
    this.dataDir = join(this.nodeDir, 'data');
    this.configFile = join(this.nodeDir, 'zoo.cfg');
    this.logFile = join(this.nodeDir, 'zookeeper.log');
    this.jaasFile = join(this.nodeDir, 'jaas.conf');
  }

  get clientPort(): number {
    return this.#ports.clientPort;
  }
  get peerPort(): number | undefined {
    return this.#ports.peerPort;
  }
  get electionPort(): number | undefined {
    return this.#ports.electionPort;
  }
  get connectString(): string {
    return `127.0.0.1:${this.clientPort}`;
  }
  get pid(): number | undefined {
    return this.#process === undefined || this.#process.exit() !== undefined ? undefined : this.#process.pid;
  }
  get state(): ZooKeeperNodeState {
    if (this.pid === undefined) return 'stopped';
    return this.#paused ? 'paused' : 'running';
  }

  /** Runs `operation` after every operation queued before it on this node. */
  serialize<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.#queue.then(operation, operation);
    this.#queue = result.catch(() => undefined);
    return result;
  }

  /** Waits for the queued operations to finish (their errors go to their own callers). */
  idle(): Promise<unknown> {
    return this.#queue;
  }

  async writeConfig(
    ports: NodePorts,
    all: readonly NodePorts[],
    options: ResolvedFixtureOptions,
  ): Promise<void> {
    this.#ports = ports;
    const lines = [
      `tickTime=${options.tickTimeMs}`,
      `dataDir=${this.dataDir}`,
      `clientPort=${ports.clientPort}`,
      'clientPortAddress=127.0.0.1',
      'maxClientCnxns=0',
      'admin.enableServer=false',
      '4lw.commands.whitelist=ruok,srvr,stat,mntr,conf,cons',
      `snapCount=${options.snapCount}`,
      `preAllocSize=${options.preAllocSizeKb}`,
      // The data dirs are thrown away with the fixture: nothing to purge.
      'autopurge.purgeInterval=0',
    ];
    if (options.minSessionTimeoutMs !== undefined)
      lines.push(`minSessionTimeout=${options.minSessionTimeoutMs}`);
    if (options.maxSessionTimeoutMs !== undefined)
      lines.push(`maxSessionTimeout=${options.maxSessionTimeoutMs}`);
    if (all.length > 1) {
      lines.push(`initLimit=${options.initLimitTicks}`, `syncLimit=${options.syncLimitTicks}`);
      all.forEach((peer, i) => {
        lines.push(`server.${i + 1}=127.0.0.1:${String(peer.peerPort)}:${String(peer.electionPort)}`);
      });
      await writeFile(join(this.dataDir, 'myid'), `${this.myid}\n`);
    }
    for (const [key, value] of Object.entries(options.extraConfig)) lines.push(`${key}=${String(value)}`);
    await writeFile(this.configFile, `${lines.join('\n')}\n`);
    if (options.kerberos !== undefined) {
      const { keytab, principal } = options.kerberos;
      const jaas = [
        'Server {',
        '  com.sun.security.auth.module.Krb5LoginModule required',
        '  useKeyTab=true',
        `  keyTab="${keytab}"`,
        '  storeKey=true',
        '  useTicketCache=false',
        `  principal="${principal}";`,
        '};',
      ];
      await writeFile(this.jaasFile, `${jaas.join('\n')}\n`);
    }
  }

  /** Starts the JVM (the caller checked that none runs). */
  spawn(
    installation: ZooKeeperInstallation,
    options: ResolvedFixtureOptions,
    ensemble: boolean,
    cleanupDir: string,
  ): void {
    const args = [
      `-Xmx${options.heapMb}m`,
      // No hsperfdata files left in /tmp by servers that get SIGKILL.
      '-XX:-UsePerfData',
      // A node killed before its first snapshot must still restart from its transaction log.
      '-Dzookeeper.snapshot.trust.empty=true',
      `-Dzookeeper.log.dir=${this.nodeDir}`,
      '-Dorg.slf4j.simpleLogger.showDateTime=true',
      '-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS',
      ...kerberosJvmArgs(options, this.jaasFile),
      ...options.jvmArgs,
      '-cp',
      installation.classpath.join(':'),
      ensemble ? QUORUM_MAIN : STANDALONE_MAIN,
      this.configFile,
    ];
    this.#paused = false;
    this.#process = spawnServer(installation.javaPath, args, {
      cwd: this.nodeDir,
      logFile: this.logFile,
      cleanupDir,
    });
  }

  /** Polls `srvr` until it reports a Mode; fails fast when the process exits or a port clashes. */
  async waitForMode(wait: {
    deadline: number;
    timeoutMs: number;
    fourLetterTimeoutMs: number;
    detectPortClash: boolean;
    signal?: AbortSignal;
  }): Promise<ZooKeeperMode> {
    const { deadline, timeoutMs, fourLetterTimeoutMs, signal } = wait;
    const server = this.#process;
    if (server === undefined) throw new Error(`node ${this.index} was never started`);
    for (;;) {
      const exit = server.exit();
      if (exit !== undefined) {
        const tail = await logTail(this.logFile);
        if (wait.detectPortClash && isPortClash(tail)) throw new PortClash(this.index);
        throw new ZooKeeperExitedError(this.index, exit.code, exit.signal, tail);
      }
      if (signal?.aborted === true) throw signal.reason;
      // A clashing election or quorum port does not always end the process: look in the log.
      if (wait.detectPortClash && isPortClash(await logTail(this.logFile))) throw new PortClash(this.index);
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        throw new ZooKeeperWaitTimeoutError(
          `node ${this.index} (port ${this.clientPort}) to report a Mode`,
          timeoutMs,
          await logTail(this.logFile),
        );
      }
      try {
        const mode = parseMode(
          await fourLetterWord(this.clientPort, 'srvr', {
            timeoutMs: Math.min(fourLetterTimeoutMs, remaining),
          }),
        );
        if (mode !== undefined) return mode;
      } catch {
        // not listening yet
      }
      await Promise.race([delay(POLL_INTERVAL_MS, signal), server.exited]);
    }
  }

  /** Sends `signal` to the running JVM; false when there is none. */
  signal(signal: NodeJS.Signals): boolean {
    return this.#process?.signal(signal) ?? false;
  }

  markPaused(paused: boolean): void {
    this.#paused = paused;
  }

  /** Waits up to `timeoutMs` for the JVM to exit; the exit, or `undefined` on timeout. */
  async waitForExit(timeoutMs: number): Promise<ProcessExit | undefined> {
    const server = this.#process;
    if (server === undefined) return undefined;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), timeoutMs);
    });
    try {
      return await Promise.race([server.exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Waits until the kernel reports the process as stopped (Linux; elsewhere returns at once). */
  async waitUntilStopped(timeoutMs: number): Promise<void> {
    const pid = this.pid;
    if (pid === undefined) return;
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      let stat: string;
      try {
        stat = await readFile(`/proc/${pid}/stat`, 'utf8');
      } catch {
        return; // no procfs
      }
      // The state letter follows the parenthesised command name, which may itself hold spaces.
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (state === 'T' || state === 't' || state === 'Z' || state === 'X') return;
      await delay(5);
    }
  }
}

/** The system properties of a Kerberized server (none without the `kerberos` option). */
function kerberosJvmArgs(options: ResolvedFixtureOptions, jaasFile: string): string[] {
  const kerberos = options.kerberos;
  if (kerberos === undefined) return [];
  return [
    `-Djava.security.krb5.conf=${kerberos.krb5ConfigPath}`,
    `-Djava.security.auth.login.config=${jaasFile}`,
    '-Dzookeeper.authProvider.1=org.apache.zookeeper.server.auth.SASLAuthenticationProvider',
    // Authenticated clients are `sasl:<first component>`, the id Hadoop's ACLs name.
    '-Dzookeeper.kerberos.removeHostFromPrincipal=true',
    '-Dzookeeper.kerberos.removeRealmFromPrincipal=true',
    `-Dzookeeper.sessionRequireClientSASLAuth=${kerberos.requireClientAuth}`,
  ];
}

function isPortClash(log: string): boolean {
  return /Address already in use/.test(log);
}
