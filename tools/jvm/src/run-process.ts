import { spawn } from 'node:child_process';
import { checkInteger } from '@fastpath/core';
import { ProcessTimeoutError } from './jvm-errors.js';
import { trackChild, type ProcessExit } from './process-registry.js';

/** Options of {@link runProcess}. */
export interface RunProcessOptions {
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** Written to the child's stdin, which is then closed. Default: nothing (stdin closed). */
  readonly input?: string;
  /** Upper bound for the run; the child is killed (SIGKILL) after it. Default 600000 (10 min). */
  readonly timeoutMs?: number;
  /** Called with each complete line of stdout and stderr as it arrives (progress reports). */
  readonly onLine?: (line: string, stream: 'stdout' | 'stderr') => void;
}

export const DEFAULT_RUN_PROCESS_OPTIONS = Object.freeze({ timeoutMs: 600_000 });

/** What a finished command printed, and how it ended. */
export interface ProcessResult extends ProcessExit {
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs a command to completion and collects its output. Like the servers of
 * {@link spawnServer}, the child is killed when this process exits and by a watchdog when this
 * process dies abruptly, so a `java` client never outlives the test that ran it.
 *
 * @throws ProcessTimeoutError when it runs longer than `timeoutMs` (it is killed first)
 */
export async function runProcess(
  command: string,
  args: readonly string[],
  options: RunProcessOptions = {},
): Promise<ProcessResult> {
  const timeoutMs = checkInteger('timeoutMs', options.timeoutMs ?? DEFAULT_RUN_PROCESS_OPTIONS.timeoutMs, 1);
  const child = spawn(command, args, {
    stdio: ['pipe', 'pipe', 'pipe'],
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.env === undefined ? {} : { env: options.env }),
  });
  const exited = trackChild(child);
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const collect = (chunks: Buffer[], stream: 'stdout' | 'stderr') => {
    let partial = '';
    return (chunk: Buffer): void => {
      chunks.push(chunk);
      if (options.onLine === undefined) return;
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) options.onLine(line, stream);
    };
  };
  child.stdout?.on('data', collect(out, 'stdout'));
  child.stderr?.on('data', collect(err, 'stderr'));
  child.stdin?.on('error', () => undefined);
  child.stdin?.end(options.input ?? '');
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, timeoutMs);
  // 'close' (not only 'exit') so that every byte of output has been read.
  const closed = new Promise<void>((resolve) => {
    child.on('close', () => resolve());
    child.on('error', () => resolve());
  });
  const [exit] = await Promise.all([exited, closed]);
  clearTimeout(timer);
  const stdout = Buffer.concat(out).toString('utf8');
  const stderr = Buffer.concat(err).toString('utf8');
  if (timedOut) {
    throw new ProcessTimeoutError(
      [command, ...args].join(' ').slice(0, 300),
      timeoutMs,
      `${stdout}\n${stderr}`.trim().split('\n').slice(-20).join('\n'),
    );
  }
  return { ...exit, stdout, stderr };
}
