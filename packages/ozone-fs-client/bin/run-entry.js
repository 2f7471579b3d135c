// Runs one of the package's commands. After a build it imports dist/; without one it runs the
// TypeScript source through tsx, resolving workspace packages with the "development" condition.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** `entry` is the path under src/ without extension, e.g. 'fs/fs-cli-main'. */
export async function runEntry(entry) {
  const built = new URL(`../dist/${entry}.js`, import.meta.url);
  if (existsSync(fileURLToPath(built))) {
    await import(built.href);
    return;
  }
  const main = fileURLToPath(new URL(`../src/${entry}.ts`, import.meta.url));
  const child = spawn(
    process.execPath,
    ['--import', import.meta.resolve('tsx'), '--conditions', 'development', main, ...process.argv.slice(2)],
    { stdio: 'inherit' },
  );
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => child.kill(signal));
  }
  child.on('exit', (code, signal) => {
    process.exitCode = code ?? (signal === null ? 1 : 128);
  });
}
