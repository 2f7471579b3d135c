#!/usr/bin/env node
// The fastpath-ozone command. After a build it runs dist/; without one it runs the TypeScript
// sources through tsx, resolving workspace packages with the "development" export condition.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const built = new URL('../dist/fs/fs-cli-main.js', import.meta.url);
if (existsSync(fileURLToPath(built))) {
  await import(built.href);
} else {
  const main = fileURLToPath(new URL('../src/fs/fs-cli-main.ts', import.meta.url));
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
