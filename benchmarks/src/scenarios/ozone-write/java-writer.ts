// Ozone's own Java client beside fastpath's: java/fastpath/ozonewrite/OzoneWriteBench.java in a
// JVM of its own (so its process CPU is the client's alone), compiled with jvm-fixture's javac
// support against the jars tools/ozone resolves. One JSON line per request on stdin, one answer
// per line on stdout.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { openSync } from 'node:fs';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { compileJava, trackChild } from '@fastpath/jvm-fixture';
import { prepareOzoneJars } from '@fastpath/ozone-fixture';
import { BenchmarkProcessError, shellQuote, type ScenarioContext } from '../../harness/index.js';
import type { WriterCall } from './fastpath-writer-main.js';
import type { OzoneWriteSettings } from './ozone-write-settings.js';

/** The calls both writers answer alike (the Java one answers no `open`, `delete` or `close`). */
type SharedCall = Extract<WriterCall, { op: 'prepare' | 'write' | 'verify' }>;

export interface JavaWriter extends AsyncDisposable {
  /** Ozone's version, as its jars say. */
  readonly version: string;
  readonly heapMb: number;
  call(request: SharedCall, timeoutMs: number): Promise<unknown>;
}

/** Heap beyond the keys' content: 16 writers each hold up to `ozone.client.stream.buffer.max.size` (32 MiB). */
const HEADROOM_MB = 1024;

export async function startJavaWriter(
  ctx: ScenarioContext<OzoneWriteSettings>,
  target: { omRpcAddress: string; volume: string; bucket: string },
  contentBytes: number,
): Promise<JavaWriter> {
  const jars = await prepareOzoneJars({ onProgress: (line) => ctx.log(`[ozone-fixture] ${line}`) });
  const sourceDir = ctx.sourcePath('scenarios/ozone-write/java');
  const compiled = await compileJava({
    sourceDir,
    outDir: ctx.results.path('java-classes'),
    classpath: jars.classpath.split(':'),
  });
  const heapMb = HEADROOM_MB + Math.ceil(contentBytes / (1024 * 1024));
  const args = [
    `-Xmx${heapMb}m`,
    `-Dlog4j.configuration=file:${jars.log4jConfig}`,
    '-cp',
    [compiled.classesDir, jars.classpath].join(':'),
    'fastpath.ozonewrite.OzoneWriteBench',
  ];
  ctx.results.recordCommand(
    [jars.javaPath, ...args].map(shellQuote).join(' '),
    "Ozone's own Java client (OzoneClientFactory's RpcClient) writing and reading back its keys",
  );
  const log = openSync(ctx.results.logPath('java-writer'), 'a');
  // A file descriptor as stderr is outside spawn's typed overloads; stdin and stdout are pipes.
  const child = spawn(jars.javaPath, args, {
    cwd: dirname(sourceDir),
    stdio: ['pipe', 'pipe', log],
  }) as ChildProcessByStdio<Writable, Readable, null>;
  const exited = trackChild(child);
  const gone = '{"ok":false,"error":"the Java writer exited; see logs/java-writer.log"}';
  const queue: Array<(line: string) => void> = [];
  createInterface({ input: child.stdout }).on('line', (line) => queue.shift()?.(line));
  let ended = false;
  void exited.then(() => {
    ended = true;
    for (const waiter of queue.splice(0)) waiter(gone);
  });
  const next = (timeoutMs: number): Promise<string> =>
    new Promise((resolve) => {
      if (ended) return resolve(gone);
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
      }, timeoutMs);
      queue.push((line) => {
        clearTimeout(timer);
        resolve(line);
      });
    });
  const call = async (request: Record<string, unknown>, timeoutMs: number): Promise<unknown> => {
    const answer = next(timeoutMs);
    child.stdin.write(`${JSON.stringify(request)}\n`);
    const parsed = JSON.parse(await answer) as { ok: boolean; error?: string };
    if (!parsed.ok)
      throw new BenchmarkProcessError(`Java writer, ${String(request.op)}: ${parsed.error ?? 'failed'}`);
    return parsed;
  };
  const dispose = async (): Promise<void> => {
    child.stdin.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    const ready = JSON.parse(await next(120_000)) as { ready?: boolean };
    if (!ready.ready)
      throw new BenchmarkProcessError('the Java writer did not start; see logs/java-writer.log');
    const init = (await call({ op: 'init', ...target }, 120_000)) as { version: string; layout: string };
    ctx.log(`Java writer: Ozone ${init.version}, bucket layout ${init.layout}, -Xmx${heapMb}m`);
    return {
      version: init.version,
      heapMb,
      call: (request, timeoutMs) => call(request, timeoutMs),
      [Symbol.asyncDispose]: dispose,
    };
  } catch (err) {
    await dispose();
    throw err;
  }
}
