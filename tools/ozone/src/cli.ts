import { parseArgs } from 'node:util';
import { prepareOzoneJars } from './ozone-jars.js';
import { OzoneJarsUnavailableError } from './ozone-fixture-errors.js';
import { startRealOzoneCluster } from './real-ozone-cluster.js';
import type { RealOzoneClusterOptions } from './real-ozone-cluster-options.js';

/** Where the CLI writes, and what ends a running `start`. */
export interface CliIo {
  readonly stdout: (line: string) => void;
  readonly stderr: (line: string) => void;
  /** Resolves when the cluster should stop (a signal, the parent going away). */
  readonly stopRequested: Promise<string>;
}

const USAGE = `Usage: fastpath-ozone prepare
       fastpath-ozone start [--datanodes N] [--heap-mb N]

prepare  resolves Apache Ozone's jars with Maven into the tool's .cache folder (printing
         progress; the first time downloads a few hundred MB) and compiles the launcher.
         Maven's local repository: FASTPATH_MAVEN_REPO_LOCAL, else Maven's default.
start    starts a real MiniOzoneCluster on loopback, prints its addresses as one JSON line,
         and runs until SIGINT or SIGTERM, then stops it and deletes its data.

  --datanodes N   datanodes (default 3)
  --heap-mb N     Java heap of the cluster JVM in MiB (default 768)
  --help          this text`;

/** Runs the command line `argv` (without the node and script arguments); resolves with the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        datanodes: { type: 'string' },
        'heap-mb': { type: 'string' },
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
  const command = positionals.length === 1 ? positionals[0] : undefined;
  if (command === 'prepare') {
    if (values.datanodes !== undefined || values['heap-mb'] !== undefined) {
      io.stderr(`prepare takes no options\n\n${USAGE}`);
      return 2;
    }
    try {
      const jars = await prepareOzoneJars({ onProgress: io.stderr });
      const r = jars.report;
      io.stdout(
        `ozone-fixture: Apache Ozone ${jars.ozoneVersion} ready (${r.resolution}; ${r.libFiles} jars, ` +
          `${(r.libBytes / 1e6).toFixed(1)} MB; launcher ${r.compiled ? 'compiled' : 'up to date'}) in ${(r.totalMs / 1000).toFixed(1)} s`,
      );
      return 0;
    } catch (err) {
      if (err instanceof OzoneJarsUnavailableError) {
        io.stderr(
          `fastpath-ozone: cannot resolve Apache Ozone from Maven Central: ${err.artifact ?? 'unknown artifact'}\n${err.message}`,
        );
      } else {
        io.stderr(`fastpath-ozone: ${(err as Error).message}`);
      }
      return 1;
    }
  }
  if (command !== 'start') {
    io.stderr(USAGE);
    return 2;
  }
  const options: RealOzoneClusterOptions = { onProgress: io.stderr };
  try {
    if (values.datanodes !== undefined) options.datanodes = integer('--datanodes', values.datanodes);
    if (values['heap-mb'] !== undefined) options.heapMb = integer('--heap-mb', values['heap-mb']);
  } catch (err) {
    io.stderr(`${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  let cluster;
  try {
    cluster = await Promise.race([startRealOzoneCluster(options), io.stopRequested.then(() => undefined)]);
  } catch (err) {
    io.stderr(`fastpath-ozone: ${(err as Error).message}`);
    return 1;
  }
  if (cluster === undefined) return 130; // stopped before the cluster was up; its exit hook kills it
  try {
    io.stdout(cluster.readyLine);
    io.stderr(
      `fastpath-ozone: MiniOzoneCluster up in ${(cluster.startMs / 1000).toFixed(1)} s (pid ${cluster.pid}, ` +
        `OM gRPC ${cluster.omGrpcAddress}, log ${cluster.logFile}); stop with Ctrl-C.`,
    );
    const reason = await io.stopRequested;
    io.stderr(`fastpath-ozone: ${reason}, stopping`);
  } finally {
    await cluster.stop();
  }
  return 0;
}

function integer(flag: string, text: string): number {
  if (!/^\d+$/.test(text)) throw new Error(`${flag} expects a whole number, got "${text}"`);
  return Number(text);
}
