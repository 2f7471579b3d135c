import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { trackChild, type ProcessExit } from '@fastpath/jvm-fixture';

/** The launcher JVM: stdin and stdout carry its line protocol, stderr goes to the log file. */
export interface LauncherProcess {
  readonly pid: number;
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly exited: Promise<ProcessExit>;
  exit(): ProcessExit | undefined;
  signal(signal: NodeJS.Signals): boolean;
  /** Whether the pipes and the child keep this process's event loop alive (only while a call is awaited). */
  hold(held: boolean): void;
}

type Child = ChildProcessByStdio<Writable, Readable, null>;

/**
 * Spawns `java args` with stdin/stdout pipes and stderr appended to `logFd`, registered with
 * jvm-fixture's process registry: SIGKILLed when this process exits, and by its watchdog (which
 * then deletes `cleanupDir`) when this process dies abruptly.
 */
export function spawnLauncher(
  javaPath: string,
  args: readonly string[],
  options: { cwd: string; logFd: number; cleanupDir: string },
): LauncherProcess {
  // A file descriptor as stderr is outside spawn's typed overloads; stdin and stdout are pipes.
  const child = spawn(javaPath, args, { cwd: options.cwd, stdio: ['pipe', 'pipe', options.logFd] }) as Child;
  let exitInfo: ProcessExit | undefined;
  const exited = trackChild(child, options.cleanupDir, (info) => {
    exitInfo = info;
  });
  child.stdin.on('error', () => undefined); // EPIPE once the JVM is gone; its exit says why
  const sockets = [child.stdin, child.stdout] as unknown as Array<{ ref?: () => void; unref?: () => void }>;
  const hold = (held: boolean): void => {
    for (const socket of sockets) (held ? socket.ref : socket.unref)?.call(socket);
    if (held) child.ref();
    else child.unref();
  };
  hold(false);
  return {
    pid: child.pid ?? -1,
    stdin: child.stdin,
    stdout: child.stdout,
    exited,
    exit: () => exitInfo,
    hold,
    signal(signal) {
      if (exitInfo !== undefined || child.pid === undefined) return false;
      try {
        return child.kill(signal);
      } catch {
        return false;
      }
    },
  };
}
