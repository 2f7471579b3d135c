/**
 * `@fastpath/kms-server/testing`: helpers that run the KMS as a separate process (tests, benchmarks).
 *
 * @module @fastpath/kms-server/testing
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Redacted } from '@fastpath/core';
import { AUTH_COOKIE_NAME, AuthCookie, SIMPLE_AUTH_TYPE } from './internal/auth/auth-cookie.js';
import { SignerSecrets } from './internal/auth/signer-secrets.js';
import type { KmsReadyMessage } from './internal/cli/run-cli.js';
import { zooKeeperKerberos } from './internal/kerberos/zookeeper-kerberos.js';
import type { ZooKeeperSaslOptions } from '@fastpath/zookeeper-client';

/** Options of {@link startKmsProcess}. */
export interface KmsProcessOptions {
  /** Extra `fastpath-kms` arguments (`--workers 2`, `-D key=value`, …). Default: none. */
  args?: readonly string[];
  /** Environment of the process, on top of this process's. Default: none. */
  env?: Readonly<Record<string, string>>;
  /** `--data-dir`. Default: a fresh temporary directory, deleted by `stop()`. */
  dataDir?: string;
  /** `--config-dir`. Default: none. */
  configDir?: string;
  /** `--host`. Default: `127.0.0.1`. */
  host?: string;
  /** `--port`. Default: 0 (a free port). */
  port?: number;
  /** Bound for the server to report that it serves, in ms. Default: 60 000. */
  startTimeoutMs?: number;
  /** Bound for a graceful stop before SIGKILL, in ms. Default: 30 000. */
  stopTimeoutMs?: number;
  /** The package directory (holding `src/cli-main.ts` or `dist/cli-main.js`). Default: resolved from the working directory. */
  packageDir?: string;
}

/** A KMS running in a child process. */
export interface KmsProcess extends AsyncDisposable {
  /** `http://127.0.0.1:<port>` (the REST API is under `/kms/v1`). */
  readonly url: string;
  /** Pid of the `fastpath-kms` process (the cluster primary when it runs workers). */
  readonly pid: number;
  /** Processes serving the port: 1, or the `--workers` count. */
  readonly workers: number;
  /** The `--data-dir` it runs with: the one given, or the temporary directory `stop()` removes. */
  readonly dataDir: string;
  /** The child process itself, for signals and exit events; prefer `stop()` and `kill()`. */
  readonly child: ChildProcess;
  /** Everything the process wrote to stderr (its log) so far. */
  output(): string;
  /** SIGTERM and wait for the exit (SIGKILL after `stopTimeoutMs`); removes a temporary data dir. */
  stop(): Promise<{
    /** Exit code, `null` when a signal ended it (0 after a clean SIGTERM shutdown). */
    code: number | null;
    /** The signal that ended it (`SIGKILL` past `stopTimeoutMs`), else `null`. */
    signal: NodeJS.Signals | null;
  }>;
  /** SIGKILL and wait for the exit (the data dir is kept, for restart tests). */
  kill(): Promise<void>;
}

/** Where `@fastpath/kms-server` lives, resolved as a dependency of the working directory. */
function resolvePackageDir(): string {
  const require = createRequire(join(process.cwd(), 'noop.js'));
  return dirname(require.resolve('@fastpath/kms-server/package.json'));
}

/**
 * The command that runs `fastpath-kms` in a child: the built CLI when `dist/` exists, else the
 * TypeScript sources through tsx (a workspace without a build).
 */
export function kmsCommand(packageDir: string = resolvePackageDir()): {
  /** The executable: this process's Node (`process.execPath`). */
  command: string;
  /**
   * Its arguments: the built `dist/cli-main.js`, or tsx's loader and `src/cli-main.ts`; append
   * the CLI's own.
   */
  args: string[];
  /** The directory to run it in: `packageDir`. */
  cwd: string;
} {
  const built = join(packageDir, 'dist', 'cli-main.js');
  if (existsSync(built)) return { command: process.execPath, args: [built], cwd: packageDir };
  return {
    command: process.execPath,
    args: ['--import', 'tsx', '--conditions', 'development', join(packageDir, 'src', 'cli-main.ts')],
    cwd: packageDir,
  };
}

/**
 * Starts `fastpath-kms` in a child process and resolves once it serves (it reports its URL over
 * an IPC channel). The child stops by itself if this process goes away.
 *
 * @example
 * ```ts
 * import { startKmsProcess } from '@fastpath/kms-server/testing';
 *
 * await using kms = await startKmsProcess({ args: ['--workers', '2', '-D', 'hadoop.kms.authentication.zk-dt-secret-manager.enable=true'] });
 * const info = await (await fetch(`${kms.url}/build-info`)).json();
 * ```
 */
