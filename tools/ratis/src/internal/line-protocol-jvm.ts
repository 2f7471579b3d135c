import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { logTail, signalChild, trackChild, type ProcessExit } from '@fastpath/jvm-fixture';
import { RatisFixtureTimeoutError, RatisJvmExitedError } from '../ratis-fixture-errors.js';

/** The JVM's first line once it serves: `{"event":"ready", …}` (the launchers' own fields). */
export type ReadyLine = Readonly<Record<string, unknown>>;

/** An answer to a command: `ok`, and what the command reports. */
export type JvmAnswer = Readonly<Record<string, unknown>> & {
  readonly ok: boolean;
  readonly message?: string;
};

/**
 * A JVM of the fixture (a peer, or the Java client driver) and its line protocol: commands
 * `<n> <op> [args]` on stdin, one JSON answer per line on stdout carrying `"id": n`.
 */
export interface LineProtocolJvm {
  /** What the errors call it: a peer id, or `Java client`. */
  readonly name: string;
  readonly pid: number;
  readonly logFile: string;
  /** Settles with the ready line, or rejects (`RatisJvmExitedError`) if the JVM fails or exits first. */
  readonly ready: Promise<ReadyLine>;
  readonly exited: Promise<ProcessExit>;
  exit(): ProcessExit | undefined;
  signal(signal: NodeJS.Signals): boolean;
  /** SIGKILL (a paused JVM dies of it too); resolves once the JVM is gone. */
  kill(): Promise<ProcessExit>;
  /**
   * Sends `op args…` and resolves with the answer; rejects with `RatisJvmExitedError` if the JVM
   * exits first, or with `RatisFixtureTimeoutError` after `timeoutMs` (a paused JVM answers
   * nothing until resumed; a late answer is then dropped).
   */
  command(timeoutMs: number, op: string, ...args: string[]): Promise<JvmAnswer>;
}

type Child = ChildProcessByStdio<Writable, Readable, null>;

interface Waiter {
  resolve(answer: JvmAnswer): void;
  reject(err: Error): void;
}

/**
 * Starts `java args`: stdin/stdout carry the launcher's line protocol, stderr is
 * appended to `logFile`. The JVM is registered with jvm-fixture's process registry (SIGKILLed when
 * this process exits, and by its watchdog, which then deletes `cleanupDir`, when this process
 * dies abruptly). Its pipes do not keep this process alive while no command is waiting.
 */
export function spawnLineProtocolJvm(
  name: string,
  javaPath: string,
  args: readonly string[],
  options: { cwd: string; logFile: string; cleanupDir: string },
): LineProtocolJvm {
  const logFd = openSync(options.logFile, 'a');
  let child: Child;
  try {
    child = spawn(javaPath, args, { cwd: options.cwd, stdio: ['pipe', 'pipe', logFd] }) as Child;
  } finally {
    closeSync(logFd);
  }
  let exitInfo: ProcessExit | undefined;
  const exited = trackChild(child, options.cleanupDir, (info) => {
    exitInfo = info;
  });
  child.stdin.on('error', () => undefined); // EPIPE once the JVM is gone; its exit says why

  const waiting = new Map<number, Waiter>();
  let nextId = 1;
  const refs = (held: boolean): void => {
    for (const s of [child.stdin, child.stdout] as unknown as Array<{
      ref?: () => void;
      unref?: () => void;
    }>) {
      (held ? s.ref : s.unref)?.call(s);
    }
    if (held) child.ref();
    else child.unref();
  };
  let readyWaiter: { resolve(line: ReadyLine): void; reject(err: Error): void } | undefined;
  const ready = new Promise<ReadyLine>((resolve, reject) => {
    readyWaiter = { resolve, reject };
  });
  ready.catch(() => undefined); // observed by the caller; never an unhandled rejection here
  refs(true); // held until the ready line: a start is always awaited

  const exitedError = async (what: string): Promise<RatisJvmExitedError> => {
    const exit = await exited;
    return new RatisJvmExitedError(
      name,
      `exited (${exit.signal ?? `code ${String(exit.code)}`}) ${what}`,
      exit.code,
      exit.signal,
      await logTail(options.logFile),
    );
  };

  createInterface({ input: child.stdout }).on('line', (line) => {
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return; // the launcher prints only JSON on stdout
    }
    if (message['event'] === 'ready') {
      readyWaiter?.resolve(message);
      readyWaiter = undefined;
      refs(waiting.size > 0);
      return;
    }
    if (message['event'] === 'failed') {
      const failure = String(message['message']);
      const waiter = readyWaiter;
      readyWaiter = undefined;
      void logTail(options.logFile).then((tail) =>
        waiter?.reject(new RatisJvmExitedError(name, `failed to start: ${failure}`, 1, null, tail)),
      );
      return;
    }
    const id = typeof message['id'] === 'number' ? message['id'] : -1;
    const waiter = waiting.get(id);
    if (waiter === undefined) return;
    waiting.delete(id);
    if (waiting.size === 0 && readyWaiter === undefined) refs(false);
    waiter.resolve(message as JvmAnswer);
  });
  void exited.then(async () => {
    if (readyWaiter !== undefined) {
      const waiter = readyWaiter;
      readyWaiter = undefined;
      waiter.reject(await exitedError('before it served'));
    }
    const pending = [...waiting.values()];
    waiting.clear();
    if (pending.length > 0) {
      const err = await exitedError('while a command was waiting');
      for (const waiter of pending) waiter.reject(err);
    }
  });

  return {
    name,
    pid: child.pid ?? -1,
    logFile: options.logFile,
    ready,
    exited,
    exit: () => exitInfo,
    signal: (signal) => signalChild(child, exitInfo !== undefined, signal),
    async kill() {
      if (exitInfo !== undefined) return exitInfo;
      refs(true); // an unref'd child's exit would not keep this process waiting for it
      try {
        child.kill('SIGKILL');
      } catch {
        // gone already: exited settles
      }
      return exited;
    },
    async command(timeoutMs, op, ...args) {
      if (exitInfo !== undefined) throw await exitedError(`before the command ${op}`);
      const id = nextId++;
      let timer: NodeJS.Timeout | undefined;
      try {
        return await new Promise<JvmAnswer>((resolve, reject) => {
          waiting.set(id, { resolve, reject });
          refs(true);
          timer = setTimeout(() => {
            waiting.delete(id);
            if (waiting.size === 0 && readyWaiter === undefined) refs(false);
            reject(new RatisFixtureTimeoutError(`${name} to answer ${op}`, timeoutMs));
          }, timeoutMs);
          child.stdin.write(`${[String(id), op, ...args].join(' ')}\n`);
        });
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
