import cluster from 'node:cluster';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { FastpathError, Redacted } from '@fastpath/core';
import { generateSecureRandom } from '@fastpath/secure-random';
import {
  isKmsMessage,
  WORKER_ENV,
  type PrimaryMessage,
  type WorkerMessage,
} from '../cluster/cluster-messages.js';
import { runClusterPrimary } from '../cluster/cluster-primary.js';
import { ReplicaKeyStore } from '../cluster/replica-key-store.js';
import { KMS_ENVIRONMENT_VARIABLES } from '../config/kms-properties.js';
import { loadKmsSettings, type SettingsLayer } from '../config/load-kms-settings.js';
import { assertCanListen } from '../http/listen-error.js';
import { KmsConfigError } from '../../kms-errors.js';
import { prefixLogger, streamLogger, type KmsLogger } from '../kms-logger.js';
import { FileKeyStore, createKeystore, rekeyKeystore } from '../keystore/file-key-store.js';
import { writeFileAtomic } from '../keystore/keystore-file.js';
import {
  GENERATED_PASSWORD_FILE,
  readPasswordFile,
  resolveKeystorePassword,
} from '../keystore/keystore-password.js';
import { startKmsServer, type KmsServer, type KmsServerOptions } from '../../kms-server.js';
import { KMS_SERVER_VERSION } from '../version.js';
import { CLI_USAGE, parseCliArgs, type CliOptions } from './cli-args.js';

/** The message a `fastpath-kms` started with an IPC channel sends its parent once it serves. */
export interface KmsReadyMessage {
  /** Always `fastpath-kms:ready`: tells this message from any other on the channel. */
  type: 'fastpath-kms:ready';
  /** Base URL it serves, `http(s)://host:port` (the REST API is under `/kms/v1`). */
  url: string;
  /** Pid of the process that sends it (the cluster primary when it runs workers). */
  pid: number;
  /** Processes serving the port: 1, or `fastpath.kms.workers`. */
  workers: number;
}

/** Where the command writes. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
}

const LOG_LEVELS = ['silent', 'fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;

function layersOf(options: CliOptions, env: Readonly<Record<string, string | undefined>>): SettingsLayer[] {
  const fromEnv: Record<string, string | undefined> = {};
  for (const [variable, property] of Object.entries(KMS_ENVIRONMENT_VARIABLES))
    fromEnv[property] = env[variable];
  return [
    { source: 'environment', values: fromEnv },
    { source: 'command line', values: options.properties },
  ];
}

/**
 * Runs `fastpath-kms` with `argv` (without the node and script paths) and resolves with the exit
 * code. Serving resolves only when the server stopped (SIGINT/SIGTERM, or the parent of an IPC
 * channel went away). Environment variables are read here and nowhere else.
 */
export async function runCli(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  io: CliIo,
): Promise<number> {
  const logger = streamLogger((text) => io.stderr(text));
  try {
    const command = parseCliArgs(argv);
    switch (command.kind) {
      case 'help':
        io.stdout(CLI_USAGE);
        return 0;
      case 'version':
        io.stdout(`${KMS_SERVER_VERSION}\n`);
        return 0;
      case 'keystore-create':
        return await keystoreCreate(command.options, env, io);
      case 'keystore-rekey':
        return await keystoreRekey(command.options, command.newPasswordFile, env, io);
      case 'serve':
        return await serve(command.options, env, logger);
    }
  } catch (error) {
    // One line: what is wrong and, where the message does not say it, what to do.
    if (error instanceof FastpathError) {
      const advice = START_ADVICE[error.code];
      io.stderr(
        `fastpath-kms: ${error.message}${error.code === 'ERR_KMS_CONFIG' ? '' : ` (${error.code})`}` +
          `${advice === undefined ? '' : `; ${advice}`}\n`,
      );
      return exitCodeOf(error);
    }
    const text = error instanceof Error ? error.message : String(error);
    io.stderr(`fastpath-kms: unexpected failure: ${text.split('\n')[0] ?? ''}\n`);
    return 1;
  }
}

/**
 * 2 for invalid settings or usage (the message names the property or flag), 1 for everything that
 * went wrong at run time. A configuration file that exists but cannot be read is a run-time
 * failure (permissions, a directory in its place): its content was never judged.
 */
function exitCodeOf(error: FastpathError): 1 | 2 {
  if (!(error instanceof KmsConfigError)) return 1;
  return causedByFileSystem(error) ? 1 : 2;
}

function causedByFileSystem(error: unknown): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (typeof (cause as NodeJS.ErrnoException).syscall === 'string') return true;
  }
  return false;
}

/** What to do about the failures a start meets most, appended to their one line. */
const START_ADVICE: Readonly<Record<string, string>> = {
  ERR_KMS_KEYSTORE_PASSWORD:
    'give the password the keystore was created with (FASTPATH_KMS_KEYSTORE_PASSWORD or --keystore-password-file)',
  ERR_KMS_KEYSTORE_CORRUPT: 'restore the keystore file from a backup',
  ERR_KMS_KEYSTORE_LOCKED: 'stop the other server using this keystore, or use another --data-dir',
};

function passwordFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
): Redacted<string> | undefined {
  const value = env[name];
  return value === undefined ? undefined : new Redacted(value);
}

async function keystoreCreate(
  options: CliOptions,
  env: Readonly<Record<string, string | undefined>>,
  io: CliIo,
): Promise<number> {
  const { settings } = loadKmsSettings({
    configDir: options.configDir ?? env.FASTPATH_KMS_CONFIG_DIR,
    layers: layersOf(options, env),
    env,
  });
  const resolved = await resolveKeystorePassword({
    password: passwordFromEnv(env, 'FASTPATH_KMS_KEYSTORE_PASSWORD'),
    passwordFile: settings.keystore.passwordFile,
    dataDir: settings.dataDir,
    keystoreFile: settings.keystore.file,
  });
  await createKeystore(settings.keystore.file, resolved.password);
  io.stdout(`created an empty keystore ${settings.keystore.file}\n`);
  if (resolved.source === 'generated')
    io.stdout(`its password is in ${resolved.file} (readable only by its owner)\n`);
  return 0;
}

async function keystoreRekey(
  options: CliOptions,
  newPasswordFile: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  io: CliIo,
): Promise<number> {
  const { settings } = loadKmsSettings({
    configDir: options.configDir ?? env.FASTPATH_KMS_CONFIG_DIR,
    layers: layersOf(options, env),
    env,
  });
  if (!existsSync(settings.keystore.file)) {
    throw new KmsConfigError(
      'fastpath.kms.keystore.file',
      `there is no keystore at ${settings.keystore.file}`,
    );
  }
  const current = await resolveKeystorePassword({
    password: passwordFromEnv(env, 'FASTPATH_KMS_KEYSTORE_PASSWORD'),
    passwordFile: settings.keystore.passwordFile,
    dataDir: settings.dataDir,
    keystoreFile: settings.keystore.file,
  });
  let next: Redacted<Buffer>;
  if (newPasswordFile !== undefined) {
    next = await readPasswordFile(newPasswordFile, '--new-password-file');
  } else if (
    env.FASTPATH_KMS_KEYSTORE_NEW_PASSWORD !== undefined &&
    env.FASTPATH_KMS_KEYSTORE_NEW_PASSWORD !== ''
  ) {
    next = new Redacted(Buffer.from(env.FASTPATH_KMS_KEYSTORE_NEW_PASSWORD, 'utf8'));
  } else {
    throw new KmsConfigError(
      '--new-password-file',
      'rekey needs --new-password-file or FASTPATH_KMS_KEYSTORE_NEW_PASSWORD',
    );
  }
  await rekeyKeystore(settings.keystore.file, current.password, next);
  io.stdout(`re-encrypted the keystore ${settings.keystore.file} under the new password\n`);
  if (current.source === 'generated-file') {
    // The server finds its password there when none is given: keep it current.
    await writeFileAtomic(
      join(settings.dataDir, GENERATED_PASSWORD_FILE),
      Buffer.concat([next.unwrap(), Buffer.from('\n')]),
    );
    io.stdout(`updated the password file ${current.file}\n`);
  }
  return 0;
}

function serverOptions(
  options: CliOptions,
  env: Readonly<Record<string, string | undefined>>,
  logger: KmsLogger,
): KmsServerOptions {
  const requestLogLevel = options.logLevel ?? env.FASTPATH_KMS_LOG_LEVEL ?? 'silent';
  if (!(LOG_LEVELS as readonly string[]).includes(requestLogLevel)) {
    throw new KmsConfigError(
      '--log-level',
      `expected one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(requestLogLevel)}`,
    );
  }
  const configDir = options.configDir ?? env.FASTPATH_KMS_CONFIG_DIR;
  const password = passwordFromEnv(env, 'FASTPATH_KMS_KEYSTORE_PASSWORD');
  return {
    ...(configDir === undefined ? {} : { configDir }),
    ...(password === undefined ? {} : { keystorePassword: password }),
    logger,
    requestLogLevel: requestLogLevel as KmsServerOptions['requestLogLevel'] & string,
    env,
  };
}

/** Resolves when a stop signal arrives or the IPC parent goes away. Later signals are ignored. */
function stopRequested(logger: KmsLogger): Promise<string> {
  return new Promise((resolve) => {
    let requested = false;
    const request = (why: string): void => {
      if (requested) {
        logger.info(`${why}: already stopping`);
        return;
      }
      requested = true;
      logger.info(`${why}: stopping`);
      resolve(why);
    };
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => request(signal));
    if (process.send !== undefined && !cluster.isWorker)
      process.on('disconnect', () => request('parent gone'));
  });
}

function tellParent(message: KmsReadyMessage): void {
  if (process.send !== undefined && !cluster.isWorker) process.send(message);
}

