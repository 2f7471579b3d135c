import { SHARE_ENV, Worker } from 'node:worker_threads';

// Runs in a worker thread that shares this process's real environment (SHARE_ENV): its
// process.env writes reach the C environment that native code reads with getenv.
const SCRIPT = `
const { parentPort, workerData } = require('node:worker_threads');
const previous = {};
for (const [name, value] of Object.entries(workerData)) {
  previous[name] = process.env[name];
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}
parentPort.postMessage(previous);
`;

/**
 * Sets (or, with `undefined`, removes) variables of this process's real environment: what native
 * code such as libkrb5 inside the `kerberos` package reads (`KRB5_CONFIG`, `KRB5CCNAME`,
 * `KRB5_KTNAME`, …). Assigning `process.env` is not enough under jest: a test file's
 * `process.env` is a copy that native code never sees. `process.env` is updated too. Resolves
 * with the previous values, to restore them with a second call.
 *
 * @example
 * ```ts
 * const previous = await setNativeEnvironment({ ...kdc.env(), KRB5CCNAME: await kdc.kinit('client') });
 * // … GSS calls in this process …
 * await setNativeEnvironment(previous);
 * ```
 */
export async function setNativeEnvironment(
  variables: Readonly<Record<string, string | undefined>>,
): Promise<Record<string, string | undefined>> {
  const previous = await new Promise<Record<string, string | undefined>>((resolve, reject) => {
    let answer: Record<string, string | undefined> | undefined;
    const worker = new Worker(SCRIPT, { eval: true, env: SHARE_ENV, workerData: { ...variables } });
    worker.once('message', (message: Record<string, string | undefined>) => (answer = message));
    worker.once('error', reject);
    worker.once('exit', (code) =>
      answer === undefined ? reject(new Error(`the environment worker exited (${code})`)) : resolve(answer),
    );
  });
  for (const [name, value] of Object.entries(variables)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  return previous;
}
