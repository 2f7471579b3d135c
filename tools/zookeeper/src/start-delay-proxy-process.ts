import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { checkInteger, checkNonEmptyString, checkNumber } from '@fastpath/core';
import { logTail, trackChild, type ProcessExit } from '@fastpath/jvm-fixture';
import type { DelayProxyStats } from './delay-proxy.js';
import { DelayProxyExitedError, ZooKeeperWaitTimeoutError } from './zookeeper-errors.js';

/** Options of {@link startDelayProxyProcess}; defaults in {@link DEFAULT_DELAY_PROXY_PROCESS_OPTIONS}. */
export interface DelayProxyProcessOptions {
  /** Where to forward: `host:port[,host:port...]` (a fixture's `connectString`). Required. */
  target: string;
  /** One-way delay added in each direction, ms. Default 0. */
  delayMs?: number;
  /** The process's stdout and stderr are appended here. Default: discarded. */
  logFile?: string;
  /** Bound for the process to listen, ms. Default 20000. */
  startTimeoutMs?: number;
  /** Bound for one `stats()` answer, ms. Default 5000. */
  statsTimeoutMs?: number;
}

export const DEFAULT_DELAY_PROXY_PROCESS_OPTIONS = Object.freeze({
  delayMs: 0,
  startTimeoutMs: 20_000,
  statsTimeoutMs: 5000,
});

/** A delay proxy running in its own process. */
export interface DelayProxyProcess extends AsyncDisposable {
  /** Its process id: read its CPU from `/proc/<pid>/stat`. */
  readonly pid: number;
  readonly connectString: string;
  readonly delayMs: number;
  /** The proxy's own counters, asked over the IPC channel. */
  stats(): Promise<DelayProxyStats>;
  /** Closes the channel (the process then stops), SIGKILL if it has not exited in 5 s. Idempotent. */
  close(): Promise<void>;
}

/** Messages of the proxy process to its parent. */
export type DelayProxyMessage =
  | { kind: 'delay-proxy-listening'; connectString: string }
  | { kind: 'delay-proxy-stats'; id: number; stats: DelayProxyStats };
/** Requests of the parent. */
export type DelayProxyRequest = { kind: 'delay-proxy-stats'; id: number };

const EXIT_WAIT_MS = 5000;

/**
 * Starts `startDelayProxy` in a fresh Node process (the package's `delay-proxy-main.ts` through
 * tsx) and resolves once it listens. The process ends when its parent closes it or goes away; it
 * is also killed when this process exits.
 *
 * @throws DelayProxyExitedError when the process exits before it listens (a bad option, say)
 * @throws ZooKeeperWaitTimeoutError when it does not listen within `startTimeoutMs`
 * @example
 * ```ts
 * await using zk = await startZooKeeper();
 * await using proxy = await startDelayProxyProcess({ target: zk.connectString, delayMs: 0.5 });
 * const client = await connectZooKeeper(proxy.connectString);
 * ```
 */
export async function startDelayProxyProcess(options: DelayProxyProcessOptions): Promise<DelayProxyProcess> {
  const target = checkNonEmptyString('target', options.target);
  const defaults = DEFAULT_DELAY_PROXY_PROCESS_OPTIONS;
  const delayMs = checkNumber('delayMs', options.delayMs ?? defaults.delayMs, 0, 10_000);
  const startTimeoutMs = checkInteger('startTimeoutMs', options.startTimeoutMs ?? defaults.startTimeoutMs, 1);
  const statsTimeoutMs = checkInteger('statsTimeoutMs', options.statsTimeoutMs ?? defaults.statsTimeoutMs, 1);
  // Found through the workspace link, so that this works from ESM (tsx) and jest's CommonJS build.
  const packageDir = dirname(
    createRequire(join(process.cwd(), 'noop.js')).resolve('@fastpath/zookeeper-fixture/package.json'),
  );
  const fd = options.logFile === undefined ? 'ignore' : openSync(options.logFile, 'a');
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--conditions',
      'development',
      join(packageDir, 'src', 'delay-proxy-main.ts'),
      '--target',
      target,
      '--delay-ms',
      String(delayMs),
    ],
    { cwd: packageDir, stdio: ['ignore', fd, fd, 'ipc'] },
  );
  if (typeof fd === 'number') closeSync(fd);
  let exit: ProcessExit | undefined;
  const exited = trackChild(child).then((info) => (exit = info));
  const kill = async (): Promise<void> => {
    child.kill('SIGKILL');
    await exited;
  };

  const listening = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new ZooKeeperWaitTimeoutError('the delay proxy to listen', startTimeoutMs)),
      startTimeoutMs,
    );
    child.on('message', (message: DelayProxyMessage) => {
      if (message.kind !== 'delay-proxy-listening') return;
      clearTimeout(timer);
      resolve(message.connectString);
    });
    void exited.then(async (info) => {
      clearTimeout(timer);
      reject(
        new DelayProxyExitedError(
          info.code,
          info.signal,
          options.logFile ? await logTail(options.logFile) : '',
        ),
      );
    });
  }).catch(async (err: unknown) => {
    await kill();
    throw err;
  });

  let nextId = 0;
  const waiting = new Map<number, (stats: DelayProxyStats) => void>();
  child.on('message', (message: DelayProxyMessage) => {
    if (message.kind === 'delay-proxy-stats') waiting.get(message.id)?.(message.stats);
  });
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      if (exit !== undefined) return;
      if (child.connected) child.disconnect();
      const timer = setTimeout(() => child.kill('SIGKILL'), EXIT_WAIT_MS);
      await exited;
      clearTimeout(timer);
    })());
  return {
    pid: child.pid ?? -1,
    connectString: listening,
    delayMs,
    stats: () =>
      new Promise<DelayProxyStats>((resolve, reject) => {
        const id = nextId++;
        const timer = setTimeout(() => {
          waiting.delete(id);
          reject(new ZooKeeperWaitTimeoutError('the delay proxy to answer a stats request', statsTimeoutMs));
        }, statsTimeoutMs);
        waiting.set(id, (stats) => {
          clearTimeout(timer);
          waiting.delete(id);
          resolve(stats);
        });
        const request: DelayProxyRequest = { kind: 'delay-proxy-stats', id };
        if (!child.connected || exit !== undefined) {
          clearTimeout(timer);
          waiting.delete(id);
          reject(new DelayProxyExitedError(exit?.code ?? null, exit?.signal ?? null, ''));
          return;
        }
        child.send(request);
      }),
    close,
    [Symbol.asyncDispose]: close,
  };
}
