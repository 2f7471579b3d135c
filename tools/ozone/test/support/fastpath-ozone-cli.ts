// Runs the installed `fastpath-ozone` command as a process of its own, as a user would.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** What a `fastpath-ozone` run gave: its exit code, its standard output (bytes) and error (text). */
export interface CliRun {
  code: number;
  stdout: Buffer;
  stderr: string;
}

/** `fastpath-ozone ...args` with `env` on top of this process's environment. */
export function fastpathOzone(env: NodeJS.ProcessEnv, ...args: string[]): Promise<CliRun> {
  const pkg = dirname(createRequire(__filename).resolve('@fastpath/ozone-fs-client/package.json'));
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(pkg, 'bin/fastpath-ozone.js'), ...args],
      { env: { ...process.env, ...env }, encoding: 'buffer', maxBuffer: 256 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1;
        resolve({ code, stdout, stderr: stderr.toString('utf8') });
      },
    );
  });
}
