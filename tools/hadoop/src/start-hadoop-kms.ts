import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  forgetDirectory,
  logTail,
  pickFreePorts,
  pollUntil,
  rememberDirectory,
  spawnServer,
  type ServerProcess,
} from '@fastpath/jvm-fixture';
import { HadoopKmsExitedError, HadoopKmsTimeoutError } from './hadoop-errors.js';
import {
  resolveHadoopKmsOptions,
  type HadoopKmsOptions,
  type ResolvedHadoopKmsOptions,
} from './hadoop-kms-options.js';
import { hadoopConfigXml } from './internal/hadoop-config-xml.js';
import { within } from './internal/within.js';
import { HADOOP_JAVA_17_OPENS } from './java-options.js';
import { prepareHadoop, type HadoopInstallation } from './prepare-hadoop.js';

const MAIN_CLASS = 'org.apache.hadoop.crypto.key.kms.server.KMSWebServer';
const PROBE_TIMEOUT_MS = 3_000;
// Bound for the kernel to remove the process after SIGKILL.
const KILL_WAIT_MS = 10_000;

/** A running Apache Hadoop KMS. */
export interface HadoopKms {
  /** `http://127.0.0.1:<port>/kms`, the base of the REST API (`/v1/...`). */
  readonly url: string;
  /** `kms://http@127.0.0.1:<port>/kms`, for Hadoop's clients (`-provider`). */
  readonly providerUri: string;
  readonly port: number;
  readonly pid: number;
  /** The scratch directory (configuration, keystore, logs), deleted by `close()`. */
  readonly rootDir: string;
  readonly confDir: string;
  readonly logFile: string;
  readonly auditLogFile: string;
  readonly installation: HadoopInstallation;
  /** Milliseconds from spawning the JVM to its first HTTP answer. */
  readonly startMs: number;
  /** Rewrites kms-acls.xml (`acls`, on top of the defaults unless started with `aclDefaults: false`); Hadoop reloads it within about a second. */
  setAcls(acls: Readonly<Record<string, string>>): Promise<void>;
  /** The audit log so far. */
  auditLog(): Promise<string>;
  /** SIGTERM, then SIGKILL after `stopTimeoutMs`; deletes the scratch directory. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Starts Apache Hadoop's KMS (`KMSWebServer`) on a free 127.0.0.1 port with a generated
 * configuration (JCEKS keystore in a fresh directory, simple authentication, optionally the
 * ZooKeeper delegation-token store) and resolves once it answers HTTP. The JVM is killed when
 * this process exits, and by a watchdog when this process dies abruptly.
 *
 * @throws MavenResolutionError when Hadoop's jars cannot be resolved (naming the artifact)
 * @throws HadoopKmsExitedError when the JVM exits during start
 * @throws HadoopKmsTimeoutError when it does not answer within `startTimeoutMs`
 * @example
 * ```ts
 * await using kms = await startHadoopKms();
 * await fetch(`${kms.url}/v1/keys/names?user.name=admin`); // 200 []
 * ```
 */
export async function startHadoopKms(options: HadoopKmsOptions = {}): Promise<HadoopKms> {
  const resolved = resolveHadoopKmsOptions(options);
  const installation = await prepareHadoop();
  const rootDir = await mkdtemp(join(resolved.baseDir, 'fastpath-hadoop-kms-'));
  rememberDirectory(rootDir);
  try {
    for (let attempt = 0; ; attempt++) {
      const [port] = await pickFreePorts(1);
      const started = await startOnce(installation, resolved, rootDir, port as number);
      if (started !== 'port-clash') return started;
      if (attempt >= resolved.portRetries) {
        throw new HadoopKmsTimeoutError(
          `a free port (${attempt + 1} ports were taken by other processes)`,
          resolved.startTimeoutMs,
          await logTail(join(rootDir, 'kms.log')),
        );
      }
    }
  } catch (err) {
    await rm(rootDir, { recursive: true, force: true });
    forgetDirectory(rootDir);
    throw err;
  }
}

async function startOnce(
  installation: HadoopInstallation,
  options: ResolvedHadoopKmsOptions,
  rootDir: string,
  port: number,
): Promise<HadoopKms | 'port-clash'> {
  const confDir = join(rootDir, 'conf');
  const keystoreDir = join(rootDir, 'keystore');
  const logFile = join(rootDir, 'kms.log');
  const auditLogFile = join(rootDir, 'kms-audit.log');
  await rm(confDir, { recursive: true, force: true });
  await rm(keystoreDir, { recursive: true, force: true });
  await rm(logFile, { force: true });
  await mkdir(confDir, { recursive: true });
  await mkdir(keystoreDir, { recursive: true });
  await mkdir(join(rootDir, 'temp'), { recursive: true });
  await writeConfiguration(options, { rootDir, confDir, keystoreDir, auditLogFile, port });

  const args = [
    ...options.javaOptions,
    `-Xmx${options.heapMb}m`,
    '-XX:-UsePerfData',
    ...HADOOP_JAVA_17_OPENS,
    `-Dkms.config.dir=${confDir}`,
    '-Dlog4j.configuration=kms-log4j.properties',
    `-Djava.io.tmpdir=${join(rootDir, 'temp')}`,
    '-cp',
    // The conf dir first: the keystore password file is looked up on the class path.
    [confDir, ...installation.classpath].join(':'),
    MAIN_CLASS,
  ];
  const spawnedAt = Date.now();
  const server = spawnServer(installation.javaPath, args, { cwd: rootDir, logFile, cleanupDir: rootDir });
  const url = `http://127.0.0.1:${port}/kms`;
  const answered = await pollUntil(() => probe(url), {
    timeoutMs: options.startTimeoutMs,
    intervalMs: 200,
    stopWhen: server.exited,
  });
  if (answered === undefined) {
    const tail = await logTail(logFile);
    const exit = server.exit();
    if (exit === undefined) {
      await stop(server, 1);
      if (/Address already in use|BindException/.test(tail)) return 'port-clash';
      throw new HadoopKmsTimeoutError(
        `the Hadoop KMS on port ${port} to answer`,
        options.startTimeoutMs,
        tail,
      );
    }
    if (/Address already in use|BindException/.test(tail)) return 'port-clash';
    throw new HadoopKmsExitedError(exit.code, exit.signal, tail);
  }
  return new RunningHadoopKms(server, installation, options, {
    url,
    port,
    rootDir,
    confDir,
    logFile,
    auditLogFile,
    startMs: Date.now() - spawnedAt,
  });
}

async function probe(url: string): Promise<true | undefined> {
  try {
    // Any HTTP answer means Jetty and the web application are up (403/401 included).
    const response = await fetch(`${url}/v1/keys/names?user.name=fastpath-probe`, {
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
    await response.arrayBuffer();
    return response.status === 404 || response.status === 503 ? undefined : true;
  } catch {
    return undefined;
  }
}

interface Paths {
  readonly rootDir: string;
  readonly confDir: string;
  readonly keystoreDir: string;
  readonly auditLogFile: string;
  readonly port: number;
}

async function writeConfiguration(options: ResolvedHadoopKmsOptions, paths: Paths): Promise<void> {
  const { confDir } = paths;
  // A keystore password file on the class path (the conf dir), as the KMS docs describe.
  await writeFile(join(confDir, 'kms.keystore.password'), randomBytes(12).toString('hex'));
  const signerFile = join(confDir, 'signer.secret');
  if (options.signerSecret !== undefined) await writeFile(signerFile, options.signerSecret);
  const auth = 'hadoop.kms.authentication.';
  const zk = options.zooKeeper;
  const site: Record<string, string> = {
    'hadoop.kms.key.provider.uri': `jceks://file@${join(paths.keystoreDir, 'kms.keystore')}`,
    'hadoop.security.keystore.java-keystore-provider.password-file': 'kms.keystore.password',
    'hadoop.kms.http.host': '127.0.0.1',
    'hadoop.kms.http.port': String(paths.port),
    'hadoop.http.temp.dir': join(paths.rootDir, 'temp'),
    [`${auth}type`]: 'simple',
    ...(options.signerSecret === undefined
      ? {}
      : { [`${auth}signer.secret.provider`]: 'file', [`${auth}signature.secret.file`]: signerFile }),
    ...(zk === undefined
      ? {}
      : {
          [`${auth}zk-dt-secret-manager.enable`]: 'true',
          [`${auth}zk-dt-secret-manager.zkConnectionString`]: zk.connectString,
          [`${auth}zk-dt-secret-manager.znodeWorkingPath`]: zk.workingPath,
          [`${auth}zk-dt-secret-manager.zkAuthType`]: 'none',
          ...(zk.seqNumBatchSize === undefined
            ? {}
            : { [`${auth}zk-dt-secret-manager.token.seqnum.batch.size`]: String(zk.seqNumBatchSize) }),
        }),
    ...options.site,
  };
  await writeFile(join(confDir, 'kms-site.xml'), hadoopConfigXml(site));
  await writeFile(join(confDir, 'core-site.xml'), hadoopConfigXml(options.core));
  await writeFile(join(confDir, 'kms-acls.xml'), hadoopConfigXml(options.acls));
  await writeFile(
    join(confDir, 'kms-log4j.properties'),
    [
      'log4j.rootLogger=INFO, stdout',
      'log4j.appender.stdout=org.apache.log4j.ConsoleAppender',
      'log4j.appender.stdout.layout=org.apache.log4j.PatternLayout',
      'log4j.appender.stdout.layout.ConversionPattern=%d{ISO8601} %-5p %c{1} - %m%n',
      'log4j.logger.kms-audit=INFO, audit',
      'log4j.additivity.kms-audit=false',
      'log4j.appender.audit=org.apache.log4j.FileAppender',
      `log4j.appender.audit.File=${paths.auditLogFile}`,
      'log4j.appender.audit.layout=org.apache.log4j.PatternLayout',
      'log4j.appender.audit.layout.ConversionPattern=%d{ISO8601} %m%n',
      '',
    ].join('\n'),
  );
}

async function stop(server: ServerProcess, stopTimeoutMs: number): Promise<void> {
  if (server.exit() !== undefined) return;
  server.signal('SIGTERM');
  if ((await within(server.exited, stopTimeoutMs)) !== undefined) return;
  server.signal('SIGKILL');
  if ((await within(server.exited, KILL_WAIT_MS)) === undefined) {
    throw new HadoopKmsTimeoutError(`pid ${server.pid} to exit after SIGKILL`, KILL_WAIT_MS, '');
  }
}

class RunningHadoopKms implements HadoopKms {
  readonly url: string;
  readonly providerUri: string;
  readonly port: number;
  readonly rootDir: string;
  readonly confDir: string;
  readonly logFile: string;
  readonly auditLogFile: string;
  readonly startMs: number;
  readonly #server: ServerProcess;
  readonly #options: ResolvedHadoopKmsOptions;
  #closing: Promise<void> | undefined;

  constructor(
    server: ServerProcess,
    readonly installation: HadoopInstallation,
    options: ResolvedHadoopKmsOptions,
    info: Omit<
      HadoopKms,
      'pid' | 'providerUri' | 'installation' | 'setAcls' | 'auditLog' | 'close' | typeof Symbol.asyncDispose
    >,
  ) {
    this.#server = server;
    this.#options = options;
    this.url = info.url;
    this.port = info.port;
    this.providerUri = `kms://http@127.0.0.1:${info.port}/kms`;
    this.rootDir = info.rootDir;
    this.confDir = info.confDir;
    this.logFile = info.logFile;
    this.auditLogFile = info.auditLogFile;
    this.startMs = info.startMs;
  }

  get pid(): number {
    return this.#server.pid;
  }

  async setAcls(acls: Readonly<Record<string, string>>): Promise<void> {
    const merged = resolveHadoopKmsOptions({ acls, aclDefaults: this.#options.aclDefaults }).acls;
    await writeFile(join(this.confDir, 'kms-acls.xml'), hadoopConfigXml(merged));
  }

  async auditLog(): Promise<string> {
    return readFile(this.auditLogFile, 'utf8').catch(() => '');
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      try {
        await stop(this.#server, this.#options.stopTimeoutMs);
      } finally {
        await rm(this.rootDir, { recursive: true, force: true });
        forgetDirectory(this.rootDir);
      }
    })();
    return this.#closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
