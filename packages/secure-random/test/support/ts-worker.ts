import { Worker } from 'node:worker_threads';

/**
 * Starts a worker thread running a TypeScript file. `--import tsx` in a worker's execArgv does not
 * reach the worker's entry module on Node 20, so a tiny CommonJS entry registers tsx first; the
 * "development" condition makes `@fastpath/*` imports resolve to their TypeScript sources.
 */
export function startTsWorker(file: string, workerData: unknown): Worker {
  const tsx = require.resolve('tsx/cjs/api');
  const entry = `require(${JSON.stringify(tsx)}).register(); require(${JSON.stringify(file)});`;
  return new Worker(entry, { eval: true, execArgv: ['--conditions', 'development'], workerData });
}