async function serve(
  options: CliOptions,
  env: Readonly<Record<string, string | undefined>>,
  logger: KmsLogger,
): Promise<number> {
  if (cluster.isWorker && env[WORKER_ENV] === '1') {
    return serveWorker(options, env, prefixLogger(logger, `worker ${cluster.worker?.id ?? '?'}`));
  }
  const layers = layersOf(options, env);
  const base = serverOptions(options, env, logger);
  const { settings } = loadKmsSettings({ configDir: base.configDir, layers, env });
  // Before anything is created in the data directory: a start that cannot listen leaves no trace.
  await assertCanListen(settings.http.host, settings.http.port);
  const stop = stopRequested(logger);
  if (settings.workers <= 1) {
    const server = await startKmsServer(base, { extraLayers: layers });
    const url = await server.listen();
    tellParent({ type: 'fastpath-kms:ready', url, pid: process.pid, workers: 1 });
    await stop;
    await server.close();
    return 0;
  }
  // Cluster: the primary owns the keystore; workers serve.
  const resolved = await resolveKeystorePassword({
    password: base.keystorePassword === undefined ? undefined : Redacted.of(base.keystorePassword),
    passwordFile: settings.keystore.passwordFile,
    dataDir: settings.dataDir,
    keystoreFile: settings.keystore.file,
  });
  if (resolved.source === 'generated') {
    logger.info(
      `no keystore password was given: created a random one in ${resolved.file} (readable only by its owner)`,
    );
  }
  if (resolved.warning) logger.warn(resolved.warning);
  const store = await FileKeyStore.open({ file: settings.keystore.file, password: resolved.password });
  const primary = await runClusterPrimary({
    workers: settings.workers,
    store,
    signatureSecret: settings.auth.signatureSecret ?? new Redacted(generateSecureRandom(32)),
    logger,
    shutdownTimeoutMs: settings.http.shutdownTimeoutMs,
  }).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  logger.info(`KMS cluster of ${settings.workers} workers listening on ${primary.url}/kms/v1`);
  tellParent({ type: 'fastpath-kms:ready', url: primary.url, pid: process.pid, workers: settings.workers });
  await Promise.race([stop, primary.done]);
  await primary.stop();
  return 0;
}

async function serveWorker(
  options: CliOptions,
  env: Readonly<Record<string, string | undefined>>,
  logger: KmsLogger,
): Promise<number> {
  const send = (message: WorkerMessage): void => {
    process.send?.(message);
  };
  // Set once started; the message handlers run before that too.
  const live: { replica?: ReplicaKeyStore; server?: KmsServer } = {};
  const metricsWaiters = new Map<number, (result: { contentType: string; body: string } | Error) => void>();
  let nextMetricsId = 1;
  let resolveInit!: (message: Extract<PrimaryMessage, { t: 'kms:init' }>) => void;
  const init = new Promise<Extract<PrimaryMessage, { t: 'kms:init' }>>((resolve) => (resolveInit = resolve));
  let resolveStop!: () => void;
  const stop = new Promise<void>((resolve) => (resolveStop = resolve));

  process.on('message', (raw: unknown) => {
    if (!isKmsMessage(raw)) return;
    const message = raw as PrimaryMessage;
    if (message.t === 'kms:init') return resolveInit(message);
    if (live.replica?.receive(message)) return;
    if (message.t === 'kms:collect') {
      void (live.server?.metrics.registry.getMetricsAsJSON() ?? Promise.resolve([])).then((metrics) =>
        send({ t: 'kms:collected', id: message.id, metrics }),
      );
    } else if (message.t === 'kms:metrics-result') {
      const waiter = metricsWaiters.get(message.id);
      metricsWaiters.delete(message.id);
      waiter?.(
        message.error !== undefined
          ? new Error(message.error)
          : { contentType: message.contentType ?? 'text/plain', body: message.text ?? '' },
      );
    } else if (message.t === 'kms:shutdown') {
      resolveStop();
    }
  });
  process.on('disconnect', () => {
    live.replica?.primaryLost();
    resolveStop();
  });
  // The primary orchestrates stopping; a terminal's Ctrl-C reaches every process of the group.
  process.on('SIGINT', () => undefined);
  process.on('SIGTERM', () => resolveStop());

  send({ t: 'kms:hello' });
  const initial = await init;
  const replica = new ReplicaKeyStore(initial.state, send);
  live.replica = replica;
  const base = serverOptions(options, env, logger);
  const server = await startKmsServer(
    { ...base, signatureSecret: new Redacted(Buffer.from(initial.signatureSecret, 'base64')) },
    {
      keyStore: replica,
      extraLayers: layersOf(options, env),
      metricsText: () =>
        new Promise((resolve, reject) => {
          const id = nextMetricsId++;
          metricsWaiters.set(id, (result) => (result instanceof Error ? reject(result) : resolve(result)));
          send({ t: 'kms:metrics', id });
        }),
    },
  );
  live.server = server;
  const url = await server.listen();
  send({ t: 'kms:listening', host: server.address?.host ?? '', port: server.address?.port ?? 0, url });
  await stop;
  await server.close();
  return 0;
}
