import { SHARE_ENV, Worker } from 'node:worker_threads';

/**
 * Sets variables in the environment of the process itself, which libkrb5 (the `kerberos`
 * package) reads. Jest gives each test file a copy of `process.env`: assigning to it never
 * reaches the C library. A worker thread sharing the environment (`SHARE_ENV`) is outside that
 * sandbox, and its assignments are the process's own. For tests of Kerberos mode in one process
 * (the server's `KRB5_KTNAME`, a client's `KRB5CCNAME`, the realm's `KRB5_CONFIG`).
 *
 * @example
 * ```ts
 * await setProcessEnv({ ...kdc.env(), KRB5CCNAME: await kdc.kinit('client') });
 * ```
 */
export function setProcessEnv(vars: Readonly<Record<string, string | undefined>>): Promise<void> {
  const worker = new Worker(
    `const { workerData } = require('node:worker_threads');
     for (const [name, value] of Object.entries(workerData)) {
       if (value === null) delete process.env[name];
       else process.env[name] = value;
     }`,
    {
      eval: true,
      env: SHARE_ENV,
      workerData: Object.fromEntries(Object.entries(vars).map(([k, v]) => [k, v ?? null])),
    },
  );
  for (const [name, value] of Object.entries(vars)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  return new Promise((resolve, reject) => {
    worker.once('error', reject);
    worker.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`env worker exited ${code}`))));
  });
}
