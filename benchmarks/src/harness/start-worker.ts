import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker, type ResourceLimits } from 'node:worker_threads';
import { BenchmarkProcessError } from './benchmark-errors.js';
import { isReplyMessage, PendingCalls, type CallOptions } from './call-protocol.js';

/** Options of {@link startWorker}. */
export interface StartWorkerOptions {
  /** Name in errors and in the thread list. Default: the module's file name. */
  name?: string;
  /** Passed to the worker as `workerData`. Default: none. */
  workerData?: unknown;
  resourceLimits?: ResourceLimits;
}

/** A worker thread running a TypeScript module that called {@link serveCalls}. */
export interface WorkerHandle<I, O> {
  readonly name: string;
  readonly threadId: number;
  /** Settles when the module is loaded and serving; rejects if it failed to load. */
  readonly ready: Promise<void>;
  /** Sends one input; resolves with the module's result. */
  call(input: I, options?: CallOptions): Promise<O>;
  /** Stops the thread; calls still in flight are rejected. */
  close(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/** The ES module entry of `tsx/esm/api` as seen from `fromPath` (its CommonJS twin cannot register from a worker). */
function tsxEsmApi(fromPath: string): string {
  const pkgPath = createRequire(fromPath).resolve('tsx/package.json');
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as {
    exports?: Record<string, { import?: string | { default?: string } } | undefined>;
  };
  const entry = pkg.exports?.['./esm/api']?.import;
  const relative = typeof entry === 'string' ? entry : entry?.default;
  if (!relative) throw new BenchmarkProcessError(`tsx at ${path.dirname(pkgPath)} has no ./esm/api export`);
  return pathToFileURL(path.join(path.dirname(pkgPath), relative)).href;
}

/**
 * The code that boots a worker: it registers tsx in the worker itself, then imports the module.
 * (In Node 20, `--import tsx` in a worker's execArgv comes too late for a `.ts` entry.)
 * `--conditions development` in the worker's execArgv makes workspace packages resolve to `src`.
 */
function bootstrap(modulePath: string): string {
  return (
    `import(${JSON.stringify(tsxEsmApi(modulePath))})\n` +
    `  .then((api) => api.register())\n` +
    `  .then(() => import(${JSON.stringify(pathToFileURL(modulePath).href)}));\n`
  );
}

/**
 * Starts a worker thread running the TypeScript module at `modulePath` (absolute). The module
 * answers with {@link serveCalls}. One thread per variant or per simulated client keeps JIT state
 * and pools apart, as separate Java threads would be.
 *
 * @example
 * ```ts
 * const workers = Array.from({ length: 10 }, () =>
 *   startWorker<{ durationMs: number }, { ops: number }>(ctx.sourcePath('scenarios/x/x-worker.ts')),
 * );
 * await Promise.all(workers.map((w) => w.ready));
 * const results = await Promise.all(workers.map((w) => w.call({ durationMs: 1000 })));
 * await Promise.all(workers.map((w) => w.close()));
 * ```
 */
export function startWorker<I, O>(modulePath: string, options: StartWorkerOptions = {}): WorkerHandle<I, O> {
  const absolute = path.resolve(modulePath);
  const name = options.name ?? path.basename(absolute);
  const worker = new Worker(bootstrap(absolute), {
    eval: true,
    execArgv: ['--conditions', 'development'],
    workerData: options.workerData,
    name,
    ...(options.resourceLimits ? { resourceLimits: options.resourceLimits } : {}),
  });
  const where = `worker ${name}`;
  const pending = new PendingCalls(where);
  let closing = false;
  let exited = false;
  let markReady!: () => void;
  let failReady!: (err: unknown) => void;
  const ready = new Promise<void>((resolve, reject) => {
    markReady = resolve;
    failReady = reject;
  });
  ready.catch(() => undefined);
  worker.on('message', (message: unknown) => {
    if (!isReplyMessage(message)) return;
    if (message.kind === 'bench-ready') markReady();
    else pending.settle(message);
  });
  worker.on('error', (cause) => {
    const err = new BenchmarkProcessError(`${where} failed: ${String(cause)}`, { cause });
    failReady(err);
    pending.failAll(err);
  });
  const exit = new Promise<void>((resolve) => {
    worker.on('exit', (code) => {
      exited = true;
      const err = new BenchmarkProcessError(
        closing ? `${where} was closed` : `${where} exited with code ${code} before answering`,
      );
      failReady(err);
      pending.failAll(err);
      resolve();
    });
  });
  const close = async (): Promise<void> => {
    closing = true;
    if (!exited) await worker.terminate();
    await exit;
  };
  return {
    name,
    threadId: worker.threadId,
    ready,
    call: (input, callOptions) =>
      pending.call((m) => worker.postMessage(m), input, callOptions) as Promise<O>,
    close,
    [Symbol.asyncDispose]: close,
  };
}

/**
 * Runs the module once in a fresh worker thread: start, one call, close.
 *
 * @example
 * ```ts
 * const { ops } = await runInWorker<{ durationMs: number }, { ops: number }>(workerPath, { durationMs: 500 });
 * ```
 */
export async function runInWorker<I, O>(
  modulePath: string,
  input: I,
  options: StartWorkerOptions & CallOptions = {},
): Promise<O> {
  const handle = startWorker<I, O>(modulePath, options);
  try {
    return await handle.call(input, options);
  } finally {
    await handle.close();
  }
}
