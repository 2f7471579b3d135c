#!/usr/bin/env node
// The `fastpath-kms` command. Runs the built CLI when dist/ exists; otherwise the TypeScript
// sources through tsx, so `npx fastpath-kms` works on a fresh clone without a build.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const built = new URL('../dist/cli-main.js', import.meta.url);
if (existsSync(fileURLToPath(built))) {
  await import(built.href);
} else {
  let tsx;
  try {
    tsx = import.meta.resolve('tsx');
  } catch {
    process.stderr.write(
      'fastpath-kms: not built and tsx is not installed: run `npm run build -w @fastpath/kms-server`\n',
    );
    process.exit(1);
  }
  const main = fileURLToPath(new URL('../src/cli-main.ts', import.meta.url));
  const child = spawn(
    process.execPath,
    ['--import', tsx, '--conditions', 'development', main, ...process.argv.slice(2)],
    {
      // The IPC channel tells the child when this wrapper is gone, however it ended.
      stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    },
  );
  // Relay the child's readiness to whoever started this wrapper with an IPC channel.
  child.on('message', (message) => process.send?.(message));
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => child.kill(signal));
  }
  child.on('exit', (code, signal) => {
    process.exitCode = code ?? (signal === null ? 1 : 128);
    process.disconnect?.();
  });
}
