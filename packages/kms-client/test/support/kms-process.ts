import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { KmsServerOptions } from '@fastpath/kms-server';

/** A KMS server running in a child process (test/support/kms-server-process.ts). */
export interface KmsProcess extends AsyncDisposable {
  /** `http://127.0.0.1:<port>/kms`. */
  readonly url: string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

const SCRIPT = join(__dirname, 'kms-server-process.ts');

export async function startKmsProcess(
  options: KmsServerOptions,
  startTimeoutMs = 60_000,
): Promise<KmsProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions', 'development', SCRIPT, JSON.stringify(options)],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.stdin?.end();
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(killer);
    }
  };
  const url = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(
      () => reject(new Error(`the KMS process did not start in ${startTimeoutMs} ms: ${stderr}`)),
      startTimeoutMs,
    );
    child.stdout?.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      const m = /^listening (\S+)$/m.exec(stdout);
      if (m) {
        clearTimeout(timer);
        resolve(`${m[1] as string}/kms`);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the KMS process exited with ${code}: ${stderr}`));
    });
  }).catch(async (err: unknown) => {
    await stop();
    throw err;
  });
  return { url, child, stop, [Symbol.asyncDispose]: stop };
}
