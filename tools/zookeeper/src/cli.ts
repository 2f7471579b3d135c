import { parseArgs } from 'node:util';
import { startZooKeeper } from './start-zookeeper.js';
import type { ZooKeeperFixtureOptions } from './zookeeper-fixture-options.js';

/** Where the CLI writes, and what ends a running `start`. */
export interface CliIo {
  readonly stdout: (line: string) => void;
  readonly stderr: (line: string) => void;
  /** Resolves when the servers should stop (a signal, the parent going away). */
  readonly stopRequested: Promise<string>;
}

const USAGE = `Usage: fastpath-zookeeper start [--nodes N] [--heap-mb N] [--tick-time-ms N]

Starts a real ZooKeeper on free 127.0.0.1 ports with fresh data dirs, prints
"connectString=<host:port,...>", and runs until SIGINT or SIGTERM, then stops the
servers and deletes their data.

  --nodes N          servers: 1 = standalone (default), 3 = ensemble
  --heap-mb N        Java heap per server in MiB (default 256)
  --tick-time-ms N   ZooKeeper tickTime in ms (default 2000)
  --help             this text`;

/** Runs the command line `argv` (without the node and script arguments); resolves with the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        nodes: { type: 'string' },
        'heap-mb': { type: 'string' },
        'tick-time-ms': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    io.stderr(`${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help === true) {
    io.stdout(USAGE);
    return 0;
  }
  if (positionals.length !== 1 || positionals[0] !== 'start') {
    io.stderr(USAGE);
    return 2;
  }
  const options: ZooKeeperFixtureOptions = {};
  try {
    if (values.nodes !== undefined) options.nodes = integer('--nodes', values.nodes);
    if (values['heap-mb'] !== undefined) options.heapMb = integer('--heap-mb', values['heap-mb']);
    if (values['tick-time-ms'] !== undefined)
      options.tickTimeMs = integer('--tick-time-ms', values['tick-time-ms']);
  } catch (err) {
    io.stderr(`${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }

  let zk;
  try {
    zk = await Promise.race([startZooKeeper(options), io.stopRequested.then(() => undefined)]);
  } catch (err) {
    io.stderr(`fastpath-zookeeper: ${(err as Error).message}`);
    return 1;
  }
  if (zk === undefined) return 130; // stopped before the servers were up; their exit hook kills them
  try {
    const pids = zk.nodes.map((node) => node.pid).join(', ');
    io.stdout(`connectString=${zk.connectString}`);
    io.stdout(
      zk.nodes.length === 1
        ? `ZooKeeper standalone server up (pid ${pids}, data in ${zk.rootDir}); stop with Ctrl-C.`
        : `ZooKeeper ensemble of ${zk.nodes.length} up (pids ${pids}, data in ${zk.rootDir}); stop with Ctrl-C.`,
    );
    const reason = await io.stopRequested;
    io.stderr(`fastpath-zookeeper: ${reason}, stopping`);
  } finally {
    await zk.close();
  }
  return 0;
}

function integer(flag: string, text: string): number {
  if (!/^\d+$/.test(text)) throw new Error(`${flag} expects a whole number, got "${text}"`);
  return Number(text);
}
