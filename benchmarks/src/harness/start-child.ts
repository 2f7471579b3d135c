import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import path from 'node:path';
import { BenchmarkProcessError } from './benchmark-errors.js';
import { isReplyMessage, PendingCalls, TS_EXEC_ARGV, type CallOptions } from './call-protocol.js';

/** Options of {@link startChild}. */
export interface StartChildOptions {
  /** Name in errors and logs. Default: the module's file name. */
  name?: string;
  /** Command-line arguments after the module path. Default: none. */
  args?: readonly string[];
  /** Added to the parent's environment. Default: none. */
  env?: Readonly<Record<string, string>>;
  /** Working directory; must be inside the repository so `--import tsx` resolves. Default: the parent's. */
  cwd?: string;
  /** Append the child's stdout and stderr here (e.g. `results.logPath('server-1')`). Default: not kept. */
  logFile?: string;
  /** Called with the exact command line before spawning, e.g. `(c) => results.recordCommand(c)`. */
  onSpawn?: (commandLine: string) => void;
  /** How long {@link ChildHandle.close} waits for a clean exit before SIGTERM, then SIGKILL, in ms. Default: 5000. */
  exitTimeoutMs?: number;
}

export const DEFAULT_START_CHILD_OPTIONS = Object.freeze({ exitTimeoutMs: 5000 });

