#!/usr/bin/env node
// Runs the TypeScript sources through tsx, so the command works without a build. The sources are
// resolved with the "development" export condition (workspace packages point it at src/).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const tsx = import.meta.resolve('tsx');
const main = fileURLToPath(new URL('../src/cli-main.ts', import.meta.url));
const child = spawn(
  process.execPath,
  ['--import', tsx, '--conditions', 'development', main, ...process.argv.slice(2)],
  // The IPC channel tells the child when this wrapper is gone, however it ended.
  { stdio: ['inherit', 'inherit', 'inherit', 'ipc'] },
);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => child.kill(signal));
}
child.on('exit', (code, signal) => {
  process.exitCode = code ?? (signal === null ? 1 : 128);
});
