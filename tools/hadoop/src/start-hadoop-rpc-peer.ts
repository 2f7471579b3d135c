import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forgetDirectory, logTail, pollUntil, rememberDirectory, spawnServer } from '@fastpath/jvm-fixture';
import { HadoopRpcPeerError } from './hadoop-errors.js';
import { within } from './internal/within.js';
import { HADOOP_JAVA_17_OPENS } from './java-options.js';
import { prepareHadoop, type HadoopInstallation } from './prepare-hadoop.js';

const MAIN_CLASS = 'dev.fastpath.hadoop.RpcPeerDriver';
const START_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 10_000;

/** A running Apache Hadoop IPC server serving Hadoop's IPC test service. */
export interface HadoopRpcPeer {
  /** `127.0.0.1:<port>`. */
  readonly address: string;
  readonly port: number;
  readonly pid: number;
  readonly logFile: string;
  readonly installation: HadoopInstallation;
  /** SIGTERM (then SIGKILL); deletes the scratch directory. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Starts Apache Hadoop's own IPC server (`RPC.Server` with `ProtobufRpcEngine2`, simple auth) on
 * 127.0.0.1 and a port it picks, serving `TestProtobufRpcProto` (hadoop-common's test jar) under
 * the protocol `org.apache.hadoop.ipc.TestRpcBase$TestRpcService` version 1, as
 * `java/dev/fastpath/hadoop/RpcPeerDriver.java` describes. The JVM is killed when this process exits.
 *
 * @throws MavenResolutionError when Hadoop's jars cannot be resolved (naming the artifact)
 * @throws HadoopRpcPeerError when the JVM exits or does not serve within two minutes
 * @example
 * ```ts
 * await using peer = await startHadoopRpcPeer();
 * await client.call({ address: peer.address, protocol: 'org.apache.hadoop.ipc.TestRpcBase$TestRpcService', ... });
 * ```
 */
export async function startHadoopRpcPeer(): Promise<HadoopRpcPeer> {
  const installation = await prepareHadoop();
  const rootDir = await mkdtemp(join(tmpdir(), 'fastpath-hadoop-rpc-'));
  rememberDirectory(rootDir);
  const logFile = join(rootDir, 'rpc-peer.log');
  const portFile = join(rootDir, 'port');
  const server = spawnServer(
    installation.javaPath,
    [
      '-Xmx256m',
      '-XX:-UsePerfData',
      ...HADOOP_JAVA_17_OPENS,
      `-Djava.io.tmpdir=${rootDir}`,
      '-cp',
      [installation.driverClassesDir, ...installation.classpath].join(':'),
      MAIN_CLASS,
      portFile,
    ],
    { cwd: rootDir, logFile, cleanupDir: rootDir },
  );
  const cleanUp = async (): Promise<void> => {
    if (server.exit() === undefined) {
      server.signal('SIGTERM');
      if ((await within(server.exited, STOP_TIMEOUT_MS)) === undefined) {
        server.signal('SIGKILL');
        if ((await within(server.exited, STOP_TIMEOUT_MS)) === undefined) {
          throw new HadoopRpcPeerError(
            `pid ${server.pid} did not exit after SIGKILL`,
            await logTail(logFile),
          );
        }
      }
    }
    await rm(rootDir, { recursive: true, force: true });
    forgetDirectory(rootDir);
  };
  const port = await pollUntil(
    async () => {
      const text = await readFile(portFile, 'utf8').catch(() => undefined);
      return text === undefined ? undefined : Number(text.trim());
    },
    { timeoutMs: START_TIMEOUT_MS, intervalMs: 100, stopWhen: server.exited },
  );
  if (port === undefined || !(port > 0)) {
    const tail = await logTail(logFile);
    const exit = server.exit();
    await cleanUp();
    throw new HadoopRpcPeerError(
      exit === undefined
        ? `Hadoop's IPC server did not write its port within ${START_TIMEOUT_MS} ms`
        : `Hadoop's IPC server exited (${exit.signal ?? `code ${String(exit.code)}`}) before it served`,
      tail,
    );
  }
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => (closed ??= cleanUp());
  return {
    address: `127.0.0.1:${port}`,
    port,
    pid: server.pid,
    logFile,
    installation,
    close,
    [Symbol.asyncDispose]: close,
  };
}