/** A child process running a TypeScript module. */
export interface ChildHandle<I, O> {
  readonly name: string;
  readonly process: ChildProcess;
  readonly pid: number | undefined;
  readonly commandLine: string;
  /** Settles when a module that called {@link serveCalls} is serving; rejects if the process dies first. */
  readonly ready: Promise<void>;
  /** Settles when the process has exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The last few KiB the process wrote to stderr, for error messages. */
  stderrTail(): string;
  /** Sends one input to a module that called {@link serveCalls}. */
  call(input: I, options?: CallOptions): Promise<O>;
  /** Resolves with the first IPC message (other than call replies) that `predicate` accepts. */
  waitForMessage<M = unknown>(predicate: (message: unknown) => boolean, timeoutMs: number): Promise<M>;
  /** Disconnects, waits up to `exitTimeoutMs`, then SIGTERM, then SIGKILL. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

const STDERR_TAIL_BYTES = 8192;

/** Quotes a word for a POSIX shell when it needs it, so commands.txt can be pasted. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_\-+=.,/:@%]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * Starts `modulePath` (TypeScript, absolute) in a child process:
 * `process.execPath --import tsx --conditions development <module> ...args`, with an IPC channel
 * using structured clone. Use it for servers and load generators that must not share a process
 * with the code they measure.
 *
 * @example
 * ```ts
 * await using server = startChild(ctx.sourcePath('scenarios/kms-http/server-main.ts'), {
 *   args: ['--port', '0'],
 *   logFile: ctx.results.logPath('server'),
 *   onSpawn: (c) => ctx.results.recordCommand(c),
 * });
 * const { port } = await server.waitForMessage<{ port: number }>((m) => (m as { port?: number }).port !== undefined, 10_000);
 * ```
 */
export function startChild<I, O>(modulePath: string, options: StartChildOptions = {}): ChildHandle<I, O> {
  const absolute = path.resolve(modulePath);
  const name = options.name ?? path.basename(absolute);
  const argv = [...TS_EXEC_ARGV, absolute, ...(options.args ?? [])];
  const commandLine = [process.execPath, ...argv].map(shellQuote).join(' ');
  options.onSpawn?.(commandLine);
  const child = spawn(process.execPath, argv, {
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    serialization: 'advanced',
    env: { ...process.env, ...options.env },
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  const where = `child ${name} (pid ${child.pid ?? '?'})`;
  const pending = new PendingCalls(where);
  let log: WriteStream | undefined;
  if (options.logFile) {
    log = createWriteStream(options.logFile, { flags: 'a' });
    log.on('error', () => undefined);
  }
  let tail = '';
  child.stdout?.on('data', (chunk: Buffer) => log?.write(chunk));
  child.stderr?.on('data', (chunk: Buffer) => {
    log?.write(chunk);
    tail = (tail + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES);
  });
  const listeners = new Set<(message: unknown) => void>();
  let markReady!: () => void;
  let failReady!: (err: unknown) => void;
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    failReady = reject;
  });
  ready.catch(() => undefined);
  child.on('message', (message: unknown) => {
    if (isReplyMessage(message)) {
      if (message.kind === 'bench-ready') markReady();
      else pending.settle(message);
      return;
    }
    for (const l of [...listeners]) l(message);
  });
  let closing = false;
  let exitInfo: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    const finish = (code: number | null, signal: NodeJS.Signals | null): void => {
      if (exitInfo) return;
      exitInfo = { code, signal };
      const how = signal ? `signal ${signal}` : `code ${code}`;
      const err = new BenchmarkProcessError(
        closing
          ? `${where} was closed`
          : `${where} exited with ${how} before answering${tail ? `; stderr ends with:\n${tail.slice(-2000)}` : ''}`,
      );
      failReady(err);
      pending.failAll(err);
      // Let the log stream flush before anyone reads the file.
      if (log) log.end(() => resolve(exitInfo!));
      else resolve(exitInfo);
    };
    child.on('exit', finish);
    child.on('error', (cause) => {
      const err = new BenchmarkProcessError(`${where} could not start: ${String(cause)}`, { cause });
      failReady(err);
      pending.failAll(err);
      finish(null, null);
    });
  });
  const exitTimeoutMs = options.exitTimeoutMs ?? DEFAULT_START_CHILD_OPTIONS.exitTimeoutMs;
  const waitExit = (ms: number): Promise<boolean> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      void exited.then(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  const close = async (): Promise<void> => {
    closing = true;
    if (exitInfo) return;
    if (child.connected) child.disconnect();
    if (await waitExit(exitTimeoutMs)) return;
    child.kill('SIGTERM');
    if (await waitExit(2000)) return;
    child.kill('SIGKILL');
    await exited;
  };
  return {
    name,
    process: child,
    pid: child.pid,
    commandLine,
    ready,
    exited,
    stderrTail: () => tail,
    call: (input, callOptions) =>
      pending.call(
        (m) => {
          if (!child.connected) throw new BenchmarkProcessError(`${where} has no IPC channel`);
          child.send(m);
        },
        input,
        callOptions,
      ) as Promise<O>,
    waitForMessage: <M>(predicate: (message: unknown) => boolean, timeoutMs: number) =>
      new Promise<M>((resolve, reject) => {
        const timer = setTimeout(() => {
          listeners.delete(listener);
          reject(new BenchmarkProcessError(`${where}: no matching message within ${timeoutMs} ms`));
        }, timeoutMs);
        const listener = (message: unknown): void => {
          if (!predicate(message)) return;
          clearTimeout(timer);
          listeners.delete(listener);
          resolve(message as M);
        };
        listeners.add(listener);
        void exited.then(() => {
          if (!listeners.has(listener)) return;
          clearTimeout(timer);
          listeners.delete(listener);
          reject(new BenchmarkProcessError(`${where} exited while a message was awaited`));
        });
      }),
    close,
    [Symbol.asyncDispose]: close,
  };
}

/**
 * Runs the module once in a fresh child process: start, one call, close.
 *
 * @example
 * ```ts
 * const result = await runInChild<LoadInput, LoadResult>(loadGeneratorPath, input, {
 *   logFile: ctx.results.logPath('load-1'),
 *   onSpawn: (c) => ctx.results.recordCommand(c),
 * });
 * ```
 */
export async function runInChild<I, O>(
  modulePath: string,
  input: I,
  options: StartChildOptions & CallOptions = {},
): Promise<O> {
  const handle = startChild<I, O>(modulePath, options);
  try {
    return await handle.call(input, options);
  } finally {
    await handle.close();
  }
}
