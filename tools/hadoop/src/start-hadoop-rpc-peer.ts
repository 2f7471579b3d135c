import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidOptionError } from '@fastpath/core';
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
  /**
   * With `token`: a token the server issued for the user `alice` (its URL string, service empty),
   * from Hadoop's own test secret manager.
   */
  readonly tokenUrlString: string | undefined;
  /** SIGTERM (then SIGKILL); deletes the scratch directory. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Options of {@link startHadoopRpcPeer}. */
export interface HadoopRpcPeerOptions {
  /**
   * Also offer TOKEN (DIGEST-MD5) with Hadoop's test secret manager, at this `hadoop.rpc.protection`
   * (`authentication`, `integrity`, `privacy`). Default: SIMPLE only.
   */
  token?: { protection: 'authentication' | 'integrity' | 'privacy' };
  /**
   * Authenticate with Kerberos instead (hadoop.security.authentication=kerberos): the server logs
   * in as `principal` (e.g. `hrpc/localhost@EXAMPLE.COM`; it offers KERBEROS with SASL protocol
   * `hrpc` and server id `localhost`) from `keytab`, at this `hadoop.rpc.protection` (a comma list
   * is Hadoop's list of accepted protections, in its order). `javaOptions` point the JVM at the
   * realm (the KDC fixture's `javaOptions()`). Not together with `token`.
   */
  kerberos?: { protection: string; principal: string; keytab: string; javaOptions: readonly string[] };
}

/**
 * Starts Apache Hadoop's own IPC server (`RPC.Server` with `ProtobufRpcEngine2`, simple auth, or TOKEN or KERBEROS) on
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
export async function startHadoopRpcPeer(options: HadoopRpcPeerOptions = {}): Promise<HadoopRpcPeer> {
  const protection = options.token?.protection;
  if (protection !== undefined && !['authentication', 'integrity', 'privacy'].includes(protection)) {
    throw new InvalidOptionError('token.protection', 'expected authentication, integrity or privacy');
  }
  const kerberos = options.kerberos;
  if (kerberos !== undefined) {
    if (protection !== undefined) throw new InvalidOptionError('kerberos', 'not together with token');
    const each = kerberos.protection.split(',').map((p) => p.trim().toLowerCase());
    if (each.some((p) => !['authentication', 'integrity', 'privacy'].includes(p))) {
      throw new InvalidOptionError(
        'kerberos.protection',
        'expected a comma list of authentication, integrity, privacy',
      );
    }
  }
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
      ...(kerberos?.javaOptions ?? []),
      `-Djava.io.tmpdir=${rootDir}`,
      '-cp',
      [installation.driverClassesDir, ...installation.classpath].join(':'),
      MAIN_CLASS,
      portFile,
      ...(protection === undefined ? [] : ['token', protection]),
      ...(kerberos === undefined
        ? []
        : ['kerberos', kerberos.protection, kerberos.principal, kerberos.keytab]),
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
  // The driver writes the token before the port file.
  const tokenUrlString =
    protection === undefined ? undefined : (await readFile(`${portFile}.token`, 'utf8')).trim();
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => (closed ??= cleanUp());
  return {
    address: `127.0.0.1:${port}`,
    port,
    pid: server.pid,
    logFile,
    installation,
    tokenUrlString,
    close,
    [Symbol.asyncDispose]: close,
  };
}
