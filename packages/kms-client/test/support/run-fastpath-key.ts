import { spawn } from 'node:child_process';
import { join } from 'node:path';

export interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

const BIN = join(__dirname, '..', '..', 'bin', 'fastpath-key.js');

/** Runs the fastpath-key command as its own process, as a user would, and collects its output. */
export function runFastpathKey(
  args: readonly string[],
  options: { env?: Record<string, string>; input?: string } = {},
): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, ...options.env };
    // The command must not pick up settings of whoever runs the tests.
    for (const name of ['FASTPATH_KMS_URL', 'FASTPATH_KMS_USER', 'FASTPATH_KMS_TOKEN']) {
      if (options.env?.[name] === undefined) delete env[name];
    }
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}
