#!/usr/bin/env node
// Runs the TypeScript sources through tsx, so the command works without a build. The sources are
// resolved with the "development" export condition (workspace packages point it at src/).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const tsx = import.meta.resolve('tsx');
const main = fileURLToPath(new URL('../src/kerberos-package-main.ts', import.meta.url));
const result = spawnSync(process.execPath, ['--import', tsx, '--conditions', 'development', main], {
  stdio: 'inherit',
});
process.exitCode = result.status ?? 1;