export async function startKmsProcess(options: KmsProcessOptions = {}): Promise<KmsProcess> {
  const ownDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'fastpath-kms-'));
  const { command, args, cwd } = kmsCommand(options.packageDir);
  const fullArgs = [
    ...args,
    '--host',
    options.host ?? '127.0.0.1',
    '--port',
    String(options.port ?? 0),
    '--data-dir',
    dataDir,
    ...(options.configDir === undefined ? [] : ['--config-dir', options.configDir]),
    ...(options.args ?? []),
  ];
  const child = spawn(command, fullArgs, {
    cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );

  let ready: KmsReadyMessage;
  try {
    ready = await new Promise<KmsReadyMessage>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(`fastpath-kms did not start within ${options.startTimeoutMs ?? 60_000} ms:\n${stderr}`),
          ),
        options.startTimeoutMs ?? 60_000,
      );
      child.on('message', (message: unknown) => {
        if ((message as KmsReadyMessage | undefined)?.type === 'fastpath-kms:ready') {
          clearTimeout(timer);
          resolve(message as KmsReadyMessage);
        }
      });
      void exited.then(({ code, signal }) => {
        clearTimeout(timer);
        reject(new Error(`fastpath-kms exited (${signal ?? `code ${code}`}) before serving:\n${stderr}`));
      });
    });
  } catch (error) {
    child.kill('SIGKILL');
    await exited;
    if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }

  let stopping: Promise<{ code: number | null; signal: NodeJS.Signals | null }> | undefined;
  const stop = (): Promise<{ code: number | null; signal: NodeJS.Signals | null }> => {
    stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), options.stopTimeoutMs ?? 30_000);
      const result = await exited;
      clearTimeout(timer);
      if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
      return result;
    })();
    return stopping;
  };

  return {
    url: ready.url,
    pid: ready.pid,
    workers: ready.workers,
    dataDir,
    child,
    output: () => stderr,
    stop,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    async [Symbol.asyncDispose]() {
      await stop();
    },
  };
}
export type { KmsReadyMessage } from './internal/cli/run-cli.js';

/** A cookie to forge with {@link signHadoopAuthCookie}. */
export interface ForgedCookie {
  /** The signer secret (as read from the fleet's znode with {@link readSignerSecretsZnode}). */
  secret: Buffer;
  /** `u=`: the short name. */
  user: string;
  /** `p=`: the principal. Default: `user`. */
  principal?: string;
  /** `t=`: `simple-dt` (default) or `kerberos-dt`. */
  type?: string;
  /** `e=`: expiry, ms since the epoch. */
  expiresMs: number;
}

/**
 * A `Cookie` header carrying a `hadoop.auth` cookie signed with a given secret, the way every
 * fastpath and Hadoop KMS signs one: tests of a fleet sign with secrets of known age (current,
 * previous, older) and check who accepts them.
 *
 * @example
 * ```ts
 * const { current } = readSignerSecretsZnode((await zkGetData(client, path)).data);
 * await fetch(`${url}/kms/v1/keys/names`, { headers: { cookie: signHadoopAuthCookie({ secret: current, user: 'alice', expiresMs: Date.now() + 60_000 }) } });
 * ```
 */
export function signHadoopAuthCookie(cookie: ForgedCookie): string {
  const jar = new AuthCookie({
    secrets: SignerSecrets.fixed(new Redacted(cookie.secret)),
    validityMs: 1,
    type: cookie.type ?? SIMPLE_AUTH_TYPE,
  });
  const signed = jar.sign(cookie.user, cookie.principal ?? cookie.user, cookie.expiresMs);
  if (signed === undefined) throw new Error(`${cookie.user} cannot travel in a cookie`);
  return `${AUTH_COOKIE_NAME}="${signed.value}"`;
}

/** The secrets and schedule of a fleet's signer secrets znode (Hadoop's `ZKSignerSecretProvider` layout). */
export {
  decodeZkSignerData as readSignerSecretsZnode,
  type ZkSignerData as SignerSecretsZnode,
} from './internal/auth/zk-signer-data.js';

/**
 * The `sasl` option of `connectZooKeeper` that the KMS's ZooKeeper clients use with Hadoop's
 * `sasl` auth type: Kerberos (GSSAPI) logged in from `keytab` as `principal` (with its realm), to
 * servers named `<serviceName>/<host>`. For tests that read or write a Kerberized fleet's znodes
 * as the KMS does (the znodes are for `sasl:<first component of the principal>` only).
 *
 * @example
 * ```ts
 * const client = await connectZooKeeper(zk.connectString, {
 *   sasl: kmsZooKeeperSasl({ keytab, principal: 'kms/localhost@EXAMPLE.COM' }),
 * });
 * ```
 */
export function kmsZooKeeperSasl(options: {
  /** The keytab to log in from. */
  keytab: string;
  /** The principal to log in as, with its realm. */
  principal: string;
  /** Service part of the servers' principal. Default `zookeeper`. */
  serviceName?: string;
}): ZooKeeperSaslOptions {
  return zooKeeperKerberos({
    keytab: options.keytab,
    principal: options.principal,
    serviceName: options.serviceName ?? 'zookeeper',
  });
}
