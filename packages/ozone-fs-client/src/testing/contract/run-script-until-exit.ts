// A Node process of its own running an ES module script from the sources (tsx, the "development"
// condition), for the tests that a process exits by itself: what keeps a process alive is only
// seen from outside it.
import { spawn } from 'node:child_process';

/**
 * Runs `script` with `args` (in `process.argv` after the script) and resolves with what it wrote
 * to stdout once it exits with 0; rejects with its stderr when it exits otherwise, and kills it
 * and rejects when it has not exited by itself within `timeoutMs`.
 */
export async function runScriptUntilExit(
  script: string,
  args: readonly string[],
  timeoutMs: number,
): Promise<string> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions', 'development', '--input-type=module', '-e', script, ...args],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const code = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve(null);
    }, timeoutMs);
    child.on('exit', (c) => {
      clearTimeout(timer);
      resolve(c);
    });
  });
  if (code === null) throw new Error(`the process did not exit by itself within ${timeoutMs} ms: ${err}`);
  if (code !== 0) throw new Error(`the process exited with ${code}: ${err}`);
  return out;
}
