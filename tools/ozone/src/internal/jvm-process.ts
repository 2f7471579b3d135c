// A JVM child that must never outlive this process. The same mechanism as the ZooKeeper
// fixture's process registry (exit-time SIGKILL plus a shell watchdog on a pipe), in the variant
// with stdin/stdout pipes the launcher's protocol needs. A shared JVM-fixture workspace is planned
// to own it for every JVM-backed tool; until then this is the one copy in tools/ozone.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { rmSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';

export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface JvmProcess {
  readonly pid: number;
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly exited: Promise<ProcessExit>;
  exit(): ProcessExit | undefined;
  signal(signal: NodeJS.Signals): boolean;
  /** Whether the pipes and the child keep this process's event loop alive (only while awaited). */
  hold(held: boolean): void;
}

type Child = ChildProcessByStdio<Writable, Readable, null>;

const live = new Map<Child, string>();
let hooked = false;

// Runs synchronously as the process exits; async work is impossible there.
function killEverything(): void {
  for (const [child, dir] of live) {
    try {
      child.kill('SIGKILL');
    } catch {
      // already gone
    }
    rmSync(dir, { recursive: true, force: true });
  }
  live.clear();
}

function updateHook(): void {
  const needed = live.size > 0;
  if (needed && !hooked) process.on('exit', killEverything);
  if (!needed && hooked) process.off('exit', killEverything);
  hooked = needed;
}

// Outlives a parent that dies without exit handlers (SIGKILL): it holds the read end of a pipe
// whose write end only this process has, so EOF means the parent is gone; "done" means a clean
// release. The JVM also stops by itself on EOF of its stdin; the watchdog covers a JVM that hangs.
const WATCHDOG_SCRIPT = 'read line; if [ "$line" != done ]; then kill -9 "$1" 2>/dev/null; rm -rf "$2"; fi';

function startWatchdog(pid: number, cleanupDir: string): Writable | undefined {
  try {
    const watchdog = spawn(
      '/bin/sh',
      ['-c', WATCHDOG_SCRIPT, 'fastpath-ozone-watchdog', String(pid), cleanupDir],
      {
        stdio: ['pipe', 'ignore', 'ignore'],
        detached: true,
      },
    );
    watchdog.on('error', () => undefined);
    watchdog.stdin.on('error', () => undefined);
    watchdog.unref();
    (watchdog.stdin as Writable & { unref?: () => void }).unref?.();
    return watchdog.stdin;
  } catch {
    return undefined;
  }
}

/**
 * Spawns `java args` with stdin and stdout as pipes and stderr appended to `logFd`. The child is
 * SIGKILLed on process exit and by a watchdog if this process dies abruptly; either then deletes
 * `cleanupDir`.
 */
export function spawnJvm(
  javaPath: string,
  args: readonly string[],
  options: { cwd: string; logFd: number; cleanupDir: string },
): JvmProcess {
  // A file descriptor as stderr is outside spawn's typed overloads; stdin and stdout are pipes.
  const child = spawn(javaPath, args, {
    cwd: options.cwd,
    stdio: ['pipe', 'pipe', options.logFd],
  }) as Child;
  let exitInfo: ProcessExit | undefined;
  let watchdog: Writable | undefined;
  const exited = new Promise<ProcessExit>((resolve) => {
    const finish = (info: ProcessExit): void => {
      if (exitInfo !== undefined) return;
      exitInfo = info;
      live.delete(child);
      updateHook();
      watchdog?.end('done\n');
      resolve(info);
    };
    child.on('exit', (code, signal) => finish({ code, signal }));
    child.on('error', () => finish({ code: null, signal: null }));
  });
  child.stdin.on('error', () => undefined); // EPIPE once the JVM is gone; the exit says why
  if (child.pid !== undefined) {
    live.set(child, options.cleanupDir);
    updateHook();
    watchdog = startWatchdog(child.pid, options.cleanupDir);
  }
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
