// A Java client under test in a JVM of its own (so its process CPU is its alone), the one copy the
// scenarios that put a Java client beside fastpath's share: its sources compiled with
// jvm-fixture's javac support, the JVM spawned with stdout for answers and stderr to a log,
// one JSON request per stdin line and one JSON answer (`{"ok":true,...}` or
// `{"ok":false,"error":...}`) per stdout line, the first line `{"ready":true}`.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { openSync } from 'node:fs';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { compileJava, trackChild } from '@fastpath/jvm-fixture';
import { BenchmarkProcessError } from './benchmark-errors.js';
import type { ScenarioContext } from './scenario.js';
import { shellQuote } from './start-child.js';

export interface JavaClientProcessOptions {
  /** Its name in logs and errors, and the log file's (`logs/<name>.log`). */
  name: string;
  /** The Java sources' root under `benchmarks/src`, e.g. `scenarios/ozone-write/java`. */
  sourceDir: string;
  mainClass: string;
  /** The JVM, and the jars the sources compile and run against. */
  javaPath: string;
  classpath: string;
  /** JVM options before `-cp` (heap, log4j configuration). */
  jvmArgs: readonly string[];
  /** What the recorded command is, for the results folder. */
  description: string;
  /** How long the JVM may take to print its ready line. Default 120 s. */
  readyTimeoutMs?: number;
}

export interface JavaClientProcess extends AsyncDisposable {
  /** Sends one request; resolves with the answer, or throws `BenchmarkProcessError` on `ok: false`. */
  call(request: { op: string } & Record<string, unknown>, timeoutMs: number): Promise<unknown>;
}

export async function startJavaClientProcess(
  ctx: ScenarioContext<unknown>,
  options: JavaClientProcessOptions,
): Promise<JavaClientProcess> {
  const { name } = options;
  const sourceDir = ctx.sourcePath(options.sourceDir);
  const compiled = await compileJava({
    sourceDir,
    outDir: ctx.results.path(`java-classes/${name}`),
    classpath: options.classpath.split(':'),
  });
  const args = [
    ...options.jvmArgs,
    '-cp',
    [compiled.classesDir, options.classpath].join(':'),
    options.mainClass,
  ];
  ctx.results.recordCommand([options.javaPath, ...args].map(shellQuote).join(' '), options.description);
  const log = openSync(ctx.results.logPath(name), 'a');
  // A file descriptor as stderr is outside spawn's typed overloads; stdin and stdout are pipes.
  const child = spawn(options.javaPath, args, {
    cwd: dirname(sourceDir),
    stdio: ['pipe', 'pipe', log],
  }) as ChildProcessByStdio<Writable, Readable, null>;
  const exited = trackChild(child);
  const gone = JSON.stringify({ ok: false, error: `the ${name} JVM exited; see logs/${name}.log` });
  const queue: Array<(line: string) => void> = [];
  createInterface({ input: child.stdout }).on('line', (line) => queue.shift()?.(line));
  let ended = false;
  void exited.then(() => {
    ended = true;
    for (const waiter of queue.splice(0)) waiter(gone);
  });
  // Answers come in request order; a request unanswered in time kills the JVM (its answer is the
  // exit's), since a late answer would be taken for the next request's.
  const next = (timeoutMs: number): Promise<string> =>
    new Promise((resolve) => {
      if (ended) return resolve(gone);
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      queue.push((line) => {
        clearTimeout(timer);
        resolve(line);
      });
    });
  const call = async (
    request: { op: string } & Record<string, unknown>,
    timeoutMs: number,
  ): Promise<unknown> => {
    const answer = next(timeoutMs);
    child.stdin.write(`${JSON.stringify(request)}\n`);
    const parsed = JSON.parse(await answer) as { ok: boolean; error?: string };
    if (!parsed.ok) throw new BenchmarkProcessError(`${name}, ${request.op}: ${parsed.error ?? 'failed'}`);
    return parsed;
  };
  const dispose = async (): Promise<void> => {
    child.stdin.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    const ready = JSON.parse(await next(options.readyTimeoutMs ?? 120_000)) as { ready?: boolean };
    if (!ready.ready) throw new BenchmarkProcessError(`the ${name} JVM did not start; see logs/${name}.log`);
  } catch (err) {
    await dispose();
    throw err;
  }
  return { call, [Symbol.asyncDispose]: dispose };
}
