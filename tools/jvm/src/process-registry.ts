import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, rmSync } from 'node:fs';

/** How a process ended. */
export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** A spawned server process, known to the exit-time cleanup until it has exited. */
export interface ServerProcess {
  readonly pid: number;
  readonly exited: Promise<ProcessExit>;
  /** The exit once it happened, else `undefined`. */
  exit(): ProcessExit | undefined;
  /** Sends a signal; false when the process is already gone. */
  signal(signal: NodeJS.Signals): boolean;
}

/** Options of {@link spawnServer}. */
export interface SpawnServerOptions {
  readonly cwd: string;
  /** stdout and stderr are appended to this file. */
  readonly logFile: string;
  /** Deleted by the watchdog when this process dies abruptly (the server's scratch directory). */
  readonly cleanupDir: string;
  /** The environment of the child. Default: this process's environment. */
  readonly env?: NodeJS.ProcessEnv;
}

const liveChildren = new Set<ChildProcess>();
const liveDirs = new Set<string>();
let hooked = false;

// Runs synchronously as the process exits: async work is impossible there. A stopped (SIGSTOP)
// process still dies of SIGKILL, so no SIGCONT is needed.
function killEverything(): void {
  for (const child of liveChildren) {
    try {
      child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
  liveChildren.clear();
  // The children were only just sent SIGKILL: a write of theirs may still land (see the watchdog).
  for (const dir of liveDirs) rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
  liveDirs.clear();
}

function updateHook(): void {
  const needed = liveChildren.size > 0 || liveDirs.size > 0;
  if (needed && !hooked) process.on('exit', killEverything);
  if (!needed && hooked) process.off('exit', killEverything);
  hooked = needed;
}

/** Deletes `dir` when the process exits, unless {@link forgetDirectory} was called first. */
export function rememberDirectory(dir: string): void {
  liveDirs.add(dir);
  updateHook();
}

export function forgetDirectory(dir: string): void {
  liveDirs.delete(dir);
  updateHook();
}

// A watchdog outlives a parent that dies without running exit handlers (SIGKILL, a signal with
// no handler, a test runner that sandboxes `process`): it holds the read end of a pipe whose
// write end only this process has, so EOF means the parent is gone. "done" means a clean release.
// SIGKILL ends a process as each of its threads leaves the kernel, so a file creation or write in
// flight (a JVM has hundreds of threads, RocksDB and Ratis among them) can land in the directory
// after the kill, and one `rm -rf` then leaves it behind, not empty. The watchdog waits until the
// process is gone (a zombie is: nothing may reap it once its parent died) for up to 10 s, then
// deletes the directory again while anything still appears in it, for up to 5 s.
const WATCHDOG_SCRIPT = [
  'read line',
  '[ "$line" = done ] && exit 0',
  'kill -9 "$1" 2>/dev/null',
  '[ -n "$2" ] || exit 0',
  'n=0',
  'while [ $n -lt 100 ]; do',
  '  state=$(ps -o stat= -p "$1" 2>/dev/null) || break',
  '  case "$state" in Z*) break ;; esac',
  '  sleep 0.1; n=$((n + 1))',
  'done',
  'n=0',
  'while [ -e "$2" ] && [ $n -lt 50 ]; do rm -rf "$2" 2>/dev/null || sleep 0.1; n=$((n + 1)); done',
].join('\n');

function startWatchdog(pid: number, cleanupDir: string): ChildProcess | undefined {
  try {
    const watchdog = spawn(
      '/bin/sh',
      ['-c', WATCHDOG_SCRIPT, 'fastpath-jvm-watchdog', String(pid), cleanupDir],
      {
        stdio: ['pipe', 'ignore', 'ignore'],
        detached: true,
      },
    );
    watchdog.on('error', () => undefined);
    watchdog.stdin?.on('error', () => undefined);
    watchdog.unref();
    const stdin = watchdog.stdin as (NodeJS.WritableStream & { unref?: () => void }) | null;
    stdin?.unref?.();
    return watchdog;
  } catch {
    return undefined;
  }
}

/**
 * Registers a freshly spawned child: killed when this process exits, killed by a watchdog (which
 * then deletes `cleanupDir`, when given) if this process dies abruptly. Resolves when it exits.
 */
export function trackChild(
  child: ChildProcess,
  cleanupDir = '',
  onExit?: (exit: ProcessExit) => void,
): Promise<ProcessExit> {
  let done = false;
  let watchdog: ChildProcess | undefined;
  const exited = new Promise<ProcessExit>((resolve) => {
    const finish = (info: ProcessExit): void => {
      if (done) return;
      done = true;
      liveChildren.delete(child);
      updateHook();
      watchdog?.stdin?.end('done\n');
      onExit?.(info);
      resolve(info);
    };
    child.on('exit', (code, signal) => finish({ code, signal }));
    child.on('error', () => finish({ code: null, signal: null }));
  });
  if (child.pid !== undefined) {
    liveChildren.add(child);
    updateHook();
    watchdog = startWatchdog(child.pid, cleanupDir);
  }
  return exited;
}

/**
 * Spawns a server with its output appended to `logFile`. The child does not hold the event loop
 * open (no pipes, unref'd); it is killed on process exit and by a watchdog if this process dies
 * abruptly, and the watchdog then deletes `cleanupDir`.
 */
export function spawnServer(
  command: string,
  args: readonly string[],
  options: SpawnServerOptions,
): ServerProcess {
  const fd = openSync(options.logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(command, args, {
      cwd: options.cwd,
      stdio: ['ignore', fd, fd],
      detached: false,
      ...(options.env === undefined ? {} : { env: options.env }),
    });
  } finally {
    closeSync(fd);
  }
  let exitInfo: ProcessExit | undefined;
  const exited = trackChild(child, options.cleanupDir, (info) => {
    exitInfo = info;
  });
  child.unref();
  return {
    pid: child.pid ?? -1,
    exited,
    exit: () => exitInfo,
    signal: (signal) => signalChild(child, exitInfo !== undefined, signal),
  };
}

/**
 * Sends `signal` to a tracked child unless it has exited (`exited`, as its `trackChild` says):
 * false when it is gone or the signal could not be sent, never a throw.
 */
export function signalChild(child: ChildProcess, exited: boolean, signal: NodeJS.Signals): boolean {
  if (exited || child.pid === undefined) return false;
  try {
    return child.kill(signal);
  } catch {
    return false;
  }
}
