import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { checkInteger, InvalidOptionError } from '@fastpath/core';
import { delay, forgetDirectory, logTail, pickFreePorts, rememberDirectory } from '@fastpath/jvm-fixture';
import { fourLetterWord, parseMntr, parseMode, type ZooKeeperMode } from '../four-letter-word.js';
import { locateZooKeeper, type ZooKeeperInstallation } from '../locate-zookeeper.js';
import type {
  LeaderOptions,
  RestartOptions,
  ZooKeeperFixture,
  ZooKeeperNodeInfo,
} from '../zookeeper-fixture.js';
import {
  resolveFixtureOptions,
  type ResolvedFixtureOptions,
  type ZooKeeperFixtureOptions,
} from '../zookeeper-fixture-options.js';
import { ZooKeeperFixtureStateError, ZooKeeperWaitTimeoutError } from '../zookeeper-errors.js';
import { PortClash, ZooKeeperNode, type NodePorts } from './zookeeper-node.js';

/** Seams for tests of the start logic. */
export interface ClusterHooks {
  /** Picks `count` distinct free ports. Default: bind 127.0.0.1:0 and release. */
  pickPorts?: (count: number) => Promise<number[]>;
}

// Bound for the processes to disappear after SIGKILL during close (the kernel, not the JVM, acts).
const KILL_WAIT_MS = 10_000;

export async function startCluster(
  options: ZooKeeperFixtureOptions = {},
  hooks: ClusterHooks = {},
): Promise<ZooKeeperFixture> {
  const resolved = resolveFixtureOptions(options);
  const installation = await locateZooKeeper(options);
  const pickPorts = hooks.pickPorts ?? pickFreePorts;
  const rootDir = await mkdtemp(join(resolved.baseDir, 'fastpath-zookeeper-'));
  rememberDirectory(rootDir);
  const nodes = Array.from({ length: resolved.nodes }, (_, i) => new ZooKeeperNode(i, rootDir));
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await startAll(
          nodes,
          await pickPorts(resolved.nodes === 1 ? 1 : 3 * resolved.nodes),
          resolved,
          installation,
          rootDir,
        );
        return new Cluster(nodes, rootDir, installation, resolved);
      } catch (err) {
        await Promise.all(nodes.map((node) => killAndWait(node)));
        if (!(err instanceof PortClash) || attempt >= resolved.portRetries) {
          throw err instanceof PortClash
            ? new ZooKeeperWaitTimeoutError(
                `free ports (every one of ${attempt + 1} port sets was taken by another process)`,
                resolved.startTimeoutMs,
                await logTail(nodes[err.node]?.logFile ?? ''),
              )
            : err;
        }
      }
    }
  } catch (err) {
    await rm(rootDir, { recursive: true, force: true });
    forgetDirectory(rootDir);
    throw err;
  }
}

async function startAll(
  nodes: readonly ZooKeeperNode[],
  ports: readonly number[],
  options: ResolvedFixtureOptions,
  installation: ZooKeeperInstallation,
  rootDir: string,
): Promise<void> {
  const ensemble = nodes.length > 1;
  const nodePorts: NodePorts[] = nodes.map((_, i) =>
    ensemble
      ? {
          clientPort: port(ports, 3 * i),
          peerPort: port(ports, 3 * i + 1),
          electionPort: port(ports, 3 * i + 2),
        }
      : { clientPort: port(ports, i), peerPort: undefined, electionPort: undefined },
  );
  for (const [i, node] of nodes.entries()) {
    // A retry after a port clash starts from empty directories again.
    await rm(node.nodeDir, { recursive: true, force: true });
    await mkdir(node.dataDir, { recursive: true });
    await node.writeConfig(nodePorts[i] as NodePorts, nodePorts, options);
  }
  for (const node of nodes) node.spawn(installation, options, ensemble, rootDir);
  const deadline = Date.now() + options.startTimeoutMs;
  const abort = new AbortController();
  await Promise.all(
    nodes.map((node) =>
      node
        .waitForMode({
          deadline,
          timeoutMs: options.startTimeoutMs,
          fourLetterTimeoutMs: options.fourLetterTimeoutMs,
          detectPortClash: true,
          signal: abort.signal,
        })
        .catch((err: unknown) => {
          // The others stop polling: a missing member keeps them from ever serving.
          abort.abort(err);
          throw err;
        }),
    ),
  );
}

function port(ports: readonly number[], i: number): number {
  const value = ports[i];
  if (value === undefined) throw new Error(`pickPorts returned ${ports.length} ports, needed more`);
  return checkInteger('port', value, 1, 65535);
}

async function killAndWait(node: ZooKeeperNode): Promise<void> {
  if (node.pid === undefined) return;
  node.signal('SIGKILL');
  if ((await node.waitForExit(KILL_WAIT_MS)) === undefined) {
    throw new ZooKeeperWaitTimeoutError(
      `node ${node.index} (pid ${String(node.pid)}) to exit after SIGKILL`,
      KILL_WAIT_MS,
    );
  }
  node.markPaused(false);
}

class Cluster implements ZooKeeperFixture {
  readonly connectString: string;
  readonly rootDir: string;
  readonly installation: ZooKeeperInstallation;
  readonly #nodes: readonly ZooKeeperNode[];
  readonly #options: ResolvedFixtureOptions;
  #closing: Promise<void> | undefined;

  constructor(
    nodes: readonly ZooKeeperNode[],
    rootDir: string,
    installation: ZooKeeperInstallation,
    options: ResolvedFixtureOptions,
  ) {
    this.#nodes = nodes;
    this.rootDir = rootDir;
    this.installation = installation;
    this.#options = options;
    this.connectString = nodes.map((node) => node.connectString).join(',');
  }

  get nodes(): readonly ZooKeeperNodeInfo[] {
    return this.#nodes;
  }

  get closed(): boolean {
    return this.#closing !== undefined;
  }

  async fourLetter(word: string, node = 0): Promise<string> {
    const target = this.#node(node);
    return fourLetterWord(target.clientPort, word, { timeoutMs: this.#options.fourLetterTimeoutMs });
  }

  async mntr(node = 0): Promise<Record<string, number | string>> {
    return parseMntr(await this.fourLetter('mntr', node));
  }

  async mode(node = 0): Promise<ZooKeeperMode | undefined> {
    return parseMode(await this.fourLetter('srvr', node));
  }

  async leader(options: LeaderOptions = {}): Promise<number> {
    const timeoutMs = checkInteger('timeoutMs', options.timeoutMs ?? this.#options.startTimeoutMs, 1);
    this.#checkOpen();
    const deadline = Date.now() + timeoutMs;
    do {
      for (const node of this.#nodes) {
        if (node.state !== 'running') continue;
        try {
          const mode = await this.mode(node.index);
          if (mode === 'leader' || mode === 'standalone') return node.index;
        } catch {
          // not serving right now
        }
      }
      await delay(100);
    } while (Date.now() < deadline && !this.closed);
    this.#checkOpen();
    throw new ZooKeeperWaitTimeoutError('a node to report Mode: leader', timeoutMs);
  }

  async stop(node: number): Promise<void> {
    const target = this.#node(node);
    return target.serialize(() => this.#stopNow(target));
  }

  async kill(node: number): Promise<void> {
    const target = this.#node(node);
    return target.serialize(() => killAndWait(target));
  }

  async pause(node: number): Promise<void> {
    const target = this.#node(node);
    return target.serialize(async () => {
      if (target.state === 'stopped') {
        throw new ZooKeeperFixtureStateError(`cannot pause node ${node}: it is stopped`);
      }
      target.signal('SIGSTOP');
      target.markPaused(true);
      await target.waitUntilStopped(KILL_WAIT_MS);
    });
  }

  async resume(node: number): Promise<void> {
    const target = this.#node(node);
    return target.serialize(() => {
      if (target.state === 'paused') {
        target.signal('SIGCONT');
        target.markPaused(false);
      }
      return Promise.resolve();
    });
  }

  async restart(node: number, options: RestartOptions = {}): Promise<void> {
    const target = this.#node(node);
    const waitForMode = options.waitForMode ?? true;
    if (typeof waitForMode !== 'boolean') {
      throw new InvalidOptionError('waitForMode', `expected a boolean, got ${typeof waitForMode}`);
    }
    return target.serialize(async () => {
      await this.#stopNow(target);
      this.#checkOpen(); // close() may have begun while the old process stopped
      target.spawn(this.installation, this.#options, this.#nodes.length > 1, this.rootDir);
      if (!waitForMode) return;
      await target.waitForMode({
        deadline: Date.now() + this.#options.startTimeoutMs,
        timeoutMs: this.#options.startTimeoutMs,
        fourLetterTimeoutMs: this.#options.fourLetterTimeoutMs,
        detectPortClash: false,
      });
    });
  }

  async #stopNow(target: ZooKeeperNode): Promise<void> {
    if (target.pid === undefined) return;
    target.signal('SIGTERM');
    // A stopped process only acts on the pending SIGTERM once it runs again.
    if (target.state === 'paused') target.signal('SIGCONT');
    target.markPaused(false);
    if ((await target.waitForExit(this.#options.stopTimeoutMs)) === undefined) await killAndWait(target);
  }

  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  async #close(): Promise<void> {
    try {
      // Kill first, then let queued operations drain: they fail fast against dead processes.
      await Promise.all(this.#nodes.map((node) => killAndWait(node)));
      await Promise.all(this.#nodes.map((node) => node.idle()));
      // An operation that was already spawning when close began may have started a JVM.
      await Promise.all(this.#nodes.map((node) => killAndWait(node)));
    } finally {
      await rm(this.rootDir, { recursive: true, force: true });
      forgetDirectory(this.rootDir);
    }
  }

  #node(index: number): ZooKeeperNode {
    this.#checkOpen();
    const node = Number.isInteger(index) ? this.#nodes[index] : undefined;
    if (node === undefined) {
      throw new ZooKeeperFixtureStateError(
        `no node ${String(index)}: the fixture has nodes 0 to ${this.#nodes.length - 1}`,
      );
    }
    return node;
  }

  #checkOpen(): void {
    if (this.closed) throw new ZooKeeperFixtureStateError('the ZooKeeper fixture is closed');
  }
}
